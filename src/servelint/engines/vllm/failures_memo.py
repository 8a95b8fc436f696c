"""SL114's memo (``validators.failures``), keyed on the values a launch gives the dests the
release's checks can read, not on its argv: one for the config classes' checks as a whole
(``failures``) and, below it, one per part (``part_failures``: a built class, a
``from_dict`` class, the EngineArgs checks, the bounds, the serve namespace checks), keyed on
the values of the dests that part reads, so a launch new as a whole reuses its parts.

``failures`` reads a launch only through what ``validators`` makes of its options
(launch_values.LaunchValues): dest -> plain value, dest -> dataclass-JSON payload and dest ->
plain-JSON payload, whether an option names ``--config``, and whether an option's dest is
one a condition reads (``_index``). Restricted to the dests some check of the release can
read, those decide the result:

- every dest of each class ``create_engine_config`` builds, the dests of computed arguments
  (``{"expr": …}``) and of classes built in the same call included (``check_values._dests``);
- the dataclass-JSON options of classes with checks;
- each ``from_dict`` class's option and the dests the engine fills its keys from;
- the fields ``EngineArgs``'s own checks and model checks read.

So launches that differ only in the model, in values no check reads or in the order of
options no check reads share one entry; the release's part of the key is its conditions
table (by identity: one profile, one table). Values are keyed with their type (``1``,
``1.0`` and ``True`` differ); a value of any other type than JSON's is not memoised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from servelint.engines.vllm import check_values
from servelint.engines.vllm.conditions import UNKNOWN
from servelint.engines.vllm.launch_values import LaunchValues
from servelint.profiles import Profile
from servelint.util.lru import Lru

# the one memo of both: a launch's failures (``failures``) and one part's (``part_failures``);
# measured on ../shared/corpus/vllm-recipes (--no-cache -j 1): ~8 s of CPU saved (docs/architecture.md)
MAX_ENTRIES = 5 * 8192
_MEMO = Lru(MAX_ENTRIES)
_SCALARS = (str, int, bool, type(None))


class _Unkeyable(Exception):
    """A value the key cannot hold exactly: that launch is judged without the memo."""


def failures(
    profile: Profile,
    launch: LaunchValues,
    compute: Callable[..., Iterable[check_values.ConditionFailure]],
) -> tuple[check_values.ConditionFailure, ...]:
    """``compute(profile, launch)``'s failures, once per release and key."""
    table = profile.data.get("conditions") or {}
    try:
        key = _key(profile, table, launch)
    except _Unkeyable:
        key = None
    if key is None:
        return tuple(compute(profile, launch))
    return _MEMO.get_for(table, lambda: tuple(compute(profile, launch)), ("launch", key))


def part_failures(
    table: dict[str, Any],
    part: Any,
    dests: frozenset[str],
    maps: tuple[dict[str, Any], ...],
    compute: Callable[[], Iterable[check_values.ConditionFailure]],
) -> tuple[check_values.ConditionFailure, ...]:
    """The failures of one part of the release's checks (a built class, the bounds, ...):
    ``compute()``, once per release, ``part`` and the values ``maps`` give ``dests``, which
    must be every dest the part reads."""
    try:
        key = tuple(tuple((d, _frozen(v)) for d, v in m.items() if d in dests) for m in maps)
    except _Unkeyable:
        return tuple(compute())
    return _MEMO.get_for(table, lambda: tuple(compute()), ("part", part, key))


def _key(profile: Profile, table: dict[str, Any], launch: LaunchValues) -> tuple[Any, ...]:
    """(whether an option reaches the classes, then the values of the dests any check reads);
    ``validators.failures`` has already returned for a launch with ``--config`` or a release
    without conditions."""
    options = launch.options
    gate, dests = _read_dests(profile, table)
    return (
        any(opt.action is not None and opt.action.dest in gate for opt in options),
        *(
            tuple((d, _frozen(v)) for d, v in m.items() if d in dests)
            for m in (launch.given, launch.payloads, launch.plain)
        ),
    )


def _read_dests(profile: Profile, table: dict[str, Any]) -> tuple[frozenset[str], frozenset[str]]:
    """The dests whose options make ``failures`` look at the classes (``_index``), and every
    dest a check of the release can read (those and EngineArgs' model checks' fields); kept
    in the release's one table memo."""
    def dests() -> tuple[frozenset[str], frozenset[str]]:
        _, gate = check_values._index(profile, table)
        return gate, gate | check_values.read_fields(profile, table)

    return check_values.per_release(profile, ("memo", "dests"), dests)


def _frozen(value: Any) -> Any:
    """``value`` as an exact, hashable key: the type kept with each scalar, dict order kept."""
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, dict):
        return (dict, tuple((k, _frozen(v)) for k, v in value.items()))
    if type(value) in (list, tuple):
        return (type(value), tuple(_frozen(v) for v in value))
    if type(value) is float:
        return (float, repr(value))  # -0.0 and 0.0 print differently
    if type(value) in _SCALARS:
        return (type(value), value)
    raise _Unkeyable
