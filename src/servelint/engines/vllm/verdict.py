"""Static verdict on a `vllm serve` argv: would the release reject it, and at which stage?

The parse stage is servelint's model of the release's own parser (`vllm_argv.parse`);
values the parser leaves open are then checked against the profile's `late_values`
(the sets the engine checks after parsing: tokenizer modes, quantization methods,
backends, parsers, speculative methods), naming the stage where the engine rejects them.
tests/conformance measures this against the real parser of each release.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from servelint.engines.vllm import argv as vllm_argv
from servelint.engines.vllm import validators
from servelint.engines.vllm.check_values import without_env_caveat
from servelint.engines.vllm.guarded_lookup_checks import lookup_failures
from servelint.profiles import Profile

ACCEPTED = "accepted"


@dataclass(slots=True, eq=False)
class StaticVerdict:
    """stage: "parse", a late stage from the profile (engine_config, renderer, ...) or
    "accepted" when ok; value_set/target name the late set and the dest or config path
    that rejected the value."""

    stage: str
    ok: bool
    message: str
    value_set: str = ""
    target: str = ""
    only_if: str = ""  # the engine checks the value only when this holds (model)


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


def _literal(profile: Profile, text: Any) -> Any:
    """The Python literal a default ``text`` of the profile spells (as is when it spells none),
    read once per release and text (``Profile.derived``); a caller only compares it."""
    if not isinstance(text, str):
        return text
    literals = profile.derived("vllm.verdict literals", lambda _: {})
    if text not in literals:
        try:
            literals[text] = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            literals[text] = text
    return literals[text]


def _field_of(profile: Profile, target: str) -> tuple[Any, dict[str, Any] | None]:
    """(action, config field) of an option dest or a config path (dest.field...)."""
    dest, *path = target.split(".")
    act = profile.by_dest.get(dest)
    if act is None:
        return None, None
    if not path:  # the config field the option fills (field_of), e.g. AttentionConfig.backend
        found = profile.config_field_at(act.raw.get("field_of") or "", act.raw.get("field_source"))
        return act, found[1] if found else None
    cls = act.raw.get("json_dataclass") or act.raw.get("json_config")
    field: dict[str, Any] | None = None
    for key in path:
        field = (profile.configs.get(cls or "") or {}).get("fields", {}).get(key)
        if field is None:
            return act, None
        cls = field.get("config")
    return act, field


def means_unset(profile: Profile, target: str, value: Any) -> bool:
    """The value is the release's own default for the target (``reasoning_parser: str = ""``
    in StructuredOutputsConfig means "no parser"), or a sentinel the field's validator maps
    to unset (``if value.lower() == "auto": return None`` in AttentionConfig.backend)."""
    act, field = _field_of(profile, target)
    if act is None:
        return False
    default = _literal(profile, act.raw.get("default") if field is None or "." not in target
                       else field.get("default"))
    if isinstance(default, str) and str(value) == default:
        return True
    specials = ((field or {}).get("value_check") or {}).get("specials") or []
    return isinstance(value, str) and value.lower() in {x.lower() for x in specials}


def read_only_if(entry: dict[str, Any], target: str) -> str:
    """"the engine reads it only when …" for a target whose config class the engine builds
    under a condition (a multimodal-config option on a text-only model is never read)."""
    cond = (entry.get("only_if") or {}).get(target)
    if not cond:
        return ""
    return f"the engine reads it only when `{cond['test']}` ({cond['source']})"


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
        if not _requirements_met(entry, effective) or means_unset(profile, target, value):
            continue
        if entry.get("class_paths") and "." in str(value):
            continue  # a class path the engine imports: not judged
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
        cond = read_only_if(entry, target)
        if cond:
            message += f"; {cond}"
        stage = (entry.get("target_stages") or {}).get(target) or entry.get("stage") or "later"
        return StaticVerdict(stage, False, message, name, target,
                             ((entry.get("only_if") or {}).get(target) or {}).get("test", ""))
    return None


def static_verdict(profile: Profile, argv: list[str],
                   env: dict[str, str] | None = None) -> StaticVerdict:
    """Verdict on `vllm serve ARGV` (argv: the tokens after `vllm serve`) run with exactly
    the environment ``env`` (None: no variables)."""
    result = vllm_argv.parse(profile, argv)
    if not result.ok:
        return StaticVerdict("parse", False, result.error or "rejected by the parser")
    effective = _effective_values(list(result.options))
    condition = condition_rejection(profile, list(result.options), env or {})
    if condition is not None and condition.stage == "parse":  # the parser's type= fails first
        return condition
    late = late_rejection(profile, effective, env) or guarded_lookup_rejection(
        profile, list(result.options)) or json_rejection(profile, result.options) or condition
    return late if late is not None else StaticVerdict(ACCEPTED, True, "")


def guarded_lookup_rejection(profile: Profile, options: list[Any]) -> StaticVerdict | None:
    """The first value a config object looks up under a guard it meets, outside its set."""
    for failure in lookup_failures(profile, options):
        return StaticVerdict(failure.stage, False, failure.message, failure.set_name,
                             failure.target)
    return None


def condition_rejection(profile: Profile, options: list[Any],
                        env: dict[str, str] | None = None) -> StaticVerdict | None:
    """The first validator condition of the release that the launch makes true; ``env``:
    the launch's whole environment, when known (a condition that assumes an env var unset
    is then decided)."""
    found = list(validators.failures(profile, options, entry="serve"))  # `vllm serve ARGV`
    if env is not None:
        found = [without_env_caveat(f) if f.env else f for f in found
                 if not any(name in env for name in f.env)]
    failure = next((f for f in found if not (f.model or f.only_if)), found[0] if found else None)
    if failure is None:
        return None
    return StaticVerdict(failure.stage, False, f"{failure.message} ({failure.source})", "",
                         failure.fields[0] if failure.fields else failure.cls,
                         failure.model or failure.only_if)  # fails only where this holds


def json_rejection(profile: Profile, options: Any) -> StaticVerdict | None:
    """The first JSON option value that a config class refuses after parsing (a plain-JSON
    option such as --speculative-config, validated when the engine config is built)."""
    options = list(options)
    shadowed = vllm_argv.shadowed_json_values(options)
    for i, opt in enumerate(options):
        act = opt.action
        if act is None or i in shadowed:
            continue
        if opt.config_path:  # --speculative-config.max_model_len 1k
            if act.raw.get("json_config") and isinstance(opt.value, str):
                problem = _late_json_problem(profile, act, vllm_argv.dotted_payload(
                    profile, opt.config_path, opt.value))
                if problem is not None:
                    return problem
            continue  # dataclass-json options are judged at parse time
        typed = getattr(opt, "typed", None)
        bound = None
        if typed and isinstance(opt.value, str):
            bound = vllm_argv.option_bound_problem(profile, act, typed[0])
        if typed and bound is None:
            bound = vllm_argv.option_value_problem(profile, act, typed)
        if bound is not None:
            return StaticVerdict(bound.stage, False, bound.message, "", bound.path, bound.only_if)
        if not isinstance(opt.value, str):
            continue
        if not (act.raw.get("json_config") or vllm_argv.field_value_check(profile, act)):
            continue  # dataclass-json options are judged at parse time
        problem = _late_json_problem(profile, act, opt.value, getattr(opt, "json_problems", None))
        if problem is not None:
            return problem
    return None


def _late_json_problem(
    profile: Profile, act: Any, text: str, found: tuple[Any, ...] | None = None
) -> StaticVerdict | None:
    """The first problem of a JSON option value found after parsing that no late value set
    reports (value-rejected-later names those); ``found``: the parse's own, when it kept
    them (``ParsedOption.json_problems``)."""
    if found is None:
        found = vllm_argv.json_config_problems(profile, act, text)
    for problem in found:
        if problem.stage != "parse" and profile.late_for(problem.path) is None:
            return StaticVerdict(problem.stage, False, problem.message, "", problem.path,
                                 problem.only_if)
    return None
