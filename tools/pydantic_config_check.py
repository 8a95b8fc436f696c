#!/usr/bin/env python3
"""Measure: vLLM config-field checks by pydantic itself vs servelint's hand copy.

    pip install pydantic            # into a scratch venv: servelint does not depend on it
    python tools/pydantic_config_check.py [--repeat N]

vLLM validates ``--compilation-config '{...}'``, dotted keys (``--attention-config.backend X``)
and the plain-dict config options with pydantic (``TypeAdapter(cls).validate_json`` or the
pydantic dataclass constructor). servelint restates those checks by hand
(``engines/vllm/json_config._check_object``: unknown keys, ``field(init=False)`` keys,
literal/number/enum values, bool strings, dict-typed fields). The prototype here builds one
pydantic model per config class *from the profile's field types* (the annotation text the
builder recorded, and for a named Literal alias the values it resolved; never the engine's
code: no import, no eval) and lets pydantic judge the same values. It runs the committed conformance corpus (tests/conformance) through
``static_verdict`` twice, once per implementation, and prints the agreement with the real
parser per release, plus the time each implementation spends on the same config values.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "conformance"))

import pydantic  # noqa: E402

from servelint.engines.vllm import json_config  # noqa: E402

_SCALARS: dict[str, Any] = {
    "int": int,
    "str": str,
    "float": float,
    "bool": bool,
    "bytes": bytes,
    "None": type(None),
    "Path": str,
}
_GENERICS: dict[str, Any] = {
    "list": list,
    "List": list,
    "dict": dict,
    "Dict": dict,
    "set": set,
    "Set": set,
    "frozenset": frozenset,
    "tuple": tuple,
    "Tuple": tuple,
}


class _Types:
    """Annotation text -> a Python type pydantic understands (names it cannot know: Any)."""

    def __init__(self, profile: Any, models: _Models):
        self.profile, self.models = profile, models
        self.alias: Any = Any  # what a name the profile does not define stands for

    def of(self, text: str | None, alias: Any = Any) -> Any:
        saved, self.alias = self.alias, alias
        try:
            return self._text(text)
        finally:
            self.alias = saved

    def _text(self, text: str | None) -> Any:
        if not text:
            return self.alias
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            return Any
        return self._node(node)

    def _node(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            if node.value is None:
                return type(None)
            return self._text(node.value) if isinstance(node.value, str) else Any
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return Union[self._node(node.left), self._node(node.right)]  # noqa: UP007
        if isinstance(node, ast.Name):
            if node.id in _SCALARS:
                return _SCALARS[node.id]
            if node.id in _GENERICS:
                return _GENERICS[node.id]
            if node.id in self.profile.configs:
                return self.models.model(node.id)
            return self.alias
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        return Any

    def _subscript(self, node: ast.Subscript) -> Any:
        head = ast.unparse(node.value).rsplit(".", 1)[-1]
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Literal":
            values = tuple(a.value for a in args if isinstance(a, ast.Constant))
            return Literal[values] if len(values) == len(args) else Any  # type: ignore[valid-type]
        if head == "Optional":
            return Optional[self._node(args[0])]  # noqa: UP045
        if head == "Union":
            return Union[tuple(self._node(a) for a in args)]  # noqa: UP007
        if head == "Annotated":
            return self._node(args[0])
        if head in _GENERICS:
            inner = tuple(Ellipsis if _is_ellipsis(a) else self._node(a) for a in args)
            return _GENERICS[head][inner if len(inner) > 1 else inner[0]]
        return Any  # SkipValidation[...], Callable[...], ClassVar, a class we cannot read


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _enum_name(check: dict) -> Any:
    """An enum field the release's validator looks up by name, case-insensitively."""
    names = set(check.get("values") or ())
    specials = {str(x).lower() for x in check.get("specials", ())}

    def by_name(value: Any) -> Any:
        if isinstance(value, str) and value.lower() not in specials:
            if value.upper() not in names:
                raise ValueError(f"unknown name {value!r}")
        return value

    return by_name


class _Models:
    """One pydantic model per config class of one release profile."""

    def __init__(self, profile: Any):
        self.profile = profile
        self.types = _Types(profile, self)
        self.built: dict[str, Any] = {}

    def model(self, cls: str) -> Any:
        if cls in self.built:
            return self.built[cls]
        self.built[cls] = Any  # a class that refers to itself: not judged below itself
        spec = self.profile.configs[cls]
        forbid = spec.get("extra") == "forbid" and spec.get("keys_checked", True)
        fields = {}
        for name, f in spec.get("fields", {}).items():
            if f.get("init") is False and forbid:
                continue  # not a constructor argument: an extra key for pydantic
            check = f.get("value_check") or {}
            alias = Any
            if check.get("check") in ("literal", "enum_value") and check.get("values"):
                # a named alias (KVRole = Literal[...]): the values the builder resolved
                alias = Literal[tuple(check["values"])]  # type: ignore[valid-type]
            annotation = self.types.of(f.get("type"), alias)
            if check.get("check") == "enum_name_ci":
                annotation = Annotated[Any, pydantic.AfterValidator(_enum_name(check))]
            if str(f.get("type") or "").startswith("SkipValidation["):
                annotation = Any
            fields[name] = (annotation, None)
        config = pydantic.ConfigDict(
            extra="forbid" if forbid else "allow", arbitrary_types_allowed=True
        )
        try:
            built = pydantic.create_model(f"_{cls}", __config__=config, **fields)
        except (TypeError, pydantic.PydanticSchemaGenerationError, NameError):
            built = Any
        self.built[cls] = built
        return built


@cache
def _models(version: str) -> _Models:
    from servelint import profiles

    return _Models(profiles.load("vllm", version))


def pydantic_check_object(
    profile: Any, cls: str, value: dict, path: str, stage: str, out: list
) -> None:
    """``json_config._check_object`` done by pydantic over the profile's field types."""
    if cls not in profile.configs:
        return
    model = _models(profile.version).model(cls)
    if model is Any:
        return
    try:
        model.model_validate(value)
    except pydantic.ValidationError as exc:
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"])
            out.append(
                json_config.JsonProblem(f"{cls}.{where}: {err['msg']}", stage, f"{path}.{where}")
            )


def _agreement(label: str) -> dict[str, tuple[int, int, int, int]]:
    import agreement

    out = {}
    for version, profile in agreement.iter_releases():
        tallies, _ = agreement.compare(profile, version)
        p, late = tallies["parse"], tallies["late"]
        out[version] = (p.agree, p.cases, late.agree, late.cases)
        print(f"{label:10} {version}: parse {p.agree}/{p.cases}  late {late.agree}/{late.cases}")
    return out


def _record_calls() -> list[tuple[Any, str, dict, str, str]]:
    """The (profile, class, value, path, stage) calls the corpus makes, for timing."""
    calls: list = []
    original = json_config._check_object

    def spy(profile, cls, value, path, stage, out):
        calls.append((profile, cls, value, path, stage))
        original(profile, cls, value, path, stage, out)

    json_config._check_object = spy
    try:
        _agreement("(recording)")
    finally:
        json_config._check_object = original
    return calls


def _time(check: Any, calls: list, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        for profile, cls, value, path, stage in calls:
            check(profile, cls, value, path, stage, [])
    return (time.perf_counter() - start) / max(1, repeat * len(calls))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    hand = _agreement("hand copy")
    original = json_config._check_object
    json_config._check_object = pydantic_check_object  # type: ignore[assignment]
    try:
        typed = _agreement("pydantic")
    finally:
        json_config._check_object = original
    calls = _record_calls()
    for version in hand:  # model building is a one-off per release: not in the timing
        for cls in _models(version).profile.configs:
            _models(version).model(cls)
    t_hand = _time(original, calls, args.repeat)
    t_typed = _time(pydantic_check_object, calls, args.repeat)
    print(f"config objects checked by the corpus: {len(calls)}")
    print(f"per object: hand copy {t_hand * 1e6:.1f} us, pydantic {t_typed * 1e6:.1f} us")
    worse = [v for v in hand if typed[v][0] + typed[v][2] < hand[v][0] + hand[v][2]]
    print("pydantic agrees less on:", ", ".join(worse) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
