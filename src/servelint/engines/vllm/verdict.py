"""Static verdict on a `vllm serve` argv: would the release reject it, and at which stage?

The parse stage is servelint's model of the release's own parser (`vllm_argv.parse`);
values the parser leaves open are then checked against the profile's `late_values`
(the sets the engine checks after parsing: tokenizer modes, quantization methods,
backends, parsers, speculative methods), naming the stage where the engine rejects them.
tests/conformance measures this against the real parser of each release.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from servelint.engines.vllm import argv as vllm_argv
from servelint.profiles import Profile

ACCEPTED = "accepted"


@dataclass(frozen=True, slots=True)
class StaticVerdict:
    """stage: "parse", a late stage from the profile (engine_config, renderer, ...) or
    "accepted" when ok; value_set/target name the late set and the dest or config path
    that rejected the value."""

    stage: str
    ok: bool
    message: str
    value_set: str = ""
    target: str = ""


def _json_items(prefix: str, text: Any) -> Iterator[tuple[str, Any]]:
    """(dest.key, value) for the scalar top-level keys of a JSON option value."""
    if isinstance(text, dict):
        body: Any = text
    else:
        try:
            body = json.loads(text)
        except (TypeError, ValueError):
            return
    if isinstance(body, dict):
        for key, value in body.items():
            if isinstance(value, str | int | float | bool) or value is None:
                yield f"{prefix}.{key}", value


def _targets(option: Any) -> Iterator[tuple[str, Any]]:
    """Late-value targets one parsed option sets: its dest, a dotted config path, JSON keys."""
    dest = option.action.dest if option.action is not None else ""
    if option.config_path:
        yield option.config_path, option.value
        return
    if not dest:
        return
    value = option.value
    typed = getattr(option, "typed", None)
    if typed and not isinstance(value, list):
        value = typed[0]  # what the action's type= made of it
    yield dest, value
    if isinstance(value, dict) or (isinstance(value, str) and value.lstrip().startswith("{")):
        yield from _json_items(dest, value)


def _effective_values(options: list[Any]) -> dict[str, Any]:
    """target -> the value the engine sees (the last occurrence wins)."""
    out: dict[str, Any] = {}
    for option in options:
        for target, value in _targets(option):
            out[target] = value
    return out


def _in_set(value: Any, entry: dict[str, Any]) -> bool:
    values = [str(v) for v in entry.get("values", [])]
    text = str(value)
    if entry.get("case_sensitive", True):
        return text in values
    return text.lower() in {v.lower() for v in values}


def _requirements_met(entry: dict[str, Any], effective: dict[str, Any]) -> bool:
    """A set may only be checked when other options are on (e.g. a tool parser is only
    looked up with auto tool choice): entry["requires"] lists those dests."""
    # a store_true flag is present with value None: presence is what counts
    return all(dest in effective and effective[dest] not in (False, "false", "False")
               for dest in entry.get("requires", []) + entry.get("only_with", []))


def deprecation_refuses(entry: dict[str, Any], value: str,
                        has_dest: Callable[[str], bool]) -> bool:
    """A registered value in the set's ``deprecated`` list, without the option that lets
    deprecated values through (vLLM's model config raises then)."""
    deprecated = entry.get("deprecated") or {}
    return value in deprecated.get("values", []) and not has_dest(deprecated.get("unless", ""))


def late_rejection(profile: Profile, effective: dict[str, Any],
                   env: dict[str, str] | None = None) -> StaticVerdict | None:
    """The first late-checked value outside its set, or None."""
    items = list(effective.items()) + sorted((env or {}).items())
    for target, value in items:
        if value is None or isinstance(value, bool):
            continue
        hit = profile.late_for(target)
        if hit is None:
            continue
        name, entry = hit
        if not _requirements_met(entry, effective):
            continue
        if _in_set(value, entry):
            if not deprecation_refuses(entry, str(value), lambda d: effective.get(d) not in
                                       (None, False, "false", "False")):
                continue
            message = f"{target}={value!s} is deprecated in {profile.label} and refused " \
                      f"without --{entry['deprecated']['unless'].replace('_', '-')}"
        else:
            message = f"{target}={value!s} is not one of the " \
                      f"{len(entry.get('values', []))} values of {name} in {profile.label}"
        if entry.get("source"):
            message += f" ({entry['source']})"
        stage = (entry.get("target_stages") or {}).get(target) or entry.get("stage") or "later"
        return StaticVerdict(stage, False, message, name, target)
    return None


def static_verdict(profile: Profile, argv: list[str],
                   env: dict[str, str] | None = None) -> StaticVerdict:
    """Verdict on `vllm serve ARGV` (argv: the tokens after `vllm serve`)."""
    result = vllm_argv.parse(profile, argv)
    if not result.ok:
        return StaticVerdict("parse", False, result.error or "rejected by the parser")
    effective = _effective_values(list(result.options))
    late = late_rejection(profile, effective, env)
    return late if late is not None else StaticVerdict(ACCEPTED, True, "")
