"""The checks the statement walker (condition_walk.py) records at a ``raise`` or ``assert``:
a plain check over the launch's values, a model check (LAUNCH and MODEL, model_split.py), or
none; each with the engine's message, source and what it takes for granted."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from servelint.builders.astutil import dotted
from servelint.builders.vllm import assigned_values, model_split
from servelint.builders.vllm.condition_shapes import _evaluable, _reads
from servelint.builders.vllm.walk_exprs import _changed, _resolve

if TYPE_CHECKING:
    from servelint.builders.vllm.condition_walk import Walk


def _record(
    walk: Walk, guards: list[ast.expr], cond: ast.expr | None, st: ast.Raise | ast.Assert
) -> None:
    parts = guards + ([cond] if cond is not None else [])
    if not parts:
        return  # an unconditional raise (a method that always fails is not a launch's fault)
    test = parts[0] if len(parts) == 1 else ast.BoolOp(ast.And(), parts)
    if not _evaluable(test):
        _record_model(walk, parts, st)
        return
    if walk.poisoned:
        return  # past code not read (walk.hooks): only model checks are kept
    shown: dict[str, str] = {}
    if _changed(_reads(test), walk.mutated):
        _record_assigned(walk, test, st)
        # a field assigned only under guards the launch decides: still its value when they
        # are false (guarded.py); else the test reads what the engine changed
        # (each guard as it read the fields where it was tested)
        same = walk.guarded.unchanged_where_read(guards, cond) if walk.guarded else None
        if same is None:
            _record_model(walk, parts, st)  # the parts that read the model may be what changed
            return
        if not (isinstance(same, ast.Constant) and same.value is True):
            shown["when"] = ast.unparse(test)  # the engine's own test, printed in the finding
            test = ast.BoolOp(ast.And(), [test, same])
    assumes = walk.after.verdict(_reads(test)) if walk.after is not None else ""
    if assumes is None:  # a hook met before it may have written what it reads
        _record_model(walk, parts, st)  # (the model object, say: then a model check)
        return
    if assumes:
        shown["after_hooks"] = assumes  # a warning: what the check takes for granted
    walk.out.append(_entry(walk, test, shown, st))


def _entry(
    walk: Walk, test: ast.expr, shown: dict[str, Any], st: ast.Raise | ast.Assert
) -> dict[str, Any]:
    return {
        "test": ast.unparse(test),
        **shown,
        "message": _message(st, walk),
        "source": f"{walk.path}:{st.lineno}",
        "kind": "assert" if isinstance(st, ast.Assert) else "raise",
        "method": walk.method,
    }


def _record_assigned(walk: Walk, test: ast.expr, st: ast.Raise | ast.Assert) -> None:
    """The test where the one assignment of the field it reads ran, with the value it
    stored (assigned_values.py): a second entry, naming the env it assumes unset."""
    if walk.guarded is None:
        return
    reads = _reads(test)
    if walk.after is not None and walk.after.verdict(reads) != "":
        return  # after a hook: kept only where no hook ran
    changed = walk.guarded._changed_paths(reads)
    if any(walk.guarded.seeded.get(p) != len(walk.guarded.bounds.get(p, [])) for p in changed):
        return  # assigned in this method: a guard tested before it read the launch's value
    rest = walk.guarded.unchanged(reads - set(changed))
    found = assigned_values.alternative(
        test, changed, walk.guarded.bounds, walk.guarded.values, rest
    )
    if found is not None and _evaluable(found[0]):
        alt, env, path, value = found
        shown: dict[str, Any] = {"when": ast.unparse(test)}
        if env:
            shown["env"] = list(env)
        entry = _entry(walk, alt, shown, st)
        # the message prints the value the engine holds then
        entry["message"] = entry["message"].replace(
            "{self." + path + "}", "{" + repr(value.value) + "}"
        )
        walk.out.append(entry)


def _record_model(walk: Walk, parts: list[ast.expr], st: ast.Raise | ast.Assert) -> None:
    """A test ``LAUNCH and MODEL`` (model_split.py) as a model check: ``test`` the part
    the argv decides, ``model`` the part that reads only the model object."""
    if walk.model is None:
        return
    launch: list[ast.expr] = []
    model: list[ast.expr] = []
    for part in (c for p in parts for c in model_split.conjuncts(p)):
        if model_split.reads_only_model(part, walk.model, walk.model_names):
            model.append(part)
        elif (sufficient := model_split.launch_part(part, _evaluable)) is not None:
            launch.append(sufficient)  # where it holds, the engine's own conjunct holds
        else:
            return
    if not launch or not model:
        return
    test = launch[0] if len(launch) == 1 else ast.BoolOp(ast.And(), launch)
    if not _reads(test):
        return
    verdict = walk.after.verdict(_reads(test)) if walk.after is not None else ""
    if verdict is None:
        return  # after a hook that may write what it reads by name (write_index.py)
    if _changed(_reads(test), walk.mutated):  # assigned only under guards (guarded.py)?
        same = walk.guarded.unchanged(_reads(test)) if walk.guarded is not None else None
        if same is None:
            return
        test = ast.BoolOp(ast.And(), [test, same])
    walk.model_out.append(
        {
            "test": ast.unparse(test),
            "model": ast.unparse(model[0] if len(model) == 1 else ast.BoolOp(ast.And(), model)),
            "message": _message(st, walk),
            "source": f"{walk.path}:{st.lineno}",
            "kind": "assert" if isinstance(st, ast.Assert) else "raise",
            "method": walk.method,
            **({"assumes": sorted(set(walk.hooks))} if walk.hooks else {}),
        }
    )


def _message(st: ast.Raise | ast.Assert, walk: Walk) -> str:
    if isinstance(st, ast.Assert):
        text = _text(st.msg, walk) if st.msg is not None else ""
        return f"AssertionError: {text}" if text else "AssertionError"
    node: ast.AST | None = st.exc
    if isinstance(node, ast.Call):
        head = dotted(node.func).rsplit(".", 1)[-1]
        text = _text(node.args[0], walk) if node.args else ""
        return f"{head}: {text}" if text else head
    if node is None:
        return "raise"
    return _text(node, walk) or ast.unparse(node)


def _text(node: ast.AST, walk: Walk) -> str:
    """A message's text: constants as written, f-string parts as ``{expr}`` with the walk's
    locals substituted (``{tp}`` -> ``{self.tensor_parallel_size}``), so the check can print
    the launch's values."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value
            if isinstance(v, ast.Constant)
            else "{" + ast.unparse(_resolve(walk, v.value)) + "}"
            for v in node.values
            if isinstance(v, ast.Constant | ast.FormattedValue)
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left, walk) + _text(node.right, walk)
    if isinstance(node, ast.Tuple) and node.elts:  # `assert c, ("… %s", x)` prints the tuple
        parts = [
            repr(e.value)
            if isinstance(e, ast.Constant)
            else "{" + ast.unparse(_resolve(walk, e)) + "}"
            for e in node.elts
        ]
        return "(" + ", ".join(parts) + ")"
    return ""
