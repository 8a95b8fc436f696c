"""The values a launch gives the dests, as the condition checks read them: plain values
(``_dest_values``) and the JSON payloads of config options (``_json_payloads``), computed
once per judged argv (``LaunchValues``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cached_property
from typing import Any

from servelint.engines.vllm.conditions import UNKNOWN
from servelint.engines.vllm.json_config import _expand_human_numbers, human_int
from servelint.profiles import Profile


class LaunchValues:
    """One launch's options and what they give the dests: ``given`` (plain values),
    ``payloads`` (dataclass-JSON options' objects), ``plain`` (plain JSON options' dicts)."""

    def __init__(self, profile: Profile, options: list[Any], unknown: Callable[[Any], bool]):
        self.profile = profile
        self.options = options
        self.unknown = unknown
        self.given = _dest_values(options, unknown)

    @cached_property
    def payloads(self) -> dict[str, Any]:
        return _json_payloads(self.profile, self.options, self.unknown)

    @cached_property
    def plain(self) -> dict[str, Any]:
        return _json_payloads(self.profile, self.options, self.unknown, plain=True)


def _dest_values(options: list[Any], unknown: Callable[[Any], bool]) -> dict[str, Any]:
    """dest -> the value the parser stored (the last occurrence wins), for plain options."""
    out: dict[str, Any] = {}
    for opt in options:
        act = opt.action
        if act is None or opt.config_path or act.raw.get("json_dataclass"):
            continue
        kind = act.raw.get("kind")
        if unknown(opt):
            out[act.dest] = UNKNOWN
        elif kind == "store_true":
            out[act.dest] = True
        elif kind == "store_false":
            out[act.dest] = False
        elif kind == "boolean_optional":
            out[act.dest] = opt.canonical not in (act.raw.get("negative") or [])
        elif kind == "store":
            typed = getattr(opt, "typed", None)
            if typed is None:
                out[act.dest] = UNKNOWN
            elif act.raw.get("nargs") in ("+", "*") or isinstance(opt.value, list):
                out[act.dest] = list(typed)
            else:
                out[act.dest] = typed[0] if typed else UNKNOWN
        else:
            out[act.dest] = UNKNOWN
    return out


def _json_payloads(
    profile: Profile, options: list[Any], unknown: Callable[[Any], bool], plain: bool = False
) -> dict[str, Any]:
    """dest -> the JSON object a dataclass-json option (``plain``: a plain JSON option,
    ``json.loads``) is given (dotted keys folded in)."""
    out: dict[str, Any] = {}
    kind = "json_config" if plain else "json_dataclass"
    for opt in options:
        act = opt.action
        if act is None or not isinstance(opt.value, str):
            continue
        if not act.raw.get(kind) or plain and act.raw.get("json_dataclass"):
            continue
        if opt.config_path:
            keys = opt.config_path.split(".")[1:]
            value = UNKNOWN if unknown(opt) else _dotted_value(profile, opt.value)
            current = out.setdefault(act.dest, {})
            if not isinstance(current, dict) or not keys:
                out[act.dest] = UNKNOWN
                continue
            for key in keys[:-1]:
                current = current.setdefault(key, {})
                if not isinstance(current, dict):
                    break
            else:
                current[keys[-1]] = value
            continue
        text = opt.value
        if unknown(opt):
            out[act.dest] = UNKNOWN
            continue
        if profile.rules.get("json_human_numbers"):
            text = _expand_human_numbers(text)
        try:
            out[act.dest] = json.loads(text)
        except ValueError:
            out[act.dest] = UNKNOWN
    return out


def _dotted_value(profile: Profile, text: str) -> Any:
    """As vLLM folds ``--x.key VALUE``: JSON when it parses, a human-readable int, or text."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    if profile.rules.get("dotted_human_int"):
        try:
            return human_int(text)
        except ValueError:
            pass
    return text
