"""Checks of a config mapping as a whole, beyond its keys' values (``option_file``):

- a field pydantic requires (no default, the builder's ``required``) that the mapping lacks;
- the decoding class a ``speculative_config`` picks, on a backend its ``supports_backend``
  refuses (``build_backends``): the LLM arguments' ``validate_speculative_config`` raises
  ``Speculation type X does not support backend B``. The backend the validator sees is
  ``"pytorch"`` for the PyTorch class (``_TorchLLM`` passes it) and the TensorRT class's
  ``backend`` default there (``serve`` pops the key before ``LLM(**args)``);
- ``null`` for an argument the merge converts (``update_llm_args_with_extra_dict`` calls
  ``Class(**value)`` or ``Class.from_dict(value)``, which fail on ``None``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from servelint.engines.trtllm import bounds_check
from servelint.model import Span

_NO_VALUE = object()
# (span, message, evidence): option_file makes each a FileProblem
Refusal = tuple[Span | None, str, str]


def missing_required(model, cls: str, keys: set[str], path: str, span) -> Iterator[Refusal]:
    """Fields of ``cls`` pydantic requires that the mapping at ``path`` does not give."""
    for name, field in model.fields(cls).items():
        if not field.get("required"):
            continue
        if name in keys or any(a in keys for a in field.get("aliases", ())):
            continue
        src = model.source(cls, name)
        yield span, f'{path}: "{name}" is required by {cls} and missing ({model.label}: {src})', src


def backend_refused(
    model, cls: str, backend: str, root: str, tag: Any, span: Span | None
) -> Refusal | None:
    """The speculative decoding class ``cls`` on a backend its ``supports_backend`` refuses."""
    seen = _backend_value(model, backend, root)
    if seen is _NO_VALUE:
        return None
    rule, owner = _supports(model, cls)
    if rule is None:
        return None
    listed = seen in rule["values"]
    if listed == (rule["op"] == "in"):
        return None
    file = model.classes.get(owner, {}).get("file", "?")
    validator = next(
        (v for v in model.classes.get(root, {}).get("validators", ())
         if v["name"] == "validate_speculative_config"),
        None,
    )
    where = f"{file}:{validator['line']}" if validator else f"{file}:{rule['line']}"
    return (
        span,
        f"speculative_config: decoding type {tag!r} ({cls}) does not support backend "
        f"{seen!r}: {root} refuses it ({cls}.supports_backend, {file}:{rule['line']}; "
        f"{model.label})",
        where,
    )


def _backend_value(model, backend: str, root: str) -> Any:
    """What ``self.backend`` holds when the root class validates."""
    if backend == "pytorch":
        return "pytorch"
    if backend == "tensorrt":
        field = model.fields(root).get("backend")
        return field.get("default") if field and "default" in field else _NO_VALUE
    return _NO_VALUE  # AutoDeploy builds another class: not judged here


def _supports(model, cls: str) -> tuple[dict[str, Any] | None, str]:
    """The nearest ``supports_backend`` of ``cls`` and its bases, and the class holding it."""
    entry = model.classes.get(cls, {})
    if "supports_backend" in entry:
        return entry["supports_backend"], cls
    for base in entry.get("bases", []):
        found, owner = _supports(model, base)
        if found is not None:
            return found, owner
    return None, cls


def null_converted(label: str, key: str, merge: str, span: Span | None) -> Refusal:
    """``key: null`` for an argument the merge turns into its config class."""
    return (
        span,
        f"{key}: null cannot be merged: {label}'s update_llm_args_with_extra_dict builds "
        f"the {key} config class from the value, which fails on None ({merge})",
        merge,
    )


_SYMBOLS = {"gt": ">", "ge": ">=", "lt": "<", "le": "<=", "is_not": "is not"}


def assert_refused(model, root: str, cls: str, items: dict, span: Span | None) -> Refusal | None:
    """The first assert of ``validate_speculative_config``'s branch for ``cls`` (the first
    ``isinstance`` branch it matches, ``build_spec_asserts``) that the mapping's values, or the
    class's defaults for fields it does not give, fail; None when all hold or one is unknown."""
    chain = model.classes.get(root, {}).get("speculative_asserts") or []
    branch = next((b for b in chain if _is_a(model, cls, b["class"])), None)
    if branch is None:
        return None
    fields = model.fields(cls)
    for check in branch["checks"]:
        field = fields.get(check["field"])
        node, value = _value(field, check["field"], items)
        if value is _NO_VALUE:
            return None
        if _holds(check, value):
            continue
        file = model.classes.get(root, {}).get("file", "?")
        where = f"{file}:{check['line']}"
        shown = "not given, default None" if node is None and value is None else repr(value)
        return (
            node.span if node is not None and node.span else span,
            f"speculative_config.{check['field']}: {shown} fails {root}.validate_speculative_"
            f"config's assert {check['field']} {_SYMBOLS[check['op']]} {check['value']!r} "
            f"for {cls} ({model.label}: {where})",
            where,
        )
    return None


def _is_a(model, cls: str, other: str) -> bool:
    if cls == other:
        return True
    return any(_is_a(model, b, other) for b in model.classes.get(cls, {}).get("bases", []))


def _value(field: dict | None, name: str, items: dict) -> tuple[Any, Any]:
    """(the node giving the field or None, its value as the assert sees it, or _NO_VALUE)."""
    names = {name, *((field or {}).get("aliases", ()))}
    pair = next((items[k] for k in items if k in names), None)
    if pair is None:
        if field is None or "default" not in field:
            return None, _NO_VALUE
        default = field["default"]
        ok = default is None or isinstance(default, int | float)
        return None, (default if ok else _NO_VALUE)
    node = pair[1]
    if node.symbolic or node.items is not None:
        return node, _NO_VALUE
    value = node.value
    if isinstance(value, str):
        value = bounds_check.lax_number((field or {}).get("type"), value)
        return node, (_NO_VALUE if value is None else value)
    if value is None or isinstance(value, int | float):
        return node, value  # a bool is an int to pydantic's lax int and to the comparison
    return node, _NO_VALUE


def _holds(check: dict[str, Any], value: Any) -> bool:
    if check["op"] == "is_not":
        return value is not None
    if value is None:
        return False  # None > 0 raises TypeError
    limit = check["value"]
    return {"gt": value > limit, "ge": value >= limit, "lt": value < limit,
            "le": value <= limit}[check["op"]]
