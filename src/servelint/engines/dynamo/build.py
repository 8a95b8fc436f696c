"""Build a Dynamo worker profile from an ``ai-dynamo`` wheel, reading its sources (never
importing them).

For each ``python -m dynamo.<name>`` entrypoint of the wheel (a package with a ``__main__``:
the vllm/sglang/trtllm workers, the frontend, the routers, the mocker, ...) the builder reads
its ``parse_args`` (in ``args.py``, or where ``__main__`` takes ``main`` from): the outer ``argparse.ArgumentParser`` (its
``allow_abbrev``), the ``ArgGroup`` classes whose ``add_arguments`` it calls, and how the
rest of the command line reaches the engine (``parse_known_args`` then vLLM's
``AsyncEngineArgs.add_cli_args`` parser, SGLang's ``ServerArgs.add_cli_args`` parser, or no
engine parser at all). Every option the groups add — through Dynamo's ``add_argument`` /
``add_negatable_bool_argument`` helpers or ``parser.add_argument`` — is recorded with its
spellings, choices, env var and file:line.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from servelint.engines._build.astutil import ModuleIndex, collect_imports
from servelint.engines._build.static_eval import UNKNOWN, Evaluator
from servelint.engines._build.wheel import WheelSource

BUILDER_VERSION = 1
_ENGINE_PARSERS = {
    "AsyncEngineArgs": "vllm-engine-args",
    "EngineArgs": "vllm-engine-args",
    "ServerArgs": "sglang-server-args",
}
_MAX_DEPTH = 4
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Sources:
    """The wheel's modules through the shared builder pieces: ``ModuleIndex`` resolves names
    (relative imports included), ``static_eval.Evaluator`` computes constant values."""

    def __init__(self, src: WheelSource) -> None:
        self.index = ModuleIndex(src)
        self.ev = Evaluator(self.index)

    @classmethod
    def from_wheel(cls, wheel: Path) -> Sources:
        return cls(WheelSource(wheel))

    def file(self, mod: str) -> str:
        return self.index.file_of(mod) or mod

    def find(self, mod: str, name: str, scope: ast.AST | None = None) -> tuple[str, ast.AST] | None:
        """The def, class or assigned value ``name`` stands for in ``mod`` (seen from inside
        function ``scope``, whose own imports come first)."""
        local = self._scope_imports(mod, scope).get(name)
        found = self.index.resolve(*local) if local else self.index.resolve(mod, name)
        if found is None or found.kind == "module":
            return None
        return found.module, found.node

    def _scope_imports(self, mod: str, scope: ast.AST | None) -> dict[str, tuple[str, str]]:
        imports: dict[str, tuple[str, str | None]] = {}
        if scope is not None:
            stmts = [st for st in ast.walk(scope) if isinstance(st, ast.ImportFrom)]
            collect_imports(stmts, mod, self.index.is_package(mod), imports)
        return {k: (m, a) for k, (m, a) in imports.items() if a is not None}


class _Eval:
    """Constant values of choices / defaults (None when not constant), evaluated by the
    shared evaluator in module ``mod`` as seen from function ``scope``."""

    def __init__(
        self, src: Sources, mod: str, scope: ast.AST | None = None, bind: dict | None = None
    ) -> None:
        self.src, self.mod = src, mod
        self.local = src.ev.function_locals(mod, scope) if scope is not None else {}
        self.local.update(bind or {})

    def value(self, node: ast.AST | None) -> Any:
        if node is None:
            return None
        value = self.src.ev.eval(node, self.mod, dict(self.local))  # type: ignore[arg-type]
        return _plain(value)


def _plain(value: Any) -> Any:
    """A value as the profile records it: tuples as lists, evaluator markers as None."""
    if value is UNKNOWN or (
        isinstance(value, tuple) and value[:1] in {("class",), ("module",), ("function",)}
    ):
        return None
    if isinstance(value, tuple):
        return list(value)
    return value


def _kw(call: ast.Call, name: str) -> ast.AST | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def _option(
    call: ast.Call, src: Sources, mod: str, group: str, scope: ast.AST, bind: dict | None = None
) -> dict | None:
    """One option from a helper call or ``add_argument`` call (None if not an option);
    ``bind`` gives the names of a loop around the call (``_loop_bindings``)."""
    func = call.func
    fname = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else ""
    )
    ev = _Eval(src, mod, scope, bind)
    where = f"{src.file(mod)}:{call.lineno}"
    if (
        fname in ("add_argument", "add_negatable_bool_argument")
        and _kw(call, "flag_name") is not None
    ):
        flag = ev.value(_kw(call, "flag_name"))
        if not isinstance(flag, str):
            return None
        names = [flag]
        obsolete = ev.value(_kw(call, "obsolete_flag"))
        if isinstance(obsolete, str):
            names.append(obsolete)
        negatable = fname == "add_negatable_bool_argument"
        env = _kw(call, "env_var")
        env_text = ev.value(env) if env is not None else None
        if env_text is None and isinstance(env, ast.JoinedStr):
            env_text = ast.unparse(env)
        return _record(
            names,
            negatable=negatable,
            nargs=ev.value(_kw(call, "nargs")),
            choices=ev.value(_kw(call, "choices")),
            action=ev.value(_kw(call, "action")),
            default=ev.value(_kw(call, "default")),
            env=env_text,
            source=where,
            group=group,
        )
    if fname == "add_argument" and isinstance(func, ast.Attribute):
        names = [
            a.value
            for a in call.args
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("-")
        ]
        if not names:
            return None
        action = _kw(call, "action")
        action_name = ev.value(action) if not isinstance(action, ast.Attribute) else action.attr
        return _record(
            names,
            negatable=action_name == "BooleanOptionalAction",
            nargs=ev.value(_kw(call, "nargs")),
            choices=ev.value(_kw(call, "choices")),
            action=action_name,
            default=ev.value(_kw(call, "default")),
            env=None,
            source=where,
            group=group,
        )
    return None


def _loop_bindings(fn: ast.AST, call: ast.Call, ev: _Eval) -> list[dict]:
    """One binding of the loop names per row, for a call inside ``for a, b in TABLE:`` over a
    constant table (ai-dynamo 1.4.0 ``vllm/backend_args.py``: the legacy sampling flags)."""
    for loop in ast.walk(fn):
        if isinstance(loop, ast.For) and any(n is call for st in loop.body for n in ast.walk(st)):
            table = ev.value(_assigned(fn, loop.iter) or loop.iter)
            rows = [_bind(loop.target, row) for row in table] if isinstance(table, list) else []
            return rows if rows and all(b is not None for b in rows) else []
    return []


def _assigned(fn: ast.AST, node: ast.AST) -> ast.AST | None:
    """The value of the one plain assignment to a local name in ``fn``, wherever it sits."""
    if not isinstance(node, ast.Name):
        return None
    values = [
        st.value
        for st in ast.walk(fn)
        if isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and st.targets[0].id == node.id
    ]
    return values[0] if len(values) == 1 else None


def _bind(target: ast.AST, value: Any) -> dict | None:
    if isinstance(target, ast.Name):
        return {target.id: value}
    if isinstance(target, ast.Tuple) and isinstance(value, list | tuple):
        if len(value) != len(target.elts):
            return None
        out: dict = {}
        for t, v in zip(target.elts, value, strict=True):
            b = _bind(t, v)
            if b is None:
                return None
            out.update(b)
        return out
    return None


def _record(
    names: list[str],
    *,
    negatable: bool,
    nargs: Any,
    choices: Any,
    action: Any,
    default: Any,
    env: Any,
    source: str,
    group: str,
) -> dict:
    accepted = list(names)
    if negatable:
        accepted += ["--no-" + n[2:] for n in names if n.startswith("--")]
        kind = "boolean_optional"
    elif action in ("store_true", "store_false", "store_const", "count", "version", "help"):
        kind = action
    else:
        kind = "store"
    dest = names[0].lstrip("-").replace("-", "_")
    return {
        "option_strings": names,
        "accepted": accepted,
        "dest": dest,
        "kind": kind,
        "nargs": nargs if isinstance(nargs, int | str) else None,
        "choices": [str(c) for c in choices] if isinstance(choices, list) else None,
        "default": default if isinstance(default, str | int | float | bool) else None,
        "env_var": env if isinstance(env, str) else None,
        "source": source,
        "group": group,
    }


def _loose(node: ast.AST, ev: _Eval) -> Any:
    """A dict/list literal whose leaves may not all be constants (those become None)."""
    if isinstance(node, ast.Dict):
        return {
            ev.value(k): _loose(v, ev)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        }
    if isinstance(node, ast.List | ast.Tuple):
        return [_loose(e, ev) for e in node.elts]
    if isinstance(node, ast.Attribute):
        return node.attr  # argparse.BooleanOptionalAction -> "BooleanOptionalAction"
    return ev.value(node)


def _table_options(fn: ast.AST, src: Sources, mod: str, group: str) -> list[dict]:
    """Releases that add options in a loop over a table (``for info in ARGS.values():
    parser.add_argument(*info["flags"], ...)``, ai-dynamo 0.8)."""
    out = []
    for loop in ast.walk(fn):
        if not (
            isinstance(loop, ast.For)
            and isinstance(loop.iter, ast.Call)
            and isinstance(loop.iter.func, ast.Attribute)
            and loop.iter.func.attr == "values"
            and isinstance(loop.iter.func.value, ast.Name)
        ):
            continue
        found = src.find(mod, loop.iter.func.value.id, fn)
        if not found or isinstance(found[1], _DEFS):
            continue
        table = _loose(found[1], _Eval(src, found[0]))
        if not isinstance(table, dict):
            continue
        where = f"{src.file(found[0])}:{found[1].lineno}"
        for info in table.values():
            flags = info.get("flags") if isinstance(info, dict) else None
            if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
                continue
            action = info.get("action")
            out.append(
                _record(
                    flags,
                    negatable=action == "BooleanOptionalAction",
                    nargs=info.get("nargs"),
                    choices=info.get("choices"),
                    action=action,
                    default=info.get("default"),
                    env=None,
                    source=where,
                    group=group,
                )
            )
    return out


def _calls(body: list[ast.stmt]) -> list[ast.Call]:
    out = []
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                out.append(node)
    return sorted(out, key=lambda c: (c.lineno, c.col_offset))


def _options_of(
    fn: ast.AST, src: Sources, mod: str, group: str, depth: int, out: list[dict], seen: set
) -> None:
    """Options added by a function (following calls into helpers and other groups)."""
    if depth > _MAX_DEPTH or (mod, getattr(fn, "name", ""), depth) in seen:
        return
    seen.add((mod, getattr(fn, "name", ""), depth))
    out.extend(_table_options(fn, src, mod, group))
    for call in _calls(getattr(fn, "body", [])):
        opt = _option(call, src, mod, group, fn)
        if opt is not None:
            out.append(opt)
            continue
        looped = [
            o
            for b in _loop_bindings(fn, call, _Eval(src, mod, fn))
            if (o := _option(call, src, mod, group, fn, b)) is not None
        ]
        if looped:
            out.extend(looped)
            continue
        for target_mod, target in _callees(call, src, mod, fn):
            if isinstance(target, ast.ClassDef):
                method = next(
                    (
                        m
                        for m in target.body
                        if isinstance(m, ast.FunctionDef) and m.name == "add_arguments"
                    ),
                    None,
                )
                if method is not None:
                    _options_of(method, src, target_mod, target.name, depth + 1, out, seen)
            elif isinstance(target, ast.FunctionDef) and target.name.startswith("add_"):
                _options_of(target, src, target_mod, group, depth + 1, out, seen)


def _callees(call: ast.Call, src: Sources, mod: str, fn: ast.AST) -> list[tuple[str, ast.AST]]:
    """Group classes (``X().add_arguments(p)``) and helper functions a call reaches."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "add_arguments"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
    ):
        found = src.find(mod, func.value.func.id, fn)
        return [found] if found else []
    if isinstance(func, ast.Name) and func.id not in (
        "add_argument",
        "add_negatable_bool_argument",
    ):
        found = src.find(mod, func.id, fn)
        if found and isinstance(found[1], ast.FunctionDef | ast.ClassDef):
            return [found]
    return []


def _group_instances(fn: ast.AST, src: Sources, mod: str) -> list[tuple[str, ast.ClassDef]]:
    """``spec = SomeArgGroup()`` … ``spec.add_arguments(parser)`` inside parse_args."""
    names: dict[str, str] = {}
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            names[node.targets[0].id] = node.value.func.id
    out = []
    for call in _calls(getattr(fn, "body", [])):
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "add_arguments"
            and isinstance(func.value, ast.Name)
            and func.value.id in names
        ):
            found = src.find(mod, names[func.value.id], fn)
            if found and isinstance(found[1], ast.ClassDef):
                out.append(found)  # type: ignore[arg-type]
    return out


def entrypoints(src: Sources) -> list[str]:
    """The ``python -m dynamo.<name>`` entrypoints of the wheel: packages with a ``__main__``."""
    return sorted(
        mod.split(".")[1]
        for mod in src.index.modules()
        if mod.startswith("dynamo.") and mod.endswith(".__main__") and mod.count(".") == 2
    )


def _parse_args(src: Sources, worker: str) -> tuple[str, ast.AST] | None:
    """The entrypoint's ``parse_args``: in its ``args`` module, else in the module its
    ``__main__`` takes ``main`` from (the frontend's ``main.py``)."""
    candidates = [f"dynamo.{worker}.args"]
    main = src.find(f"dynamo.{worker}.__main__", "main")
    if main is not None:
        candidates.append(main[0])
    for mod in candidates:
        found = src.find(mod, "parse_args")
        if found is not None and isinstance(found[1], ast.FunctionDef | ast.AsyncFunctionDef):
            return found[0], found[1]
    return None


def _rest_rejected_at(fn: ast.AST, path: str) -> str | None:
    """The ``sys.exit`` that refuses leftover arguments when no engine parser takes them
    (``if unknown: ... sys.exit(1)``), as file:line; None when there is none."""
    for name in ("unknown", "remaining"):
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.If)
                and isinstance(node.test, ast.Name)
                and node.test.id == name
            ):
                for call in _calls(node.body):
                    func = call.func
                    if isinstance(func, ast.Attribute) and func.attr == "exit":
                        return f"{path}:{call.lineno}"
    return None


def worker_profile(src: Sources, worker: str) -> dict | None:
    found = _parse_args(src, worker)
    if found is None:
        return None
    mod, fn = found
    parser_line, abbrev = None, True
    engine_parser, engine_line, known = None, None, False
    for call in _calls(fn.body):  # type: ignore[attr-defined]
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "ArgumentParser" and parser_line is None and _kw(call, "add_help") is None:
            parser_line = call.lineno
            got = _kw(call, "allow_abbrev")
            abbrev = not (isinstance(got, ast.Constant) and got.value is False)
        if (
            name == "add_cli_args"
            and isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in _ENGINE_PARSERS
        ):
            engine_parser = engine_parser or _ENGINE_PARSERS[func.value.id]
            engine_line = engine_line or call.lineno
        if name == "parse_known_args":
            known = True
    options: list[dict] = []
    seen: set = set()
    for gmod, cls in _group_instances(fn, src, mod):
        method = next(
            (m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "add_arguments"),
            None,
        )
        if method is not None:
            _options_of(method, src, gmod, cls.name, 1, options, seen)
    _options_of(fn, src, mod, "parse_args", 1, options, seen)
    path = src.file(mod)
    return {
        "module": f"dynamo.{worker}",
        "parse_args": f"{path}:{fn.lineno}",
        "parser": {
            "allow_abbrev": abbrev,
            "source": f"{path}:{parser_line}" if parser_line else None,
            "parse_known_args": known,
        },
        "engine_parser": engine_parser,
        "engine_parser_source": f"{path}:{engine_line}" if engine_line else None,
        "rest_rejected_at": _rest_rejected_at(fn, path),
        "actions": _dedupe(options),
    }


def _dedupe(options: list[dict]) -> list[dict]:
    out, seen = [], set()
    for opt in options:
        key = tuple(opt["option_strings"])
        if key not in seen:
            seen.add(key)
            out.append(opt)
    return out


def build_profile(wheel: Path, version: str) -> dict:
    src = Sources.from_wheel(wheel)
    workers = {w: p for w in entrypoints(src) if (p := worker_profile(src, w)) is not None}
    union = {}
    for prof in workers.values():
        for act in prof["actions"]:
            union.setdefault(tuple(act["option_strings"]), act)
    return {
        "engine": "dynamo",
        "version": version,
        "format": 1,
        "builder_version": BUILDER_VERSION,
        "wheel": {"filename": wheel.name, "sha256": src.index.src.sha256},  # type: ignore[attr-defined]
        "workers": workers,
        # the union of every worker's options, so generic profile tools (list/show) work
        "parser": {
            "actions": list(union.values()),
            "allow_abbrev": False,
            "origin": "dynamo/<worker>/args.py",
            "rules": {},
        },
    }


def build_release(
    version: str, wheel_dir: Path | None = None, out_root: Path | None = None
) -> Path:
    """Download ``ai-dynamo==version`` (the wheel only) and write its profile."""
    import tempfile

    from servelint import profiles
    from servelint.engines._build.wheel import download

    folder = wheel_dir or Path(tempfile.mkdtemp(prefix="servelint-dynamo-"))
    wheel = download("ai_dynamo", version, folder)  # the wheel's own spelling of ai-dynamo
    return profiles.write(build_profile(wheel, version), "dynamo", version, out_root)
