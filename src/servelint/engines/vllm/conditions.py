"""Evaluate the profile's validator ``conditions`` (engines/vllm/builder/conditions.py) over
the values a launch gives a config class, without ``eval``: the test text is parsed with
``ast`` and compiled once into closures (``condition_compile``, the one evaluator) over a
closed set of nodes (literals, ``self.<field>`` chains, ``not``/
``and``/``or``, comparisons, arithmetic, conditional expressions, subscripts, and the calls
in ``SAFE_CALLS``/``SAFE_METHODS``). Anything else, or a value the argv does not decide
(``UNKNOWN``), makes the whole test undetermined: only a test that is certainly true is
a rejection.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from typing import Any

from servelint.engines.vllm.condition_compile import Closures, closures_of, conjunction
from servelint.engines.vllm.condition_terms import (
    UNKNOWN,
    Items,
    Undetermined,
    Values,
    _known,
    _parsed,
    _plain,
    _truth,
)

__all__ = ["UNKNOWN", "Closures", "Items", "Undetermined", "Values", "check_outcome", "check_reads",
           "closures_of", "holds", "outcome", "reads", "rendered", "value_of"]


def holds(test: str, values: Values) -> bool | None:
    """True when the test certainly holds for ``values`` (or the engine certainly fails
    evaluating it), False when it certainly does not, None when the launch does not
    decide it."""
    found = outcome(test, values)
    return None if found is None else found != "passes"


# what evaluating a test over a launch's values may raise when the launch does not decide it
_UNDECIDED = (
    Undetermined,
    TypeError,
    ValueError,
    OverflowError,
    AttributeError,
    IndexError,
    KeyError,
    RecursionError,
)


def outcome(test: str, values: Values, closures: Closures | None = None) -> str | None:
    """ "raises" (the test holds), "divides-by-zero" (Python fails evaluating it, as the
    engine would), "passes", or None when the launch does not decide it. ``closures``: the
    release's compiled texts (``closures_of(profile)``) at check time; without them the text
    is compiled for this call alone (the builders, tests)."""
    return _outcome_of(_closures(closures)[test], values)


def check_outcome(
    check: dict[str, Any], values: Values, closures: Closures | None = None
) -> str | None:
    """``outcome`` of a profile check's ``test``; a test the builder split into the operands
    of its ``and`` (``and_parts``, builder/condition_index.py) is parsed one operand at a
    time, only as far as evaluating it goes."""
    parts = check.get("and_parts")
    if not parts:
        return outcome(check["test"], values, closures)
    return _outcome_of(conjunction(check["test"], parts, _closures(closures)), values)


def _closures(closures: Closures | None) -> Closures:
    return Closures() if closures is None else closures


def _outcome_of(run: Any, values: Values) -> str | None:
    if run is None:
        return None
    try:
        return "raises" if _truth(run(values)) else "passes"
    except ZeroDivisionError:
        return "divides-by-zero"
    except _UNDECIDED:
        return None


_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def rendered(message: str, values: Values, closures: Closures | None = None) -> str:
    """The engine's message with each ``{expr}`` the launch decides printed as the f-string
    would print it; the others stay as written."""
    closures = _closures(closures)

    def one(match: re.Match[str]) -> str:
        run = closures[match.group(1)]
        if run is None:
            return match.group(0)
        try:
            value = _plain(_known(run(values)))
        except (*_UNDECIDED, ZeroDivisionError):
            return match.group(0)
        return str(value)

    return _PLACEHOLDER.sub(one, message)


def value_of(expr: str, values: Values, closures: Closures | None = None) -> Any:
    """The expression's value over ``values`` (a scalar or a container of scalars), or
    UNKNOWN when the launch does not decide it (or Python would fail evaluating it)."""
    run = _closures(closures)[expr]
    if run is None:
        return UNKNOWN
    try:
        return _plain(_known(run(values)))
    except (*_UNDECIDED, ZeroDivisionError):
        return UNKNOWN


def reads(test: str) -> list[str]:
    """The top-level fields a test reads (``self.a.b`` -> ``a``), in order of appearance."""
    return list(_reads(test))


def check_reads(check: dict[str, Any], key: str = "test") -> list[str]:
    """``reads`` of a profile check's ``test`` (or a construction's computed argument's
    ``expr``), as the builder stored it (``reads``, builder/condition_index.py); computed
    for one written without it."""
    found = check.get("reads")
    return found if found is not None else list(_reads(check[key]))


def _reads(test: str) -> tuple[str, ...]:
    """``self.<field>`` reads in ``ast.walk``'s order (breadth first), walked by hand: a
    run's first meeting with a release's tests spent as long in ``ast.walk`` as in parsing."""
    node = _parsed(test)
    out: list[str] = []
    todo = deque([node] if node is not None else ())
    while todo:
        sub = todo.popleft()
        if isinstance(sub, ast.Attribute):
            value = sub.value
            if isinstance(value, ast.Name) and value.id == "self" and sub.attr not in out:
                out.append(sub.attr)
        for name in sub._fields:
            child = getattr(sub, name, None)
            if isinstance(child, ast.AST):
                todo.append(child)
            elif isinstance(child, list):
                todo.extend(c for c in child if isinstance(c, ast.AST))
    return tuple(out)
