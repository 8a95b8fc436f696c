"""Which validator conditions of the release (the profile's ``conditions``) a launch meets.

A config class gets its values two ways:

- a ``dataclass-json`` option (``--profiler-config '{…}'``, ``--profiler-config.profiler
  torch``): the keys the launch gives, the class defaults for the rest; pydantic runs the
  validators in the parser's ``type=``, so the launch fails at parse time;
- built by ``EngineArgs.create_engine_config`` from option dests (``ParallelConfig(
  enable_eplb=self.enable_eplb, …)``): each field the call passes as ``self.<dest>`` gets
  the launch's value of that dest (or the dest's default), fields the call does not pass
  get the class default; the launch fails when the engine config is built.

A value the launch does not decide is ``UNKNOWN``: a field the engine converts
(``converted``), changes before the check, passes as something else than a plain dest, or
whose default the source does not state. ``conditions.outcome`` decides a test only when
none of them matters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from servelint.engines.vllm import failures_memo
from servelint.engines.vllm.built_bounds import bound_failures
from servelint.engines.vllm.check_values import (
    ConditionFailure,
    _base,
    _built_values,
    _dests_of,
    _failing,
    _index,
    _json_values,
)
from servelint.engines.vllm.conditions import closures_of
from servelint.engines.vllm.engine_args_checks import engine_args_failures
from servelint.engines.vllm.from_dict_checks import from_dict_failures
from servelint.engines.vllm.launch_values import LaunchValues
from servelint.engines.vllm.serve_checks import serve_failures
from servelint.profiles import Profile


def failures(
    profile: Profile,
    options: list[Any],
    unknown: Callable[[Any], bool] = lambda opt: False,
    entry: str = "",
) -> tuple[ConditionFailure, ...]:
    """The validator conditions the launch's options make certainly true, parse-stage
    classes first (the order the engine meets them). ``unknown(option)``: the option's
    value is not known (a shell variable), so nothing that reads it is decided. ``entry``:
    the entrypoint's ``argv.ENTRIES`` name (``serve``: its namespace checks run first).
    The config classes' checks are memoised on the values of the dests they read, and
    each part of the checks (a class, the EngineArgs checks, the bounds, the namespace
    checks) on the values of its own dests (failures_memo.py)."""
    table = profile.data.get("conditions") or {}
    if not table or any(opt.canonical == "--config" for opt in options):
        return ()  # a --config file may set any option: nothing is decided by the argv alone

    launch = LaunchValues(profile, options, unknown)
    served = tuple(serve_failures(profile, launch)) if entry == "serve" else ()
    classes = failures_memo.failures(profile, launch, _failures)
    bounds = tuple(bound_failures(profile, table, launch.given))
    return served + classes + bounds


def _failures(profile: Profile, launch: LaunchValues) -> Iterator[ConditionFailure]:
    table = profile.data.get("conditions") or {}
    given = launch.given
    built_classes, read = _index(profile, table)
    if any(opt.action is not None and opt.action.dest in read for opt in launch.options):
        payloads = launch.payloads
        for key in ("checks", "model_checks"):  # certain failures first
            yield from _class_failures(profile, table, built_classes, given, payloads, key)
        yield from from_dict_failures(profile, table, launch)
    yield from engine_args_failures(profile, table, given)


def _class_failures(
    profile: Profile,
    table: dict[str, Any],
    built_classes: list[tuple[str, Any]],
    given: dict[str, Any],
    payloads: dict[str, Any],
    key: str,
) -> Iterator[ConditionFailure]:
    for dest, payload in payloads.items():
        cls = profile.by_dest[dest].raw.get("json_dataclass")
        if (table.get(cls) or {}).get(key) and isinstance(payload, dict):
            values = _json_values(profile, table, cls, payload, 0, own=True)
            base = _base(profile, ("json", cls), _json_values, profile, table, cls, {}, 0, own=True)
            yield from _failing(
                table, cls, values, "parse", f"{dest}.", key, base, closures=closures_of(profile)
            )

    def built_failures(cls: str, built: dict[str, Any]) -> Iterator[ConditionFailure]:
        values = _built_values(profile, table, cls, built, given, payloads)
        if values is not None:
            base = _base(
                profile, ("built", cls), _built_values, profile, table, cls, built, {}, {}, force=True
            )
            yield from _failing(
                table, cls, values, "engine_config", "", key, base, "built",
                closures=closures_of(profile),
            )

    for cls, built in built_classes:
        dests = _dests_of(built)
        if not (table.get(cls) or {}).get(key) or (
            dests.isdisjoint(given) and dests.isdisjoint(payloads)
        ):
            continue  # the release's defaults, which pass its own validators
        yield from failures_memo.part_failures(
            table, ("built", cls, key), dests, (given, payloads),
            lambda c=cls, b=built: built_failures(c, b),
        )
