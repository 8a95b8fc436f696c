"""The ``trtllm-serve`` click commands, read from ``tensorrt_llm/commands/serve.py`` with ``ast``.

For every ``@click.command`` function: its arguments and options as click declares them
(option strings exactly as written: TensorRT-LLM spells most with underscores and click
matches them exactly), value type, choices and their case sensitivity, default, flags,
``multiple``, aliases of ``ChoiceWithAlias``-style choice types, the stability tag of the help
text (``deprecated``/``prototype``/``beta``), and whether ``serve`` reads the parsed value at
all. The group object (``main = DefaultGroup(commands={...})``) gives the subcommands and the
command a non-subcommand first word falls back to.
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.static_eval import UNKNOWN, Evaluator, literal

SERVE_MODULE = "tensorrt_llm.commands.serve"
SERVE_FILE = "tensorrt_llm/commands/serve.py"
_STABILITY = {"deprecated", "prototype", "beta", "stable"}
_SCALAR_TYPES = {"int": "int", "str": "str", "float": "float", "bool": "bool"}


def _is_click(node: ast.expr, attr: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == attr
        and isinstance(node.value, ast.Name)
        and node.value.id == "click"
    )


def _const(node: ast.expr | None) -> Any:
    return literal(node, UNKNOWN)


class _Reader:
    def __init__(self, src: Any):
        self.src = src
        self.ev = Evaluator(src)
        self.tree = src.parse(SERVE_FILE)
        self.choice_classes = self._choice_subclasses()

    def _choice_subclasses(self) -> dict[str, bool]:
        """Classes of serve.py deriving from click.Choice -> whether they take aliases."""
        out: dict[str, bool] = {}
        for st in self.tree.body:
            if isinstance(st, ast.ClassDef) and any(_is_click(b, "Choice") for b in st.bases):
                init = next(
                    (f for f in st.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"),
                    None,
                )
                out[st.name] = bool(init and any(a.arg == "aliases" for a in init.args.args))
        return out

    # ---- values ---------------------------------------------------------------------
    def values(self, node: ast.expr) -> list[str] | None:
        """A choice list: literals, ``X.keys()``, names followed through imports."""
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "keys"
            and not node.args
        ):
            base = self.ev.eval(node.func.value, SERVE_MODULE)
            return [str(k) for k in base] if isinstance(base, dict) else None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"list", "sorted", "tuple"}
            and len(node.args) == 1
        ):
            return self.values(node.args[0])
        value = self.ev.eval(node, SERVE_MODULE)
        if isinstance(value, dict):
            return [str(k) for k in value]
        if isinstance(value, list | tuple | set) and all(isinstance(v, str) for v in value):
            return [str(v) for v in value]
        return None

    def type_of(self, node: ast.expr | None, entry: dict[str, Any]) -> None:
        if node is None:
            return
        if isinstance(node, ast.Name) and node.id in _SCALAR_TYPES:
            entry["type"] = _SCALAR_TYPES[node.id]
            return
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else ""
            if _is_click(func, "Choice") or name in self.choice_classes:
                entry["type"] = "choice"
                choices = self.values(node.args[0]) if node.args else None
                if choices is None:
                    entry["type"] = "unknown"
                    entry["type_note"] = "choices not statically known"
                    return
                entry["choices"] = choices
                sens = next((k.value for k in node.keywords if k.arg == "case_sensitive"), None)
                entry["case_sensitive"] = _const(sens) is not False
                if self.choice_classes.get(name):
                    alias_node = (
                        node.args[1]
                        if len(node.args) > 1
                        else next((k.value for k in node.keywords if k.arg == "aliases"), None)
                    )
                    aliases = self.ev.eval(alias_node, SERVE_MODULE) if alias_node else {}
                    if isinstance(aliases, dict) and aliases:
                        entry["aliases"] = {str(k): str(v) for k, v in aliases.items()}
                return
            if _is_click(func, "Path"):
                entry["type"] = "path"
                if (
                    _const(next((k.value for k in node.keywords if k.arg == "exists"), None))
                    is True
                ):
                    entry["path_exists"] = True
                return
            if _is_click(func, "IntRange") or _is_click(func, "FloatRange"):
                entry["type"] = "int" if func.attr == "IntRange" else "float"  # type: ignore[union-attr]
                return
        entry["type"] = "unknown"
        entry["type_note"] = ast.unparse(node)[:80]

    def stability(self, node: ast.expr | None) -> str | None:
        """The tag of ``help=help_info_with_stability_tag(text, "deprecated")`` (any helper
        called with a stability tag as its second argument)."""
        if isinstance(node, ast.Call) and len(node.args) > 1:
            tag = _const(node.args[1])
            return tag if tag in _STABILITY else None
        return None

    # ---- parameters -----------------------------------------------------------------
    def option(self, call: ast.Call) -> dict[str, Any]:
        decls = [_const(a) for a in call.args]
        opts = [d for d in decls if isinstance(d, str) and d.startswith("-")]
        names = [d for d in decls if isinstance(d, str) and not d.startswith("-")]
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        entry: dict[str, Any] = {
            "dest": names[0] if names else _click_dest(opts),
            "option_strings": opts,
            "line": call.lineno,
        }
        secondary = [o.split("/", 1)[1] for o in opts if "/" in o]
        if secondary:  # "--flag/--no-flag"
            entry["option_strings"] = [o.split("/", 1)[0] for o in opts]
            entry["negative"] = secondary
        flag = _const(kw.get("is_flag")) is True or bool(secondary)
        if flag:
            entry["kind"] = "store_true"
            entry["type"] = "bool"
        else:
            self.type_of(kw.get("type"), entry)
            if "type" not in entry:
                default = _const(kw.get("default"))
                entry["type"] = {bool: "bool", int: "int", float: "float"}.get(type(default), "str")
        if "default" in kw:
            default = _const(kw["default"])
            if default is not UNKNOWN:
                entry["default"] = default
            else:
                entry["default_expr"] = ast.unparse(kw["default"])[:80]
        for key in ("multiple", "hidden", "required"):
            if _const(kw.get(key)) is True:
                entry[key] = True
        if "deprecated" in kw and _const(kw["deprecated"]) not in (False, None):
            entry["deprecated"] = True
        tag = self.stability(kw.get("help"))
        if tag:
            entry["stability"] = tag
            if tag == "deprecated":
                entry["deprecated"] = True
        nargs = _const(kw.get("nargs"))
        if isinstance(nargs, int) and nargs != 1:
            entry["nargs"] = nargs
        return entry

    def argument(self, call: ast.Call) -> dict[str, Any]:
        name = _const(call.args[0]) if call.args else None
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        entry: dict[str, Any] = {"dest": str(name), "positional": True, "line": call.lineno}
        self.type_of(kw.get("type"), entry)
        entry.setdefault("type", "str")
        nargs = _const(kw.get("nargs"))
        entry["nargs"] = nargs if isinstance(nargs, int) else 1
        entry["required"] = _const(kw.get("required")) is not False
        return entry

    def command(self, fn: ast.FunctionDef, dec: ast.Call) -> dict[str, Any]:
        name = _const(dec.args[0]) if dec.args else None
        params: list[dict[str, Any]] = []
        # decorators apply bottom-up; click lists parameters in source order
        for d in fn.decorator_list:
            if isinstance(d, ast.Call) and _is_click(d.func, "option"):
                params.append(self.option(d))
            elif isinstance(d, ast.Call) and _is_click(d.func, "argument"):
                params.append(self.argument(d))
        used = _names_read(fn)
        for p in params:
            p["forwarded"] = p["dest"] in used
        return {
            "name": name if isinstance(name, str) else fn.name.replace("_", "-"),
            "function": fn.name,
            "line": fn.lineno,
            "params": params,
        }

    def group(self, commands: dict[str, Any]) -> dict[str, Any]:
        """Subcommands of the module-level group object and its fallback command."""
        by_fn = {c["function"]: name for name, c in commands.items()}
        for st in self.tree.body:
            if not (isinstance(st, ast.Assign) and isinstance(st.value, ast.Call)):
                continue
            kw = {k.arg: k.value for k in st.value.keywords if k.arg}
            mapping = kw.get("commands")
            if not isinstance(mapping, ast.Dict):
                continue
            subs = {}
            for k, v in zip(mapping.keys, mapping.values, strict=True):
                key = _const(k)
                if isinstance(key, str) and isinstance(v, ast.Name) and v.id in by_fn:
                    subs[key] = by_fn[v.id]
            cls = st.value.func.id if isinstance(st.value.func, ast.Name) else ""
            return {
                "object": ast.unparse(st.targets[0]),
                "line": st.lineno,
                "subcommands": subs,
                "default": self._fallback(cls),
                "class": cls,
            }
        return {"subcommands": {}, "default": None}

    def _fallback(self, cls: str) -> str | None:
        """The command ``resolve_command`` falls back to for an unknown first word."""
        node = next(
            (st for st in self.tree.body if isinstance(st, ast.ClassDef) and st.name == cls), None
        )
        if node is None:
            return None
        for fn in node.body:
            if isinstance(fn, ast.FunctionDef) and fn.name == "resolve_command":
                for sub in ast.walk(fn):
                    if (
                        isinstance(sub, ast.Return)
                        and isinstance(sub.value, ast.Tuple)
                        and sub.value.elts
                        and isinstance(_const(sub.value.elts[0]), str)
                    ):
                        return _const(sub.value.elts[0])
        return None


def _click_dest(opts: list[str]) -> str:
    """click's name for an option without an explicit one: the first long option string."""
    longs = [o for o in opts if o.startswith("--")] or opts
    return longs[0].lstrip("-").replace("-", "_").lower() if longs else ""


def _names_read(fn: ast.FunctionDef) -> set[str]:
    return {
        n.id
        for stmt in fn.body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def _backend_test(test: ast.expr) -> list[str]:
    """Backends an ``if backend == "x" [or backend == "y"]`` test selects."""
    out: list[str] = []
    for node in ast.walk(test):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Name)
            and node.left.id == "backend"
            and all(isinstance(o, ast.Eq) for o in node.ops)
        ):
            out += [v for v in (_const(c) for c in node.comparators) if isinstance(v, str)]
    return out


def popped_llm_args(tree: ast.Module) -> dict[str, Any]:
    """Keys ``serve`` (and the module functions it calls) pops from the merged LLM arguments
    before the LLM class sees them (consumed by the server, or dropped for a backend): key ->
    lines and the backends (None: whatever the backend)."""
    out: dict[str, Any] = {}

    def visit(node: ast.AST, backends: list[str] | None) -> None:
        if isinstance(node, ast.If):
            sel = _backend_test(node.test)
            for child in node.body:
                visit(child, sel or backends)
            for child in node.orelse:
                visit(child, backends)
            return
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "pop"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "llm_args"
            and node.args
            and isinstance(_const(node.args[0]), str)
        ):
            entry = out.setdefault(_const(node.args[0]), {"lines": [], "backends": []})
            entry["lines"].append(node.lineno)
            if backends is None:
                entry["backends"] = None
            elif entry["backends"] is not None:
                entry["backends"] = sorted(set(entry["backends"]) | set(backends))
        for child in ast.iter_child_nodes(node):
            visit(child, backends)

    for fn in _reachable(tree, "serve"):
        visit(fn, None)
    return out


def _reachable(tree: ast.Module, start: str) -> list[ast.FunctionDef]:
    """Module functions ``start`` calls by name, transitively (and ``start`` itself)."""
    funcs = {st.name: st for st in tree.body if isinstance(st, ast.FunctionDef)}
    seen: list[str] = []
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen or name not in funcs:
            continue
        seen.append(name)
        todo += [
            n.func.id
            for n in ast.walk(funcs[name])
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        ]
    return [funcs[n] for n in seen]


def extract(src: Any) -> dict[str, Any]:
    reader = _Reader(src)
    commands: dict[str, Any] = {}
    for st in reader.tree.body:
        if not isinstance(st, ast.FunctionDef):
            continue
        dec = next(
            (
                d
                for d in st.decorator_list
                if isinstance(d, ast.Call) and _is_click(d.func, "command")
            ),
            None,
        )
        if dec is not None:
            cmd = reader.command(st, dec)
            commands[cmd["name"]] = cmd
    group = reader.group(commands)
    return {
        "file": SERVE_FILE,
        "commands": commands,
        "group": group,
        "popped_llm_args": popped_llm_args(reader.tree),
    }
