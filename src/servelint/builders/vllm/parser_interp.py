"""A small abstract interpreter for vLLM's argument-registration code.

It walks ``subparser_init`` -> ``make_arg_parser`` -> ``FrontendArgs.add_cli_args`` ->
``AsyncEngineArgs.add_cli_args`` statement by statement, keeping the kwargs tables of
``get_kwargs(SomeConfig)`` as plain dicts, applying the mutations the code makes
(``kw["x"]["type"] = ...``, ``del``, ``.remove``, ``.update``), and recording every
``add_argument`` call with its source line.  ``sys.argv`` is taken as ``["vllm", "serve"]``
(how ``vllm serve`` builds its parser when not asked for help).
"""

from __future__ import annotations

import ast
import itertools
from typing import Any

from servelint.builders.astutil import Definition, ModuleIndex, absolute_module
from servelint.builders.expressions import UNKNOWN, Expressions, Opaque
from servelint.builders.vllm.parser_objects import (
    ClassRef,
    FuncRef,
    GroupObj,
    ParserObj,
    argparse_attr,
    value_method,
)
from servelint.builders.vllm.parser_types import (
    KwargsFeatures,
    TypeFn,
    TypeResolver,
    class_fields,
    compute_kwargs,
    ordered,
)

SYS_ARGV = ["vllm", "serve"]
MAX_DEPTH = 12


class _Return(Exception):
    def __init__(self, value: Any):
        self.value = value


class Interpreter(Expressions):
    STRICT = False  # kwargs tables keep the values it cannot know

    def __init__(self, index: ModuleIndex):
        self.index = index
        self.types = TypeResolver(index)
        self.feats = KwargsFeatures.detect(index)
        self.notes: list[str] = []
        self._kwargs_cache: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}

    # ---- get_kwargs ------------------------------------------------------------------------
    def get_kwargs(self, cls: Definition) -> dict[str, dict[str, Any]]:
        key = (cls.module, cls.name)
        if key not in self._kwargs_cache:
            table = {}
            for f in class_fields(self.index, cls):
                table[f.name] = compute_kwargs(self.types, self.feats, f)
            self._kwargs_cache[key] = table
        # callers mutate: hand out a copy (get_kwargs deep-copies too)
        return {
            k: dict(v, **({"choices": list(v["choices"])} if v.get("choices") else {}))
            for k, v in self._kwargs_cache[key].items()
        }

    # ---- calls ---------------------------------------------------------------------------
    def call_function(
        self, fn: FuncRef, args: list[Any], kwargs: dict[str, Any], depth: int
    ) -> Any:
        if depth > MAX_DEPTH:
            return UNKNOWN
        node = fn.d.node
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        env: dict[str, Any] = {}
        params = [a.arg for a in node.args.posonlyargs + node.args.args]
        defaults = node.args.defaults
        is_static = any(ast.unparse(d) == "staticmethod" for d in node.decorator_list)
        is_cls = any(ast.unparse(d) == "classmethod" for d in node.decorator_list)
        if (is_cls or (params and params[0] in {"self", "cls"} and not is_static)) and params:
            env[params[0]] = fn.bound if fn.bound is not None else UNKNOWN
            params = params[1:]
        for name, default in zip(params[len(params) - len(defaults) :], defaults, strict=False):
            env[name] = self.eval(default, fn.d.module, {}, depth)
        for a in node.args.kwonlyargs:
            env[a.arg] = UNKNOWN
        for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=False):
            if d is not None:
                env[a.arg] = self.eval(d, fn.d.module, {}, depth)
        for name, value in zip(params, args, strict=False):
            env[name] = value
        env.update(kwargs)
        env["__class__"] = fn.bound
        env["__owner__"] = fn.owner
        try:
            self.exec_body(node.body, fn.d.module, env, depth + 1)
        except _Return as ret:
            return ret.value
        return None

    # ---- statements ------------------------------------------------------------------------
    def exec_body(self, body: list[ast.stmt], module: str, env: dict[str, Any], depth: int):
        for stmt in body:
            try:
                self.exec_stmt(stmt, module, env, depth)
            except _Return:
                raise
            except Exception as exc:  # one odd statement must not lose the whole parser
                self.notes.append(f"{module}:{stmt.lineno}: not interpreted ({exc!r})"[:200])

    def exec_stmt(self, stmt: ast.stmt, module: str, env: dict[str, Any], depth: int):
        if isinstance(stmt, ast.Return):
            raise _Return(self.eval(stmt.value, module, env, depth) if stmt.value else None)
        if isinstance(stmt, ast.Expr):
            self.eval(stmt.value, module, env, depth)
        elif isinstance(stmt, ast.Assign):
            value = self.eval(stmt.value, module, env, depth)
            for target in stmt.targets:
                self.assign(target, value, module, env, depth)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value, module, env, depth), module, env, depth)
        elif isinstance(stmt, ast.AugAssign):
            cur = self.eval(stmt.target, module, env, depth)
            inc = self.eval(stmt.value, module, env, depth)
            if isinstance(stmt.op, ast.Add) and isinstance(cur, str) and isinstance(inc, str):
                self.assign(stmt.target, cur + inc, module, env, depth)
            elif isinstance(stmt.op, ast.Add) and isinstance(cur, list) and isinstance(inc, list):
                cur.extend(inc)
        elif isinstance(stmt, ast.If):
            test = self.eval(stmt.test, module, env, depth)
            if isinstance(test, Opaque):
                self.notes.append(
                    f"{module}:{stmt.lineno}: condition not decidable, "
                    f"taking the if-branch: {ast.unparse(stmt.test)[:80]}"
                )
                self.exec_body(stmt.body, module, env, depth)
            elif test:
                self.exec_body(stmt.body, module, env, depth)
            else:
                self.exec_body(stmt.orelse, module, env, depth)
        elif isinstance(stmt, ast.For):
            it = self.eval(stmt.iter, module, env, depth)
            if isinstance(it, (list, tuple)):
                for item in list(it):
                    self.assign(stmt.target, item, module, env, depth)
                    self.exec_body(stmt.body, module, env, depth)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            self.exec_body(stmt.body, module, env, depth)
        elif isinstance(stmt, ast.Try):
            self.exec_body(stmt.body, module, env, depth)
            self.exec_body(stmt.finalbody, module, env, depth)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Subscript):
                    container = self.eval(target.value, module, env, depth)
                    key = self.eval(target.slice, module, env, depth)
                    if isinstance(container, dict) and not isinstance(key, Opaque):
                        container.pop(key, None)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                if isinstance(stmt, ast.ImportFrom):
                    base = absolute_module(
                        module, stmt.module, stmt.level, self.index.is_package(module)
                    )
                    d = self.index.resolve(base, alias.name)
                    env[local] = self.wrap(d) if d else UNKNOWN
        # everything else (class defs, asserts, raise, ...) is ignored

    def assign(self, target: ast.AST, value: Any, module: str, env: dict[str, Any], depth: int):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (list, tuple)) and len(value) == len(target.elts):
                for t, v in zip(target.elts, value, strict=True):
                    self.assign(t, v, module, env, depth)
            else:
                for t in target.elts:
                    self.assign(t, UNKNOWN, module, env, depth)
        elif isinstance(target, ast.Subscript):
            container = self.eval(target.value, module, env, depth)
            key = self.eval(target.slice, module, env, depth)
            if isinstance(container, dict) and not isinstance(key, Opaque):
                container[key] = value
            elif isinstance(container, list) and isinstance(key, int):
                container[key] = value

    # ---- expressions -----------------------------------------------------------------------
    def wrap(self, d: Definition | None) -> Any:
        if d is None:
            return UNKNOWN
        if d.kind == "class":
            return ClassRef(d)
        if d.kind == "function":
            return FuncRef(d)
        if d.kind == "value":
            return self.eval(d.node, d.module, {}, MAX_DEPTH - 2)
        return d  # module

    def name_value(self, name: str, module: str, env: dict[str, Any]) -> Any:
        if name in env:
            return env[name]
        builtin = {
            "int": TypeFn("int"),
            "float": TypeFn("float"),
            "str": TypeFn("str"),
            "True": True,
            "False": False,
            "None": None,
            "list": list,
            "dict": dict,
            "bool": TypeFn("bool"),
        }
        entry = self.index._table(module).get(name)
        if entry is None and name in builtin:
            return builtin[name]
        if entry and entry[0] == "import" and not self.index.has_module(entry[1][0]):
            mod, attr = entry[1]
            if mod == "argparse":
                return argparse_attr(attr)
            if mod == "json" and attr == "loads":
                return TypeFn("json.loads")
            if mod == "sys" and attr == "argv":
                return list(SYS_ARGV)
            return Opaque(f"{mod}.{attr}")
        if entry and entry[0] == "module" and not self.index.has_module(entry[1]):
            return Opaque(f"module:{entry[1]}")
        d = self.index.resolve(module, name)
        return self.wrap(d)

    def attribute_value(self, node: ast.Attribute, module: str, env: dict[str, Any], depth: int):
        if (
            isinstance(node.value, ast.Name)
            and node.value.id == "argparse"
            and node.value.id not in env
        ):
            return argparse_attr(node.attr)
        if isinstance(node.value, ast.Name) and node.value.id == "json" and node.attr == "loads":
            return TypeFn("json.loads")
        if isinstance(node.value, ast.Name) and node.value.id == "sys" and node.attr == "argv":
            return list(SYS_ARGV)
        base = self.eval(node.value, module, env, depth)
        if isinstance(base, ClassRef):
            if node.attr == "__doc__":
                return ast.get_docstring(base.d.node) or ""  # type: ignore[arg-type]
            if node.attr == "__name__":
                return base.d.name
            found = self.method_with_owner(base.d, node.attr)
            if found is not None:
                return FuncRef(found[0], base, ClassRef(found[1]))
            d = self.index.resolve_expr(module, node)
            if d is not None and d.kind == "value":
                return self.eval(d.node, d.module, {}, depth + 1)
            keys = self.registry_keys(base.d, node.attr)
            if keys is not None:
                return {k: UNKNOWN for k in keys}
            return Opaque(ast.unparse(node))
        if isinstance(base, Definition) and base.kind == "module":
            return self.wrap(self.index.resolve(base.module, node.attr))
        if isinstance(base, (ParserObj, GroupObj, dict, list, str)):
            return ("method", base, node.attr)
        return Opaque(ast.unparse(node))

    def call_value(self, node: ast.Call, module: str, env: dict[str, Any], depth: int) -> Any:
        func = node.func
        # super().method(...)
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super"
        ):
            cls = env.get("__class__")
            owner = env.get("__owner__")
            if isinstance(cls, ClassRef):
                start = owner if isinstance(owner, ClassRef) else cls
                for base in self.index.bases(start.d):
                    found = self.method_with_owner(base, func.attr)
                    if found is not None:
                        args, kwargs = self.call_args(node, module, env, depth)
                        ref = FuncRef(found[0], cls, ClassRef(found[1]))
                        return self.call_function(ref, args, kwargs, depth + 1)
            return UNKNOWN
        if isinstance(func, ast.Name) and func.id == "get_args" and node.args:
            hints = self.types.hints(module, node.args[0])
            lits = [v for h in ordered(hints) if h.kind == "literal" for v in h.args]
            return tuple(lits) if lits else UNKNOWN
        callee = self.eval(func, module, env, depth)
        args, kwargs = self.call_args(node, module, env, depth)
        if (
            isinstance(callee, Opaque)
            and callee.text == "itertools.permutations"
            and args
            and isinstance(args[0], (list, tuple))
        ):
            r = kwargs.get("r", args[1] if len(args) > 1 else None)
            return [tuple(p) for p in itertools.permutations(args[0], r)]
        if isinstance(callee, tuple) and len(callee) == 3 and callee[0] == "method":
            return self.call_method(callee[1], callee[2], args, kwargs, node, module)
        if isinstance(callee, FuncRef):
            name = callee.d.name
            if name == "get_kwargs" and args and isinstance(args[0], ClassRef):
                return self.get_kwargs(args[0].d)
            if name in {"optional_type", "parse_type"} and args:
                inner = args[0].repr if isinstance(args[0], TypeFn) else "?"
                wrap = "optional" if name == "optional_type" else "parse"
                return TypeFn(
                    f"{wrap}({inner})", args[0].dataclass if isinstance(args[0], TypeFn) else None
                )
            if (
                name in {"human_readable_int", "human_readable_int_or_auto", "union_dict_and_str"}
                or callee.d.module.startswith("vllm.utils")
                and not args
            ):
                return TypeFn(name)
            if name == "get_field":
                return UNKNOWN
            if self._is_type_function(callee.d) and not args:
                return TypeFn(name)
            if depth < MAX_DEPTH and self._worth_calling(callee.d):
                result = self.call_function(callee, args, kwargs, depth + 1)
                return result
            return Opaque(name + "()")
        if isinstance(callee, ClassRef):
            if callee.d.name == "FlexibleArgumentParser":
                p = ParserObj()
                if kwargs.get("allow_abbrev") is False:
                    p.allow_abbrev = False
                return p
            return Opaque(f"{callee.d.name}()")
        if callee is list and args:
            return list(args[0]) if isinstance(args[0], (list, tuple, dict)) else UNKNOWN
        return Opaque(ast.unparse(node)[:60])

    def function_value(self, node: ast.Lambda) -> Any:
        return TypeFn("lambda", text=ast.unparse(node))

    def registry_keys(self, cls: Definition, attr: str) -> list[str] | None:
        """Names registered into a class-level dict by ``@Cls.register_module("x")``.

        Only modules the class's package ``__init__`` imports are scanned (what is
        registered once the package is imported)."""
        body = cls.node.body  # type: ignore[attr-defined]
        is_registry = any(
            isinstance(st, ast.AnnAssign)
            and isinstance(st.target, ast.Name)
            and st.target.id == attr
            and isinstance(st.value, ast.Dict)
            for st in body
        )
        if not is_registry or self.method_with_owner(cls, "register_module") is None:
            return None
        package = cls.module.rsplit(".", 1)[0]
        init = self.index.tree(package)
        if init is None:
            return None
        modules = []
        for st in init.body:
            if isinstance(st, ast.ImportFrom):
                modules.append(absolute_module(package, st.module, st.level, True))
        keys: list[str] = []
        for mod in modules:
            tree = self.index.tree(mod)
            if tree is None:
                continue
            for n in ast.walk(tree):
                if not (
                    isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Attribute)
                    and n.func.attr == "register_module"
                    and ast.unparse(n.func.value) == cls.name
                ):
                    continue
                arg = (
                    n.args[0]
                    if n.args
                    else next((k.value for k in n.keywords if k.arg == "name"), None)
                )
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    keys.append(arg.value)
                elif isinstance(arg, (ast.List, ast.Tuple)):
                    keys.extend(e.value for e in arg.elts if isinstance(e, ast.Constant))
        return list(dict.fromkeys(keys))

    def method_with_owner(self, cls: Definition, name: str):
        todo = [cls]
        for _ in range(20):
            if not todo:
                break
            cur = todo.pop(0)
            for stmt in cur.node.body:  # type: ignore[attr-defined]
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                    return Definition(cur.module, name, stmt, "function"), cur
            todo.extend(self.index.bases(cur))
        return None

    def _is_type_function(self, d: Definition) -> bool:
        node = d.node
        return (
            isinstance(node, ast.FunctionDef)
            and len(node.args.args) == 1
            and node.args.args[0].arg in {"val", "value", "s", "arg", "x", "text"}
        )

    def _worth_calling(self, d: Definition) -> bool:
        """Only functions that register arguments or customise kwargs are interpreted."""
        text = ast.unparse(d.node)
        return "add_argument" in text or "kwargs" in text or "add_cli_args" in text

    def call_args(self, node: ast.Call, module: str, env: dict[str, Any], depth: int):
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, module, env, depth)
                if isinstance(v, (list, tuple)):
                    args.extend(v)
                else:
                    args.append(UNKNOWN)
            else:
                args.append(self.eval(a, module, env, depth))
        kwargs: dict[str, Any] = {}
        for k in node.keywords:
            v = self.eval(k.value, module, env, depth)
            if k.arg is None:
                if isinstance(v, dict):
                    kwargs.update(v)
                else:
                    kwargs["__opaque_kwargs__"] = True
            else:
                kwargs[k.arg] = v
        return args, kwargs

    def call_method(
        self,
        obj: Any,
        name: str,
        args: list[Any],
        kwargs: dict[str, Any],
        node: ast.Call,
        module: str,
    ) -> Any:
        if isinstance(obj, (ParserObj, GroupObj)):
            parser = obj if isinstance(obj, ParserObj) else obj.parser
            if name == "add_argument_group":
                title = kwargs.get("title", args[0] if args else None)
                return GroupObj(parser, title if isinstance(title, str) else "?")
            if name == "add_argument":
                group = obj.title if isinstance(obj, GroupObj) else None
                self.record(parser, group, args, kwargs, node, module)
                return None
            if name == "add_mutually_exclusive_group":
                return GroupObj(parser, "mutually_exclusive")
            if name == "add_parser":
                p = ParserObj()
                if kwargs.get("allow_abbrev") is False:
                    p.allow_abbrev = False
                return p
            if name == "set_defaults":
                return None
            return UNKNOWN
        return value_method(obj, name, args, kwargs, f"{module}:{node.lineno}", self.notes)

    # ---- add_argument ------------------------------------------------------------------------
    def record(
        self,
        parser: ParserObj,
        group: str | None,
        args: list[Any],
        kwargs: dict[str, Any],
        node: ast.Call,
        module: str,
    ) -> None:
        strings = [a for a in args if isinstance(a, str)]
        if len(strings) != len(args):
            self.notes.append(
                f"{module}:{node.lineno}: add_argument with unknown names {ast.unparse(node)[:80]}"
            )
        path = self.index.file_of(module) or module
        parser.actions.append(
            {
                "strings": strings,
                "kwargs": kwargs,
                "group": group,
                "source": f"{path}:{node.lineno}",
            }
        )
