"""The ``serve_checks`` profile section: the checks ``vllm serve`` makes on the parsed
namespace before it builds anything (``ServeSubcommand.validate`` ->
``validate_parsed_serve_args``, and the plain functions it hands the namespace to).

The function is read as a validator of the namespace: its parameter becomes ``self``, a
helper function it calls (``validate_grpc_port_arg(args)``, one imported from another
module) is read in place with its parameters bound to the call's arguments, and the
statement walker of the ``conditions`` section (condition_walk.py) records each ``if COND:
raise`` whose test reads only option dests. ``getattr(args, "x", d)`` of a dest is that
dest (the namespace holds every dest); ``args.subparser`` (the CLI's sub-command dest) is
replaced by its value only where it is the same for every launcher that reaches the
function (``vllm serve``: the sub-command's name; the api_server module: no such
attribute), and is undecided otherwise. The defaults of the dests the checks read are
recorded where the source states them (``defaults``); the others stay unknown.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from servelint.builders.vllm.condition_walk import walk_method
from servelint.builders.vllm.engine_build import field_defaults
from servelint.builders.vllm.facts_common import find_def, module_file, module_literals, parse
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm.conditions import Values, outcome, reads

ENTRY = "validate_parsed_serve_args"
_MAX_INLINE = 2
_UNKNOWN = ast.Name("?", ast.Load())  # what the check-time walker never decides
_ABSENT = ast.Name("undecided", ast.Load())  # a name the check-time walker leaves unknown


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    parser = profile.get("parser") or {}
    origin = (parser.get("origin") or "").split(":")[0]
    called = _validate_call(src, origin)
    found = find_def(src, ENTRY, "vllm/entrypoints")
    if called is None or found is None or not isinstance(found[1], ast.FunctionDef):
        return {}
    path, func = found
    actions = {a["dest"]: a for a in parser.get("actions", []) if a.get("dest")}
    inliner = _Inliner(src, actions, _subcommand(src, origin))
    method = inliner.method(path, func, [ast.Name("self", ast.Load())], {}, 0)
    if method is None:
        return {}
    walk = walk_method(path, inliner.methods, {}, method)  # module literals: bound per file
    # in the order the engine meets them (the walk's), each once
    checks = list({(c["source"], c["test"]): c for c in walk.out if reads(c["test"])}.values())
    if not checks:
        return {}
    read = sorted({f for c in checks for f in reads(c["test"])})
    return {
        "serve_checks": {
            "called": called,
            "checks": checks,
            "defaults": _defaults(src, actions, read),
        }
    }


def _validate_call(src: WheelSource, origin: str) -> str | None:
    """``path:line`` of the ``validate_parsed_serve_args(args)`` call in the sub-command's
    ``validate`` method (the file the serve parser is built in)."""
    tree = parse(src, origin) if origin else None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == "validate":
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and _callee(sub) == ENTRY:
                    return f"{origin}:{sub.lineno}"
    return None


def _subcommand(src: WheelSource, origin: str) -> tuple[str, str] | None:
    """(dest, name): the CLI's ``add_subparsers(dest=…)`` and the serve sub-command's
    ``name = "…"``, or None when the wheel does not state them."""
    main = module_file(src, "vllm.entrypoints.cli.main")
    tree, own = (parse(src, main) if main else None), (parse(src, origin) if origin else None)
    if tree is None or own is None:
        return None
    dest = next(
        (
            kw.value.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and _callee(node) == "add_subparsers"
            for kw in node.keywords
            if kw.arg == "dest" and isinstance(kw.value, ast.Constant)
        ),
        None,
    )
    for cls in (n for n in ast.walk(own) if isinstance(n, ast.ClassDef)):
        has_validate = any(
            isinstance(m, ast.FunctionDef) and m.name == "validate" for m in cls.body
        )
        for st in cls.body if has_validate else ():
            if (
                isinstance(st, ast.Assign)
                and [ast.unparse(t) for t in st.targets] == ["name"]
                and isinstance(st.value, ast.Constant)
                and isinstance(dest, str)
            ):
                return dest, str(st.value.value)
    return None


def _callee(call: ast.Call) -> str:
    func = call.func
    return (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else ""
    )


class _Inliner:
    """Module functions turned into methods of the namespace (``self``), each with the file
    it is read from (``path``, for the checks' sources)."""

    def __init__(self, src: WheelSource, actions: dict[str, Any], sub: tuple[str, str] | None):
        self.src, self.actions, self.sub = src, actions, sub
        self.methods: dict[str, ast.FunctionDef] = {}

    def method(
        self,
        path: str,
        func: ast.FunctionDef,
        args: list[ast.expr],
        keywords: dict[str, ast.expr],
        depth: int,
    ) -> ast.FunctionDef | None:
        tree = parse(self.src, path)
        literals = module_literals(tree) if tree is not None else {}
        bound = _bind(func, args, keywords, literals)
        if bound is None:
            return None
        bound = {**literals, **bound}
        body = [_Rewrite(self, bound).visit(copy.deepcopy(st)) for st in func.body]
        name = func.name if func.name not in self.methods else f"{func.name}_{len(self.methods)}"
        method = ast.FunctionDef(
            name=name,
            args=ast.arguments([], [ast.arg("self")], None, [], [], None, []),
            body=self._inline_calls(path, body, depth),
            decorator_list=[],
            returns=None,
            type_params=[],
        )
        ast.copy_location(method, func)
        method.path = path  # type: ignore[attr-defined]  # read by condition_walk._call
        self.methods[method.name] = method
        return method

    def _inline_calls(self, path: str, body: list[ast.stmt], depth: int) -> list[ast.stmt]:
        """Call statements of a wheel function become calls of its inlined method (also
        inside ``if`` blocks); an ``if`` whose test was folded to a constant is replaced by
        the branch that runs."""
        out: list[ast.stmt] = []
        for st in body:
            if isinstance(st, ast.If) and isinstance(st.test, ast.Constant):
                out += self._inline_calls(path, st.body if st.test.value else st.orelse, depth)
            elif isinstance(st, ast.If):
                st.body = self._inline_calls(path, st.body, depth)
                st.orelse = self._inline_calls(path, st.orelse, depth)
                out.append(st)
            else:
                out.append(self._inline_call(path, st, depth))
        return out

    def _inline_call(self, path: str, st: ast.stmt, depth: int) -> ast.stmt:
        if (
            not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call))
            or depth >= _MAX_INLINE
        ):
            return st
        call = st.value
        if not isinstance(call.func, ast.Name) or any(k.arg is None for k in call.keywords):
            return st
        found = self._function(path, call.func.id)
        if found is None:
            return st
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        inlined = self.method(found[0], found[1], list(call.args), keywords, depth + 1)
        if inlined is None:
            return st
        self_call = ast.Call(
            ast.Attribute(ast.Name("self", ast.Load()), inlined.name, ast.Load()), [], []
        )
        return ast.copy_location(ast.Expr(self_call), st)

    def _function(self, path: str, name: str) -> tuple[str, ast.FunctionDef] | None:
        """The wheel function ``name`` means in file ``path``: defined there, or imported
        from a vLLM module (at module level or inside a function)."""
        tree = parse(self.src, path)
        if tree is None:
            return None
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return path, node
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vllm"):
                if any((a.asname or a.name) == name and a.name == name for a in node.names):
                    other = module_file(self.src, node.module or "")
                    found = find_def(self.src, name, other or "")
                    if found and found[0] == other and isinstance(found[1], ast.FunctionDef):
                        return found  # type: ignore[return-value]
        return None


def _bind(
    func: ast.FunctionDef,
    args: list[ast.expr],
    keywords: dict[str, ast.expr],
    literals: dict[str, ast.expr],
) -> dict[str, ast.expr] | None:
    """Parameter -> argument expression (a default naming a module literal of the callee's
    file: that literal), or None when the call does not bind every parameter plainly
    (``*args``, unknown keywords, a missing argument without default)."""
    spec = func.args
    if spec.vararg or spec.kwarg or spec.posonlyargs or spec.kwonlyargs:
        return None
    params = [a.arg for a in spec.args]
    if len(args) > len(params) or set(keywords) - set(params):
        return None
    defaults = dict(zip(params[len(params) - len(spec.defaults) :], spec.defaults, strict=True))
    out: dict[str, ast.expr] = {}
    for i, name in enumerate(params):
        value = args[i] if i < len(args) else keywords.get(name, defaults.get(name))
        if i >= len(args) and name not in keywords and isinstance(value, ast.Name):
            value = literals.get(value.id, value)
        if value is None:
            return None
        out[name] = value
    return out


class _Rewrite(ast.NodeTransformer):
    """One inlined function's body over the namespace: parameters replaced by the call's
    arguments, ``getattr``/``hasattr`` of a dest by the dest, the sub-command dest folded."""

    def __init__(self, inliner: _Inliner, bound: dict[str, ast.expr]):
        self.inliner, self.bound = inliner, bound

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.bound:
            return copy.deepcopy(self.bound[node.id])
        return node

    def visit_If(self, node: ast.If) -> ast.AST:
        self.generic_visit(node)
        node.test = self._fold(node.test)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        name = _callee(node) if isinstance(node.func, ast.Name) else ""
        if name in ("all", "any"):
            return _as_list_test(node)
        if name not in ("getattr", "hasattr") or len(node.args) < 2 or node.keywords:
            return node
        target, key = node.args[0], node.args[1]
        if not (
            isinstance(target, ast.Name)
            and target.id == "self"
            and isinstance(key, ast.Constant)
            and isinstance(key.value, str)
        ):
            return node
        if self.inliner.sub and key.value == self.inliner.sub[0]:
            return node  # folded with its test (_fold)
        act = self.inliner.actions.get(key.value)
        if act is not None and act.get("default") != "==SUPPRESS==":  # always in the namespace
            if name == "hasattr":
                return ast.Constant(True)
            return ast.Attribute(ast.Name("self", ast.Load()), key.value, ast.Load())
        if act is None and name == "getattr" and len(node.args) == 3:
            return node.args[2]  # not an option of this parser: the default
        return _UNKNOWN

    def _fold(self, test: ast.expr) -> ast.expr:
        """Parts of ``test`` that read the sub-command dest: their value when every launcher
        gives the same, else undecided."""
        sub = self.inliner.sub
        if sub is None or not _reads_sub(test, sub[0]):
            return test
        found = {_on_variant(test, sub[0], v) for v in (sub[1], None)}
        if len(found) == 1 and None not in found:
            return ast.Constant(found.pop() == "raises")
        if isinstance(test, ast.BoolOp):
            test.values = [self._fold(v) for v in test.values]
            return test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test.operand = self._fold(test.operand)
            return test
        return copy.deepcopy(_UNKNOWN)


def _as_list_test(call: ast.Call) -> ast.expr:
    """``all(E for v in IT)`` as ``not [v for v in list(IT) if not E]`` and ``any(…)`` as
    ``bool([v for v in list(IT) if E])``: the list form the check-time walker evaluates
    (the items' tests are pure, so evaluating them all changes no outcome it decides)."""
    gen = call.args[0] if len(call.args) == 1 and not call.keywords else None
    if not isinstance(gen, ast.GeneratorExp) or len(gen.generators) != 1:
        return call
    loop = gen.generators[0]
    if loop.ifs or loop.is_async:
        return call
    keep = gen.elt if _callee(call) == "any" else ast.UnaryOp(ast.Not(), gen.elt)
    items = ast.Call(ast.Name("list", ast.Load()), [loop.iter], [])
    comp = ast.ListComp(loop.target, [ast.comprehension(loop.target, items, [keep], 0)])
    if _callee(call) == "any":
        return ast.Call(ast.Name("bool", ast.Load()), [comp], [])
    return ast.UnaryOp(ast.Not(), comp)


def _reads_sub(node: ast.AST, dest: str) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == dest and ast.unparse(sub.value) == "self":
            return True
        if (
            isinstance(sub, ast.Call)
            and _callee(sub) in ("getattr", "hasattr")
            and len(sub.args) >= 2
            and isinstance(sub.args[1], ast.Constant)
            and sub.args[1].value == dest
        ):
            return True
    return False


class _Variant(ast.NodeTransformer):
    """The sub-command dest as one launcher gives it (``None``: the namespace lacks it)."""

    def __init__(self, dest: str, value: str | None):
        self.dest, self.value = dest, value

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if _callee(node) in ("getattr", "hasattr") and len(node.args) >= 2:
            key = node.args[1]
            if isinstance(key, ast.Constant) and key.value == self.dest:
                if _callee(node) == "hasattr":
                    return ast.Constant(self.value is not None)
                if self.value is not None:
                    return ast.Constant(self.value)
                return node.args[2] if len(node.args) == 3 else copy.deepcopy(_ABSENT)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if node.attr == self.dest and ast.unparse(node.value) == "self":
            return ast.Constant(self.value) if self.value is not None else copy.deepcopy(_ABSENT)
        return node


def _on_variant(test: ast.expr, dest: str, value: str | None) -> str | None:
    """The test's outcome when the namespace's sub-command dest is ``value`` (None: absent),
    or None when it reads anything else the launch decides."""
    text = ast.unparse(_Variant(dest, value).visit(copy.deepcopy(test)))
    if reads(text):
        return None
    return outcome(text, Values("namespace", {}))


def _defaults(src: WheelSource, actions: dict[str, Any], dests: list[str]) -> dict[str, Any]:
    """dest -> {"value": literal} where the source states the default the parser stores: a
    flag's ``False``/``True``, or the field default of the dataclass the option comes from
    when the parser's default says the same."""
    out: dict[str, Any] = {}
    for dest in dests:
        act = actions.get(dest)
        if act is None:
            continue
        text = act.get("default")
        if act.get("kind") in ("store_true", "store_false") and text in ("True", "False"):
            out[dest] = {"value": text == "True"}
            continue
        owner = act.get("field_of")
        found = find_def(src, owner, act.get("field_source", "").split(":")[0]) if owner else None
        if found is None or not isinstance(found[1], ast.ClassDef):
            continue
        stated = field_defaults(src, found[1], found[0]).get(dest)
        if stated is None or "value" not in stated:
            continue
        value = stated["value"]
        if (text is None and value is None) or (value is not None and text == str(value)):
            out[dest] = {"value": value}
    return out
