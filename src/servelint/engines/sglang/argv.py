"""Emulate SGLang's ``prepare_server_args`` argv handling over a release profile.

SGLang builds a plain ``argparse.ArgumentParser`` (no ``_``->``-`` rewrite, no dotted keys,
unique-prefix matching on unless the release disables it), and expands ``--config FILE.yaml``
before parsing when the exact token ``--config`` is in argv. This module re-states CPython
3.11 argparse for the action kinds SGLang uses; ``argv`` is what follows
``python -m sglang.launch_server`` (or ``sglang serve``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from servelint.engines import argparse_emul
from servelint.engines.argparse_emul import ArgFail, arg_name, consume, effective_nargs, table_for
from servelint.engines.sglang import config_merge, serve_diffusion, value_models
from servelint.profiles import Action, Profile


@dataclass(frozen=True)
class ParsedOption(argparse_emul.ParsedOption):
    """An option of an SGLang argv (or of its ``--config`` file)."""

    from_config: bool = False  # came from the --config YAML file, not the command line


@dataclass(frozen=True)
class ParseResult(argparse_emul.ParseResult):
    """An SGLang argv parsed as the release parses it."""

    exit_code: int = 0  # what the real CLI exits with (2 argparse, 1 exception, 0 --help)
    unrecognized_indices: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # deprecation warnings the release logs
    # `sglang serve` picks the parser from the model: what is known of the choice (empty:
    # the LLM server's parser is certain)
    routing: str = ""


_NUMBER = re.compile(r"^-\d")
# entrypoints whose argv this model pre-processes (servelint.pipeline.argv_memo.entry_of)
ENTRIES = {"sglang serve": "serve"}

# values human_readable_int accepts, for profiles built before its model was read from the
# wheel (builder/type_models.py): anything it might accept is let through
_HUMAN_INT = re.compile(r"^\s*([+-]?[\d_]+|\d+(\.\d+)?(Ki|Mi|Gi|Ti|k|M|G|T))\s*$")


def _convert(action: Action, text: str, index: int | None) -> Any:
    """argparse's ``type=`` step: ``int``, ``float`` or a modelled SGLang type function."""
    typ = action.raw.get("type")
    model = action.raw.get("value_model")
    if typ == "int":
        try:
            return int(text)
        except ValueError:
            raise ArgFail(
                f"argument {arg_name(action)}: invalid int value: {text!r}", index
            ) from None
    if typ == "float":
        try:
            return float(text)
        except ValueError:
            raise ArgFail(
                f"argument {arg_name(action)}: invalid float value: {text!r}", index
            ) from None
    if typ == "human_int" and not model and not _HUMAN_INT.match(text):
        raise ArgFail(
            f"argument {arg_name(action)}: Invalid integer value: '{text.strip()}'. "
            "Use a plain integer, SI suffixes (1k, 1M), or IEC suffixes "
            "(1Ki, 1Mi). Suffixes are case-sensitive.",
            index,
        )
    reason = value_models.type_error(model, text)
    if reason is not None:
        raise ArgFail(f"argument {arg_name(action)}: {reason}", index)
    return text


def check_value(action: Action, text: str, index: int | None) -> None:
    """SGLang's argparse types (``int``, ``float``, custom type functions) and choices."""
    typ = action.raw.get("type")
    value = _convert(action, text, index)
    choices = action.choices
    if choices is None or action.raw.get("choices_unresolved"):
        return
    if typ in {"int", "float", "str", None} or value_models.returns_input(
        action.raw.get("value_model")
    ):
        if str(value) not in choices:
            listed = ", ".join(repr(c) if typ not in {"int", "float"} else c for c in choices)
            raise ArgFail(
                f"argument {arg_name(action)}: invalid choice: {value!r} (choose from {listed})",
                index,
            )


def neutral_value(profile: Profile, action: Action) -> str | None:
    """A value ``action`` accepts, to parse on past a bad one (engines.lint_parse)."""
    model = action.raw.get("value_model") or {}
    if model.get("kind") in {"json", "json_phases"}:
        return "{}"
    if model.get("kind") == "braced_json":
        return "x"
    levels = (profile.rules.get("logging_level") or {}).get("dests", [])
    default = action.raw.get("default")
    if action.dest in levels and isinstance(default, str):
        return default
    return None


def _check_action(action: Action, values: list[str], index: int) -> None:
    """A modelled action class (``LoRAPathAction``) raising on its values: exit 1."""
    reason = value_models.action_error(action.raw.get("value_model"), values)
    if reason is not None:
        raise ArgFail(reason, index, "exception")


def _check_logging_levels(profile: Profile, options: list[ParsedOption]) -> None:
    """``getattr(logging, args.log_level.upper())`` after parse_args (prepare_server_args)."""
    rule = profile.rules.get("logging_level")
    if not rule:
        return
    last = {o.action.dest: o for o in options}
    for dest in rule.get("dests", []):
        opt = last.get(dest)
        if opt is None or not isinstance(opt.value, str):
            continue
        reason = value_models.logging_level_error(opt.value)
        if reason is not None:
            where = opt.value_index if opt.value_index is not None else opt.index
            raise ArgFail(f"{reason} ({rule.get('source', '')})", where, "exception")


class _Take:
    """Store one action as ``prepare_server_args``' parser would: values, deprecations, help."""

    def __init__(self, argv: list[str], config_count: int):
        self.argv, self.config_count = argv, config_count
        self.options: list[ParsedOption] = []
        self.warnings: list[str] = []  # deprecation warnings the release logs

    def __call__(
        self,
        action: Action,
        values: list[str],
        i: int | None,
        opt: str,
        abbreviated: bool,
        value_pos: int | None,
        explicit: bool,
    ) -> None:
        if i is None:
            return  # SGLang's parser has no positionals
        nargs = effective_nargs(action)
        value_idx = None if explicit else value_pos
        if not (nargs is None and not values):  # "--x=--": stores [] unchecked
            for k, text in enumerate(values):
                check_value(action, text, (value_idx + k) if value_idx is not None else i)
        if action.raw.get("action_class"):
            _check_action(action, values, value_idx if value_idx is not None else i)
        if action.raw.get("deprecated_error"):
            raise ArgFail(action.raw.get("deprecated_message") or "deprecated", i)
        if action.deprecated and action.raw.get("deprecated_by") == "action":
            self.warnings.append(
                f"'{opt}' is deprecated. {action.raw.get('deprecated_message', '')}".strip()
            )
        if action.kind == "help":
            raise ArgFail("help requested", i, "help")
        value: str | list[str] | None
        if nargs == 0:
            value = None
        elif nargs in (None, "?") and len(values) <= 1:
            value = values[0] if values else None
        else:
            value = values
        self.options.append(
            ParsedOption(
                action,
                self.argv[i].split("=", 1)[0],
                opt,
                value,
                i,
                value_idx,
                abbreviated,
                False,
                None,
                i < self.config_count,
            )
        )


def _parse_merged(profile: Profile, argv: list[str], config_count: int = 0) -> ParseResult:
    """argparse over the merged argv (config tokens first)."""
    take = _Take(argv, config_count)
    left = consume(table_for(profile), argv, list(range(len(argv))), take)
    if left.positions:
        err = ArgFail(f"unrecognized arguments: {' '.join(left.texts)}", left.positions[0])
        err.extras = left.positions
        raise err
    _check_logging_levels(profile, take.options)
    return ParseResult(True, None, None, take.options, [], warnings=take.warnings)


def _without_required(profile: Profile, argv: list[str]) -> ParseResult:
    """The parse of ``argv`` when an unread config file may hold the required options:
    each one missing gets a stand-in value, and its stand-in is not reported."""
    try:
        return _parse_merged(profile, argv)
    except ArgFail as exc:
        if not exc.message.startswith("the following arguments are required"):
            raise
    extra = [
        t for a in profile.actions if a.raw.get("required") for t in (a.option_strings[0], "x")
    ]
    result = _parse_merged(profile, argv + extra)
    return dataclasses.replace(result, options=[o for o in result.options if o.index < len(argv)])


def serve_model_type(profile: Profile, argv: list[str]) -> str | None:
    """The ``--model-type`` backend named on ``sglang serve`` (the last one), if any."""
    if not profile.rules.get("serve_model_type_selector"):
        return None
    found = None
    for k, tok in enumerate(argv):
        if tok == "--model-type" and k + 1 < len(argv):
            found = argv[k + 1]
        elif tok.startswith("--model-type="):
            found = tok.split("=", 1)[1]
    return found


def _serve_model_missing(profile: Profile, argv: list[str]) -> str | None:
    """``get_model_path`` raises before any parser runs when argv names no model path in
    one of the spellings it compares (cli/utils.py; prefixes of the flag do not count)."""
    rule = (profile.rules.get("serve_routing") or {}).get("model_path")
    if not rule or any(t in ("-h", "--help") or "$" in t for t in argv):
        return None  # help runs no parser; a symbolic token may hold the model path
    exact, prefixes = set(rule.get("exact", [])), tuple(rule.get("prefixes", []))
    for k, tok in enumerate(argv):
        if (tok in exact and k + 1 < len(argv)) or (prefixes and tok.startswith(prefixes)):
            return None
    return (
        f"Error: --model-path is required: `sglang serve` looks for "
        f"{' or '.join(sorted(exact))} before choosing a parser ({rule.get('source')})"
    )


def _routing_note(profile: Profile, result: ParseResult) -> str:
    """What to say when the model decides the parser (sglang/cli/serve.py)."""
    routing = profile.rules.get("serve_routing")
    if not routing or result.ok:
        return ""
    detection = routing.get("detection") or {}
    files = " or ".join(detection.get("files") or []) or "its model index"
    key = detection.get("key") or "a diffusers version"
    unknown = [t for t in result.unrecognized if t.startswith("-")]
    known = set(routing.get("diffusion_options") or [])
    theirs = [t.split("=", 1)[0] for t in unknown if t.split("=", 1)[0] in known]
    took = (
        f"which declares {', '.join(theirs)}"
        if theirs
        else "which passes flags it does not declare on to the pipeline"
        if routing.get("diffusion_passes_unknown")
        else ""
    )
    return (
        f"`sglang serve` picks the parser from the model ({routing.get('source')}): "
        f"this is the LLM server's parser (prepare_server_args); a diffusion model "
        f"({files} naming {key}) goes to the multimodal-generation server's parser "
        f"({routing.get('diffusion_parser')}){', ' + took if took else ''}; "
        "add --model-type llm where the release has it to pin the LLM parser"
    )


def _not_llm_note(profile: Profile, backend: str) -> str:
    routing = profile.rules.get("serve_routing") or {}
    return (
        f"`sglang serve --model-type {backend}`: the flags go to that backend's parser "
        f"({routing.get('diffusion_parser') if backend == 'diffusion' else 'out of tree'})"
        ", which servelint does not model"
    )


def serve_argv(profile: Profile, argv: list[str]) -> tuple[list[str], list[int]]:
    """``sglang serve ARGV`` -> the argv prepare_server_args sees, and the original index of
    each of its tokens (-1 for inserted ones): ``--model-type X`` is removed and a leading
    positional model becomes ``--model-path`` when the release's CLI does so."""
    pairs = list(enumerate(argv))
    if profile.rules.get("serve_model_type_selector"):
        kept, skip = [], False
        for k, tok in pairs:
            if skip:
                skip = False
                continue
            if tok == "--model-type":
                skip = True
                continue
            if tok.startswith("--model-type="):
                continue
            kept.append((k, tok))
        pairs = kept
    if profile.rules.get("serve_positional_model") and pairs and not pairs[0][1].startswith("-"):
        pairs = [(-1, "--model-path")] + pairs
    return [t for _, t in pairs], [k for k, _ in pairs]


def written_config_loader(name: str, text: str) -> config_merge.WrittenConfig:
    """The ``config_loader`` for a ``--config`` file the document writes (lint_parse)."""
    return config_merge.WrittenConfig(name, text)


def parse(
    profile: Profile,
    argv: list[str],
    config_loader: Callable[[str], Any] | None = None,
    entry: str = "launch_server",
) -> ParseResult:
    """Parse ``argv`` as the release's ``prepare_server_args`` would (parse step only).

    ``entry="serve"``: argv follows ``sglang serve`` (its pre-processing is applied and
    indices refer to the argv given)."""
    if entry == "serve":
        return _parse_serve(profile, argv, config_loader)
    argv = list(argv)
    config_file: str | None = None
    offset_map: list[int] | None = None
    try:
        if profile.rules.get("config_file") and "--config" in argv:
            at = argv.index("--config")
            config_file = argv[at + 1] if at + 1 < len(argv) else None
            merged = config_merge.merge_config(
                profile, argv, at, config_loader or config_merge.load_yaml
            )
            argv, offset_map = merged.argv, merged.offset_map
            result = (
                _without_required(profile, argv)
                if merged.absent
                else _parse_merged(profile, argv, merged.config_count)
            )
        else:
            result = _parse_merged(profile, argv, 0)
    except ArgFail as exc:
        return _failure(exc, argv, offset_map, config_file)
    if offset_map is not None:
        result = _with_original_indices(result, offset_map, config_file)
    return result


def _parse_serve(
    profile: Profile, argv: list[str], config_loader: Callable[[str], Any] | None
) -> ParseResult:
    """``sglang serve ARGV``: its pre-processing, then the launch_server parse, remapped."""
    inner, index_map = serve_argv(profile, list(argv))
    forced = serve_model_type(profile, list(argv))
    missing = _serve_model_missing(profile, inner)
    if missing:
        return ParseResult(
            False, missing, None, [], [], error_kind="exception", stage="parse", exit_code=1
        )
    if forced == "diffusion" and (profile.rules.get("serve_routing") or {}).get(
        "diffusion_accepts"
    ):  # the diffusion server's flags are known: judged, no routing note
        refused = _diffusion_refuses(profile, inner, index_map)
        return refused or ParseResult(True, None, None, [], [])
    if forced not in (None, "llm"):
        return ParseResult(True, None, None, [], [], routing=_not_llm_note(profile, forced))
    result = parse(profile, inner, config_loader)
    if forced != "llm":
        split = _diffusion_split(profile, result, inner)
        if split is not None:
            return _remap(split, index_map)
    note = "" if forced == "llm" else _routing_note(profile, result)
    return dataclasses.replace(_remap(result, index_map), routing=note)


def _diffusion_refuses(
    profile: Profile, argv: list[str], index_map: list[int]
) -> ParseResult | None:
    """``--model-type diffusion``: the flags the release's diffusion server certainly
    rejects (``serve_routing.diffusion_accepts``), as unrecognized arguments; None: none."""
    routing = profile.rules.get("serve_routing") or {}
    if not routing.get("diffusion_accepts"):
        return None
    words = [
        (k, t) for k, t in enumerate(argv)
        if t.startswith("-") and "$" not in t and not _NUMBER.match(t)
    ]
    bad = [(k, t) for k, t in words if not serve_diffusion.may_take(routing, t)]
    if not bad:
        return None
    return ParseResult(
        False,
        "unrecognized arguments: " + " ".join(t for _, t in bad),
        max(index_map[bad[0][0]], 0),
        [],
        [],
        error_kind="argparse",
        unrecognized=[t for _, t in bad],
        stage="parse",
        exit_code=2,
        unrecognized_indices=[max(index_map[k], 0) for k, _ in bad],
    )


def _diffusion_split(
    profile: Profile, result: ParseResult, argv: list[str]
) -> ParseResult | None:
    """The LLM parser rejected flags: a diffusion model takes every flag (ok), or some flag
    neither parser takes (only those stay, as certain failures); None: not decidable."""
    routing = profile.rules.get("serve_routing") or {}
    accepts = routing.get("diffusion_accepts")
    flags = [t for t in result.unrecognized if t.startswith("-")]
    if result.ok or not accepts or not flags:
        return None
    if len(result.unrecognized) != len(result.unrecognized_indices):
        return None
    never = serve_diffusion.never_taken(routing, result.unrecognized)
    if not never:
        words = [t for t in argv if t.startswith("-") and "$" not in t and not _NUMBER.match(t)]
        if serve_diffusion.never_taken(routing, words):
            return None  # each parser rejects a different flag: as before, the model decides
        if not all(serve_diffusion.declares(routing, t) for t in flags):
            # a release whose diffusion server passes on what it does not declare: the LLM
            # server rejects these and only an unknown diffusion pipeline might take them, so
            # the model decides (a warning naming both parsers), never silence
            return None
        return ParseResult(True, None, None, [], [])  # a diffusion model takes it as written
    kept = [result.unrecognized[k] for k in never]
    return dataclasses.replace(
        result,
        error="unrecognized arguments: " + " ".join(kept),
        unrecognized=kept,
        unrecognized_indices=[result.unrecognized_indices[k] for k in never],
    )


def _failure(
    exc: ArgFail, argv: list[str], offset_map: list[int] | None, config_file: str | None
) -> ParseResult:
    """The parse error ``exc``, its indices mapped back to the original argv."""

    def back(k: int | None) -> int | None:
        if k is None or offset_map is None:
            return k
        return offset_map[k] if k < len(offset_map) else None

    extras = [back(k) for k in exc.extras]
    return ParseResult(
        False,
        str(exc),
        back(exc.index),
        [],
        [],
        error_kind=exc.kind,
        config_file=config_file,
        unrecognized=[argv[k] for k in exc.extras],
        stage="parse",
        exit_code=exc.exit_code,
        unrecognized_indices=[k for k in extras if k is not None],
    )


def _with_original_indices(
    result: ParseResult, offset_map: list[int], config_file: str | None
) -> ParseResult:
    return dataclasses.replace(
        result,
        config_file=config_file,
        options=[
            dataclasses.replace(
                o,
                index=offset_map[o.index],
                value_index=offset_map[o.value_index] if o.value_index is not None else None,
            )
            for o in result.options
        ],
    )


def _remap(result: ParseResult, index_map: list[int]) -> ParseResult:
    def back(k: int | None) -> int | None:
        if k is None or k >= len(index_map):
            return k
        return max(index_map[k], 0)

    return dataclasses.replace(
        result,
        error_index=back(result.error_index),
        unrecognized_indices=[back(k) or 0 for k in result.unrecognized_indices],
        options=[
            dataclasses.replace(o, index=back(o.index) or 0, value_index=back(o.value_index))
            for o in result.options
        ],
    )
