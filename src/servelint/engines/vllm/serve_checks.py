"""The checks ``vllm serve`` makes on the parsed namespace before it builds anything (the
profile's ``serve_checks``, builder/serve_checks.py), evaluated over the launch's dests.

The namespace holds what the parser stored: a dest the launch sets has its parsed value, a
dest it does not set the default the source states (``defaults``; else the EngineArgs
field default when the parser's default says the same), anything else is unknown. Nothing
changes the namespace between parsing and these checks (``ServeSubcommand.validate`` runs
first), so a test the launch's values make true is a rejection at the ``validate`` stage.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from servelint.engines.vllm import failures_memo
from servelint.engines.vllm.check_values import _dest_default, per_release
from servelint.engines.vllm.conditions import UNKNOWN, check_reads, closures_of
from servelint.engines.vllm.dest_checks import raising
from servelint.profiles import Profile


def serve_failures(profile: Profile, launch: Any) -> Iterator[Any]:
    """The namespace checks ``launch`` (launch_values.LaunchValues) fails."""
    section = profile.data.get("serve_checks") or {}
    if not section.get("checks"):
        return
    given = dict(launch.given)
    for opt in launch.options:  # a dataclass-json option stores the object its type= builds
        act = opt.action
        if act is not None and (opt.config_path or act.raw.get("json_dataclass")):
            given[act.dest] = UNKNOWN

    table = profile.data.get("conditions") or {}
    yield from failures_memo.part_failures(
        table, ("serve",), _read(profile), (given,), lambda: _failures(profile, given)
    )


def _read(profile: Profile) -> frozenset[str]:
    """Every dest the checks read (once per release: the conditions table's memo)."""
    checks = (profile.data.get("serve_checks") or {}).get("checks") or []
    return per_release(
        profile,
        ("serve", "read"),
        lambda: frozenset(f for c in checks for f in check_reads(c)),
    )


def _failures(profile: Profile, given: dict[str, Any]) -> Iterator[Any]:
    section = profile.data.get("serve_checks") or {}
    defaults = section.get("defaults") or {}
    table = profile.data.get("conditions") or {}
    yield from raising(
        section["checks"],
        given,
        lambda dest: _value(dest, given, defaults, lambda d: _dest_default(profile, table, d)),
        ("namespace", "serve arguments", "validate"),
        closures_of(profile),
    )


def _value(
    dest: str, given: dict[str, Any], defaults: dict[str, Any], fallback: Callable[[str], Any]
) -> Any:
    if dest in given:
        return given[dest]
    if dest in defaults:
        return defaults[dest]["value"]
    return fallback(dest)
