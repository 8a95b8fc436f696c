"""vLLM JSON option values: bad JSON, unknown keys and refused values of the config classes.

``dataclass-json`` options are validated by pydantic at parse time, options typed as plain JSON
dicts only when the engine config is built (``json_config_stage``); the checks restate the
class fields recorded in the profile's ``configs``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from servelint.engines.vllm.lax_values import (
    _bool_problem,
    _dict_problem,
    _value_problem,
    enum_value_problem,
)
from servelint.engines.vllm.version_values import version_problem
from servelint.profiles import Action, Profile


def human_int(value: str) -> int:
    value = value.strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", value)
    if m:
        number, suffix = m.groups()
        dec = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
        binary = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
        if suffix in dec:
            return int(float(number) * dec[suffix])
        return int(number) * binary[suffix]  # ValueError for decimals
    return int(value)


def dotted_value(rules: dict[str, Any], text: str) -> Any:
    """What the release's ``FlexibleArgumentParser`` makes of ``--x-config.key TEXT``: the
    JSON value when the text parses, else a human-readable int (``1k``) where the release
    converts those (``dotted_human_int``), else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    if rules.get("dotted_human_int"):
        try:
            return human_int(text)
        except ValueError:
            pass
    return text


def dotted_payload(profile: Profile, config_path: str, text: str) -> str:
    """The JSON object the release folds ``--x-config.a.b TEXT`` into (``config_path`` is
    ``dest.a.b``)."""
    value = dotted_value(profile.rules, text)
    for key in reversed(config_path.split(".")[1:]):
        value = {key: value}
    return json.dumps(value)


@dataclass(slots=True, eq=False)
class JsonProblem:
    """A JSON option value the release rejects, and where in its config it fails (identity equality)."""

    message: str
    stage: str  # parse | engine_config | unknown
    path: str  # dotted config path ("attention_config.backend"), or the dest
    only_if: str = ""  # the engine builds the config class only when this holds


def shadowed_json_values(options: list[Any]) -> set[int]:
    """Positions (in ``options``) of plain-JSON option values the engine never sees: argparse
    keeps the last value of a ``store`` option, and the release appends the object its dotted
    keys fold into after every other argument, so that object replaces any written value
    (dataclass-json options are validated as each value is parsed: none is shadowed)."""
    shadowed: set[int] = set()
    last: dict[str, bool] = {}  # dest -> whether its surviving value is the folded one
    for i in range(len(options) - 1, -1, -1):
        act = options[i].action
        if act is None or act.raw.get("type") != "json" or act.raw.get("kind") != "store":
            continue
        dotted = bool(options[i].config_path)
        if act.dest not in last:
            last[act.dest] = dotted
        elif not (dotted and last[act.dest]):
            shadowed.add(i)
    return shadowed


def json_config_class(profile: Profile, action: Action) -> str | None:
    return action.raw.get("json_dataclass") or action.raw.get("json_config")


def json_config_stage(profile: Profile, action: Action) -> str:
    """Where the engine validates this option's JSON against its config class.

    ``dataclass-json`` options run pydantic ``TypeAdapter(cls).validate_json`` as the
    argparse ``type=``: a bad key or value fails at parse time.  Options typed as plain
    JSON dicts (e.g. ``--speculative-config``) are only validated when the engine
    config is built."""
    if action.raw.get("json_dataclass"):
        return "parse"
    if action.raw.get("json_config"):
        return "engine_config"
    return "unknown"


def json_config_problems(
    profile: Profile, action: Action, value_text: str
) -> tuple[JsonProblem, ...]:
    """The problems of one JSON option value on the release. The parse asks once per option
    and keeps them on its ``ParsedOption`` (``json_problems``) for the config-invalid rule
    and the verdicts."""
    return tuple(_problems(profile, action, value_text))


def _problems(profile: Profile, action: Action, value_text: str) -> list[JsonProblem]:
    stage = json_config_stage(profile, action)
    base = action.dest
    text = value_text
    if action.raw.get("json_dataclass") and profile.rules.get("json_human_numbers"):
        text = _expand_human_numbers(text)
    trepr = action.raw.get("type_repr") or ""
    if trepr.startswith("optional(") and text in ("", "None"):
        return []
    if action.raw.get("json_from_cli") and not text.lstrip().startswith("{"):
        return []  # the release's from_cli shorthand (e.g. "-O 3") is not judged
    try:
        value = json.loads(text)
    except ValueError as exc:
        if trepr.endswith("union_dict_and_str)") or trepr == "union_dict_and_str":
            if not re.match(r"(?s)^\s*{.*}\s*$", text):
                # not an object: the text stays a string, which the field may refuse
                return [] if json_config_class(profile, action) else \
                    _field_value_problems(profile, action, text)
        json_stage = "parse" if action.raw.get("type") in ("json", "json_dataclass") else stage
        return [JsonProblem(f"invalid JSON: {exc}", json_stage, base)]
    cls = json_config_class(profile, action)
    if cls is None:
        if "union_dict_and_str" in trepr and not re.match(r"(?s)^\s*{.*}\s*$", text):
            value = text  # only an object is decoded; anything else stays a string
        return _field_value_problems(profile, action, value)
    out: list[JsonProblem] = []
    if not isinstance(value, dict):
        if value is None and trepr.startswith("optional("):
            return []
        out.append(JsonProblem(f"expected a JSON object for {cls}", stage, base))
        return out
    _check_object(profile, cls, value, base, stage, out)
    return out


def field_value_check(profile: Profile, action: Action) -> dict[str, Any] | None:
    """The type check of the config field a plain-JSON option fills (``field_of``), e.g.
    ``--override-generation-config`` -> ModelConfig.override_generation_config: dict."""
    target = _field_target(profile, action)
    check = (target[1].get("value_check") or {}) if target else {}
    return check if check.get("check") == "type" else None


def _field_target(profile: Profile, action: Action) -> tuple[str, dict[str, Any]] | None:
    """(config class, field) that validates a plain-JSON option's value: the field it fills
    (``field_of``), or else the ``InitVar`` of a class the engine always builds with it."""
    if action.raw.get("type") != "json" or not action.raw.get("field_of"):
        return None
    fields = (profile.configs.get(action.raw["field_of"]) or {}).get("fields", {})
    f = fields.get(action.dest)
    if f is not None and f.get("source") == action.raw.get("field_source"):
        return action.raw["field_of"], f
    return init_var_target(profile, action.dest)


def init_var_target(profile: Profile, dest: str) -> tuple[str, dict[str, Any]] | None:
    """The ``InitVar`` a config class built for every launch receives the option's value in
    (``ModelConfig(limit_mm_per_prompt=self.limit_mm_per_prompt)``, the profile's
    ``conditions[cls].built``): pydantic validates it there whatever the model."""
    for cls, entry in sorted((getattr(profile, "data", None) or {}).get("conditions", {}).items()):
        built = ((entry or {}).get("built") or {}).get("fields") or {}
        spec = profile.configs.get(cls) or {}
        for key, source_dest in sorted(built.items()):
            f = spec.get("fields", {}).get(key) if source_dest == dest else None
            if f and f.get("init_var") and not spec.get("only_if") and pydantic_class(spec):
                return cls, f
    return None


def _field_value_problems(profile: Profile, action: Action, value: Any) -> list[JsonProblem]:
    """The engine builds the config class from the decoded value (pydantic validates it when
    the engine config is created)."""
    target = _field_target(profile, action)
    check = field_value_check(profile, action)
    msg = _value_problem(check, value) if check and target else None
    if not msg or target is None:
        return []
    cls, field = target
    guard = (profile.configs.get(cls) or {}).get("only_if") or {}
    if _option_guard(profile, guard):
        return []
    if guard:  # e.g. MultiModalConfig: built only for multimodal models
        msg += f"; the engine builds {cls} only when `{guard['test']}` ({guard['source']})"
    name = action.dest if not field.get("init_var") else f"{action.dest} (an InitVar)"
    return [JsonProblem(f"{cls}.{name}: {msg} ({field.get('source')})", "engine_config",
                        action.dest, guard.get("test", ""))]


def check_json_config(profile: Profile, action: Action, value_text: str) -> list[str]:
    """Problems of a JSON config value: bad JSON, unknown keys, disallowed values.

    Each message ends with the stage at which the real engine rejects it
    (``json_config_problems`` gives the stage as data)."""
    return [
        f"{p.path}: {p.message} [{p.stage}]"
        for p in json_config_problems(profile, action, value_text)
    ]


def _expand_human_numbers(val: str) -> str:
    parts = re.split(r'("(?:[^"\\]|\\.)*")', val)
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(
            r"\b\d+(?:\.\d+)?[kKmMgGtT]\b", lambda m: str(_safe_human(m.group())), parts[i]
        )
    return "".join(parts)


def _safe_human(text: str) -> str:
    try:
        return str(human_int(text))
    except ValueError:
        return text


def _check_object(
    profile: Profile, cls: str, value: dict[str, Any], path: str, stage: str, out: list[JsonProblem]
) -> None:
    spec = profile.configs.get(cls)
    if spec is None:
        return
    fields = spec.get("fields", {})
    for key, item in value.items():
        sub = f"{path}.{key}"
        f = fields.get(key)
        if f is not None and f.get("init") is False:
            # field(init=False) is not a constructor keyword: pydantic refuses the key when
            # the class forbids extra keys, and otherwise drops it unvalidated (vLLM 0.11.0
            # CompilationConfig.max_capture_size, extra="ignore": any value passes)
            if spec.get("extra") == "forbid" and spec.get("keys_checked", True):
                out.append(
                    JsonProblem(
                        f"{key!r} of {cls} cannot be set (the field is not a constructor argument)",
                        stage,
                        sub,
                    )
                )
            continue
        if f is None:
            if spec.get("extra") == "forbid" and spec.get("keys_checked", True):
                out.append(
                    JsonProblem(
                        f"unknown key {key!r} for {cls} (extra keys are forbidden)", stage, sub
                    )
                )
            continue
        nested = f.get("config")
        if nested and isinstance(item, dict):
            if not str(f.get("type") or "").startswith("SkipValidation["):
                # (pydantic keeps a SkipValidation field's dict as given: the engine's own
                # code reads it, e.g. SpeculativeConfig.draft_model_config's "hf_config")
                _check_object(profile, nested, item, sub, stage, out)
            continue
        check = f.get("value_check")
        validated = pydantic_class(spec)
        if check and check.get("check") == "type" and not validated:
            check = None  # plain types are judged for pydantic config classes only
        msg = (
            _value_problem(check, item)
            or bound_problem(f.get("bounds"), item)
            or version_problem(profile, cls, key, item)
        )
        if msg is None and validated:
            msg = _bool_problem(f.get("type"), item) or _dict_problem(f.get("type"), item)
        if msg:
            where = f" ({f['source']})" if f.get("source") else ""  # the field's line
            out.append(JsonProblem(f"{cls}.{key}: {msg}{where}", stage, sub))


def pydantic_class(spec: dict[str, Any]) -> bool:
    """Whether pydantic validates the class's field types (the builder's ``pydantic``; a
    profile without it: the classes that forbid extra keys, which only pydantic does)."""
    return bool(spec.get("pydantic", spec.get("extra") == "forbid"))


def option_value_problem(profile: Profile, action: Action, typed: tuple[Any, ...]
                         ) -> JsonProblem | None:
    """A top-level option's values (after its ``type=``) that the config field it fills
    (``field_of``) refuses when the engine config is built: a text for an Enum
    (``--optimization-level none`` -> VllmConfig.optimization_level, an IntEnum), or a
    list element its ``list[X]`` refuses (``--served-model-name ""``: the type maps the
    empty text to None, and ``list[str]`` refuses None)."""
    if action.raw.get("type") == "json" or not typed:
        return None
    cls, source = action.raw.get("field_of"), action.raw.get("field_source")
    spec = profile.configs.get(cls or "") or {}
    name, field = profile.config_field_at(cls or "", source) or ("", None)
    check = (field or {}).get("value_check") or {}
    msg = None
    if _takes_list(action) and action.raw.get("type") in ("str", "int", "float"):
        items = check.get("items") if "list" in (check.get("types") or []) else None
        msg = next((m for v in typed if (m := _value_problem(items, v))), None) \
            if items and items.get("check") in ("literal", "type", "number") else None
        if msg:
            msg = f"a list element of {field.get('type')}: {msg}" if field else msg
    elif check.get("check") == "enum_value" and isinstance(typed[0], str):
        msg = enum_value_problem(check.get("values") or [], typed[0])
        msg = f"{msg} (the field is {field.get('type')})" if msg and field else msg
    elif field is not None and not _takes_list(action):
        msg = version_problem(profile, cls or "", name, typed[0])
    return _built_class_problem(profile, spec, cls, action, msg and f"{cls}.{action.dest}: {msg}")


def _takes_list(action: Action) -> bool:
    nargs = action.raw.get("nargs")
    return nargs in ("+", "*") or isinstance(nargs, int) and not isinstance(nargs, bool)


_BOUNDS = {"ge": (lambda v, b: v >= b, "greater than or equal to"),
           "gt": (lambda v, b: v > b, "greater than"),
           "le": (lambda v, b: v <= b, "less than or equal to"),
           "lt": (lambda v, b: v < b, "less than")}


def bound_problem(bounds: dict[str, float] | None, item: Any) -> str | None:
    """A number outside the field's ``Field(ge=/gt=/le=/lt=)`` bounds (NaN fails them all,
    as in pydantic); strings are converted the way pydantic's lax mode would."""
    if not bounds or isinstance(item, bool) or item is None:
        return None
    if isinstance(item, str):
        try:
            item = float(item)
        except ValueError:
            return None
    if not isinstance(item, int | float):
        return None
    for key, bound in bounds.items():
        ok, words = _BOUNDS[key]
        if not ok(item, bound):
            return f"{item!r} is not {words} {bound}"
    return None


def _option_guard(profile: Profile, guard: dict[str, str]) -> bool:
    """The config class is built only when another option is set (``LoRAConfig(...) if
    self.enable_lora else None``): its values are not judged (that pairing is not modelled)."""
    return any(name in profile.by_dest for name in re.findall(r"\bself\.(\w+)",
                                                               guard.get("test", "")))


def option_bound_problem(profile: Profile, action: Action, value: Any) -> JsonProblem | None:
    """A top-level numeric option outside the bounds of the config field it fills
    (``field_of``): pydantic refuses it when the engine config is built."""
    cls = action.raw.get("field_of")
    source = action.raw.get("field_source")
    if not cls or not source or isinstance(value, (bool, str)) or value is None:
        return None
    spec = profile.configs.get(cls) or {}
    field = (profile.config_field_at(cls, source) or ("", None))[1]
    msg = bound_problem((field or {}).get("bounds"), value)
    return _built_class_problem(profile, spec, cls, action, msg and f"{cls}: {action.dest}={msg}")


def _built_class_problem(profile, spec: dict, cls: str, action: Action, msg: str | None):
    """An engine-config problem of config class ``cls``, or None: no message, or a class the
    launch's options say the engine never builds. A class built only under a condition says
    which."""
    guard = spec.get("only_if") or {}
    if not msg or _option_guard(profile, guard):
        return None
    if guard:
        msg += f"; the engine builds {cls} only when `{guard['test']}` ({guard['source']})"
    return JsonProblem(msg, "engine_config", action.dest, guard.get("test", ""))

