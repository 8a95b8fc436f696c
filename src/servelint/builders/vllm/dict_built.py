"""Config classes ``EngineArgs`` builds from a plain JSON option's dict (``from_dict``).

``--speculative-config '{…}'`` is parsed by ``json.loads``; ``create_speculative_config``
then calls ``SpeculativeConfig(**self.speculative_config)`` (0.10.x:
``SpeculativeConfig.from_dict(…)``, a ``return cls(**d)``). The class's validators see the
launch's keys, except what ``EngineArgs`` does to the dict first. Every statement of the
class that touches ``self.<dest>`` is read; the known shapes:

- ``self.d.update({"key": …})``, ``self.d["key"] = …`` (also ``self.d[k] = …`` for ``k``
  a loop variable over a literal table): those keys are the engine's, not the launch's;
- ``self.d = {k.replace(a, b): v for k, v in self.d.items()}``: keys renamed (``rekey``);
- ``self.d = {}`` (a fresh dict, filled by the statements above);
- ``(…, self.d) = f(…, self.d, …)``: a function may replace the dict (``replaced_by``, e.g.
  ``maybe_override_with_speculators``, which reads the model's config): the class's
  findings then hold only for models ``f`` leaves the dict alone for;
- reads (``self.d.get(…)``, ``isinstance(self.d, dict)``, ``key in self.d``).

Anything else makes the dict unknown: the class gets no ``from_dict`` entry.
"""

from __future__ import annotations

import ast
from typing import Any

from servelint.builders.astutil import dotted
from servelint.builders.vllm.facts_common import find_def
from servelint.builders.wheel import WheelSource

_READ_METHODS = frozenset({"get", "keys", "values", "items", "copy"})
_READ_CALLS = frozenset({"isinstance", "len", "bool"})


class _Unknown(Exception):
    """A statement changes the dict in a way not read here."""


def extract(src: WheelSource, classes: set[str]) -> dict[str, dict[str, Any]]:
    """cls -> {dest, source, keys, rekey, replaced_by} for each class of ``classes`` that
    ``EngineArgs`` builds from one dict option."""
    found = find_def(src, "EngineArgs", "engine/arg_utils")
    if found is None or not isinstance(found[1], ast.ClassDef):
        return {}
    path, node = found
    out: dict[str, dict[str, Any]] = {}
    for call, dest in _dict_calls(src, node, classes):
        cls = _class_of(call)
        if cls in out:
            out[cls] = {}  # built twice: not followed
            continue
        try:
            entry = _dict_uses(node, dest, path)
        except _Unknown:
            out[cls] = {}
            continue
        out[cls] = {"dest": dest, "source": f"{path}:{call.lineno}", **entry}
    return {cls: entry for cls, entry in sorted(out.items()) if entry}


def _class_of(call: ast.Call) -> str:
    name = dotted(call.func).split(".")
    return name[-2] if name[-1] == "from_dict" and len(name) > 1 else name[-1]


def _dict_calls(
    src: WheelSource, engine_args: ast.ClassDef, classes: set[str]
) -> list[tuple[ast.Call, str]]:
    """``Cls(**self.d)`` / ``Cls.from_dict(self.d)`` calls and their dest ``d``."""
    out = []
    for call in ast.walk(engine_args):
        if not isinstance(call, ast.Call):
            continue
        cls = _class_of(call)
        if cls not in classes:
            continue
        if dotted(call.func).endswith(".from_dict"):
            if len(call.args) == 1 and not call.keywords and _plain_from_dict(src, cls):
                dest = _self_attr(call.args[0])
                if dest:
                    out.append((call, dest))
        elif not call.args and len(call.keywords) == 1 and call.keywords[0].arg is None:
            dest = _self_attr(call.keywords[0].value)
            if dest:
                out.append((call, dest))
    return out


def _plain_from_dict(src: WheelSource, cls: str) -> bool:
    """The class's ``from_dict`` is ``return cls(**d)``."""
    found = find_def(src, cls, "vllm/config")
    if found is None or not isinstance(found[1], ast.ClassDef):
        return False
    for m in found[1].body:
        if isinstance(m, ast.FunctionDef) and m.name == "from_dict" and len(m.args.args) == 2:
            body = [s for s in m.body if not _is_docstring(s)]
            param = m.args.args[1].arg
            return (
                len(body) == 1
                and isinstance(body[0], ast.Return)
                and isinstance(call := body[0].value, ast.Call)
                and dotted(call.func) == m.args.args[0].arg
                and not call.args
                and len(call.keywords) == 1
                and call.keywords[0].arg is None
                and isinstance(call.keywords[0].value, ast.Name)
                and call.keywords[0].value.id == param
            )
    return False


def _is_docstring(st: ast.stmt) -> bool:
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)


def _self_attr(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    ):
        return node.attr
    return None


def _dict_uses(engine_args: ast.ClassDef, dest: str, path: str) -> dict[str, Any]:
    """What the class's statements do to ``self.<dest>`` (raises _Unknown)."""
    keys: dict[str, str] = {}
    rekey: list[list[str]] = []
    replaced: list[str] = []
    created = False
    parents = {id(c): p for p in ast.walk(engine_args) for c in ast.iter_child_nodes(p)}
    for node in ast.walk(engine_args):
        if _self_attr(node) != dest:
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.keyword):  # f(x=self.d), Cls(**self.d)
            parent = parents.get(id(parent))
        created |= _creates_in_loop(parents, node, parent, dest)
        if isinstance(parent, ast.Call) and node in parent.args + [
            k.value for k in parent.keywords
        ]:
            if _is_dict_call(parent):
                continue  # Cls(**self.d): the construction itself
            if dotted(parent.func) in _READ_CALLS:
                continue
            if _replacing(parents, parent, dest):
                replaced.append(f"{dotted(parent.func)} ({path}:{parent.lineno})")
                continue
            raise _Unknown
        if _under_none_test(parents, node, dest):
            continue  # only when the launch gave no dict: its keys are not the launch's
        if isinstance(parent, ast.Attribute):
            keys.update(dict.fromkeys(_method_use(parents, parent), ""))
        elif isinstance(parent, ast.Subscript):
            keys.update(_subscript_use(parents, parent))
        elif isinstance(parent, ast.Compare):
            continue  # `self.d is None`, `key in self.d`
        elif isinstance(parent, ast.Assign | ast.Tuple):
            rekey += _assigned(parents, node, parent, dest)
        elif isinstance(parent, ast.comprehension) and parent.iter is node:
            raise _Unknown
        elif not isinstance(parent, ast.If | ast.BoolOp | ast.UnaryOp | ast.Return):
            raise _Unknown
    out: dict[str, Any] = {
        "keys": dict(sorted(keys.items())),
        "rekey": rekey,
        "replaced_by": sorted(set(replaced)),
    }
    if created:
        out["created"] = True  # a dest the key loop reads builds the dict when none is given
    return out


def _creates_in_loop(
    parents: dict[int, ast.AST], node: ast.AST, parent: ast.AST | None, dest: str
) -> bool:
    """``for …: … if self.d is None: self.d = {}`` (the key loop starts a dict of its own)."""
    if not (
        isinstance(parent, ast.Assign)
        and node in parent.targets
        and isinstance(parent.value, ast.Dict)
        and not parent.value.keys
        and _under_none_test(parents, node, dest)
    ):
        return False
    up = parents.get(id(parent))
    while up is not None and not isinstance(up, ast.For | ast.FunctionDef):
        up = parents.get(id(up))
    return isinstance(up, ast.For)


def _is_dict_call(call: ast.Call) -> bool:
    return (not call.args and len(call.keywords) == 1 and call.keywords[0].arg is None) or (
        dotted(call.func).endswith(".from_dict")
    )


def _replacing(parents: dict[int, ast.AST], call: ast.Call, dest: str) -> bool:
    """``(…, self.d) = f(…, self.d, …)``: the call's result is assigned back to the dest."""
    node: ast.AST = call
    while isinstance(parents.get(id(node)), ast.Tuple):  # `(a, b) = (f(...))`
        node = parents[id(node)]
    assign = parents.get(id(node))
    if not isinstance(assign, ast.Assign) or assign.value is not node:
        return False
    return any(
        _self_attr(t) == dest
        or isinstance(t, ast.Tuple)
        and any(_self_attr(e) == dest for e in t.elts)
        for t in assign.targets
    )


def _method_use(parents: dict[int, ast.AST], attr: ast.Attribute) -> set[str]:
    call = parents.get(id(attr))
    if not isinstance(call, ast.Call) or call.func is not attr:
        if isinstance(attr.ctx, ast.Load):
            return set()  # `self.d.method` read (the object the dict became)
        raise _Unknown
    if attr.attr in _READ_METHODS:
        return set()
    if attr.attr == "update" and len(call.args) == 1 and not call.keywords:
        arg = call.args[0]
        if isinstance(arg, ast.Dict) and all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in arg.keys
        ):
            return {k.value for k in arg.keys if isinstance(k, ast.Constant)}
    raise _Unknown


def _under_none_test(parents: dict[int, ast.AST], node: ast.AST, dest: str) -> bool:
    """``node`` sits in the body of ``if self.<dest> is None:``."""
    child, up = node, parents.get(id(node))
    while up is not None:
        if isinstance(up, ast.If) and child in up.body:
            test = up.test
            if (
                isinstance(test, ast.Compare)
                and _self_attr(test.left) == dest
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.Is)
                and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value is None
            ):
                return True
        child, up = up, parents.get(id(up))
    return False


def _subscript_use(parents: dict[int, ast.AST], sub: ast.Subscript) -> dict[str, str]:
    """key -> "" (set always) or the dest whose value it is set to when that is not None."""
    if isinstance(sub.ctx, ast.Load):
        return {}
    if not isinstance(sub.ctx, ast.Store):
        raise _Unknown
    key = sub.slice
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return {key.value: ""}
    if isinstance(key, ast.Name):
        return _loop_values(parents, sub, key.id)
    raise _Unknown


def _loop_values(parents: dict[int, ast.AST], node: ast.AST, name: str) -> dict[str, str]:
    """The values ``name`` takes in the enclosing ``for …, name, … in (literal table)``, each
    with the dest of the row's ``self.<dest>`` when the loop skips a None one (``if value
    is None: continue``), else ""."""
    loop = parents.get(id(node))
    while loop is not None and not (
        isinstance(loop, ast.For)
        and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(loop.target))
    ):
        loop = parents.get(id(loop))
    if not isinstance(loop, ast.For) or not isinstance(loop.iter, ast.Tuple | ast.List):
        raise _Unknown
    target = loop.target
    names: list[str] = []
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        names = [e.id for e in target.elts if isinstance(e, ast.Name)]
    elif isinstance(target, ast.Name):
        names = [target.id]
    else:
        raise _Unknown
    index = names.index(name)
    skipped = _skipped_none(loop)
    out: dict[str, str] = {}
    for row in loop.iter.elts:
        cells = row.elts if isinstance(row, ast.Tuple) else [row]
        if len(cells) != len(names):
            raise _Unknown
        item = cells[index]
        if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
            raise _Unknown
        guard = cells[names.index(skipped)] if skipped in names else None
        out[item.value] = (_self_attr(guard) or "") if guard is not None else ""
    return out


def _skipped_none(loop: ast.For) -> str | None:
    """``v`` of a loop body starting ``if v is None: continue``."""
    first = loop.body[0] if loop.body else None
    if (
        isinstance(first, ast.If)
        and not first.orelse
        and len(first.body) == 1
        and isinstance(first.body[0], ast.Continue)
        and isinstance(t := first.test, ast.Compare)
        and isinstance(t.left, ast.Name)
        and len(t.ops) == 1
        and isinstance(t.ops[0], ast.Is)
        and isinstance(t.comparators[0], ast.Constant)
        and t.comparators[0].value is None
    ):
        return t.left.id
    return None


def _assigned(
    parents: dict[int, ast.AST], node: ast.AST, parent: ast.AST, dest: str
) -> list[list[str]]:
    """``self.d = {}`` (nothing), ``self.d = {k.replace(a, b): v for k, v in
    self.d.items()}`` (the replace pairs), a tuple target of a replacing call (nothing:
    recorded with the call)."""
    if isinstance(parent, ast.Tuple):
        assign = parents.get(id(parent))
        if isinstance(assign, ast.Assign) and parent in assign.targets:
            value = assign.value
            if isinstance(value, ast.Call) and _replacing(parents, value, dest):
                return []
        raise _Unknown
    assert isinstance(parent, ast.Assign)
    if node not in parent.targets:
        raise _Unknown  # `x = self.d`: an alias that may be changed
    value = parent.value
    if isinstance(value, ast.Dict) and not value.keys:
        return []
    if isinstance(value, ast.Call) and _replacing(parents, value, dest):
        return []
    pairs = _rekey_pairs(value, dest)
    if pairs is None:
        raise _Unknown
    return pairs


def _rekey_pairs(value: ast.expr, dest: str) -> list[list[str]] | None:
    if not (isinstance(value, ast.DictComp) and len(value.generators) == 1):
        return None
    gen = value.generators[0]
    it = gen.iter
    if gen.ifs or not (
        isinstance(gen.target, ast.Tuple)
        and len(gen.target.elts) == 2
        and all(isinstance(e, ast.Name) for e in gen.target.elts)
        and isinstance(it, ast.Call)
        and isinstance(it.func, ast.Attribute)
        and it.func.attr == "items"
        and _self_attr(it.func.value) == dest
    ):
        return None
    k, v = (e.id for e in gen.target.elts if isinstance(e, ast.Name))
    if not (isinstance(value.value, ast.Name) and value.value.id == v):
        return None
    pairs: list[list[str]] = []
    key = value.key
    while isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute):
        args = key.args
        if key.func.attr != "replace" or key.keywords or len(args) != 2:
            return None
        if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
            return None
        pairs.insert(0, [a.value for a in args if isinstance(a, ast.Constant)])
        key = key.func.value
    return pairs if isinstance(key, ast.Name) and key.id == k else None
