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

from servelint.builders.astutil import ModuleIndex, collect_imports
from servelint.builders.dynamo.build_options import calls, group_instances, keyword, options_of
from servelint.builders.static_eval import Evaluator
from servelint.builders.wheel import WheelSource

BUILDER_VERSION = 1
_ENGINE_PARSERS = {
    "AsyncEngineArgs": "vllm-engine-args",
    "EngineArgs": "vllm-engine-args",
    "ServerArgs": "sglang-server-args",
}


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
                for call in calls(node.body):
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
    for call in calls(fn.body):  # type: ignore[attr-defined]
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "ArgumentParser" and parser_line is None and keyword(call, "add_help") is None:
            parser_line = call.lineno
            got = keyword(call, "allow_abbrev")
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
    for gmod, cls in group_instances(fn, src, mod):
        method = next(
            (m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "add_arguments"),
            None,
        )
        if method is not None:
            options_of(method, src, gmod, cls.name, 1, options, seen)
    options_of(fn, src, mod, "parse_args", 1, options, seen)
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
    from servelint.builders.wheel import download

    folder = wheel_dir or Path(tempfile.mkdtemp(prefix="servelint-dynamo-"))
    wheel = download("ai_dynamo", version, folder)  # the wheel's own spelling of ai-dynamo
    return profiles.write(build_profile(wheel, version), "dynamo", version, out_root)
