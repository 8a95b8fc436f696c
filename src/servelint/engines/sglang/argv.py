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
from pathlib import Path
from typing import Any

from servelint.engines.vllm import argv as vllm_argv
from servelint.profiles import Action, Profile


@dataclass(frozen=True)
class ParsedOption(vllm_argv.ParsedOption):
    from_config: bool = False  # came from the --config YAML file, not the command line


@dataclass(frozen=True)
class ParseResult(vllm_argv.ParseResult):
    exit_code: int = 0  # what the real CLI exits with (2 argparse, 1 exception, 0 --help)
    unrecognized_indices: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # deprecation warnings the release logs

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
# values human_readable_int accepts (int(), or a number with an SI/IEC suffix); anything it
# might still accept is let through (IEC decimals are an error we do not report)
_HUMAN_INT = re.compile(r"^\s*([+-]?[\d_]+|\d+(\.\d+)?(Ki|Mi|Gi|Ti|k|M|G|T))\s*$")
_ZERO = {"store_true", "store_false", "store_const", "count", "help", "version",
         "boolean_optional"}


class ArgError(Exception):
    def __init__(self, message: str, index: int | None, exit_code: int = 2):
        super().__init__(message)
        self.index = index
        self.exit_code = exit_code


def _nargs(action: Action) -> Any:
    if action.kind in _ZERO:
        return 0
    return action.nargs


def _name(action: Action) -> str:
    return "/".join(action.option_strings) or action.dest


class _Parser:
    def __init__(self, profile: Profile):
        self.profile = profile
        self.options: dict[str, Action] = dict(profile.option_index)

    # ---- classification (argparse _parse_optional) --------------------------------
    def classify(self, arg: str, index: int) -> tuple[Action | None, str, str | None] | None:
        if not arg or arg[0] != "-":
            return None
        if arg in self.options:
            return self.options[arg], arg, None
        if len(arg) == 1:
            return None
        if "=" in arg:
            opt, explicit = arg.split("=", 1)
            if opt in self.options:
                return self.options[opt], opt, explicit
        tuples = self.prefix_matches(arg)
        if tuples:
            if len(tuples) > 1:
                names = ", ".join(t[1] for t in tuples)
                raise ArgError(f"ambiguous option: {arg} could match {names}", index)
            if len(tuples) == 1:
                return tuples[0]
        if _NEGATIVE_NUMBER.match(arg):
            return None
        if " " in arg:
            return None
        return None, arg, None

    def prefix_matches(self, arg: str) -> list[tuple[Action, str, str | None]]:
        out = []
        if arg.startswith("--"):
            if not self.profile.allow_abbrev:
                return out
            prefix, explicit = (arg.split("=", 1) + [None])[:2] if "=" in arg else (arg, None)
            for opt, act in self.options.items():
                if opt.startswith(prefix):  # type: ignore[arg-type]
                    out.append((act, opt, explicit))
        elif arg[1] != "-":
            short, short_explicit = arg[:2], arg[2:]
            for opt, act in self.options.items():
                if opt == short:
                    out.append((act, opt, short_explicit))
                elif opt.startswith(arg):
                    out.append((act, opt, None))
        return out

    # ---- values ---------------------------------------------------------------------
    @staticmethod
    def check_value(action: Action, text: str, index: int | None) -> None:
        typ = action.raw.get("type")
        value: Any = text
        if typ == "int":
            try:
                value = int(text)
            except ValueError:
                raise ArgError(f"argument {_name(action)}: invalid int value: {text!r}",
                               index) from None
        elif typ == "float":
            try:
                value = float(text)
            except ValueError:
                raise ArgError(f"argument {_name(action)}: invalid float value: {text!r}",
                               index) from None
        elif typ == "human_int" and not _HUMAN_INT.match(text):
            raise ArgError(f"argument {_name(action)}: Invalid integer value: '{text.strip()}'. "
                           "Use a plain integer, SI suffixes (1k, 1M), or IEC suffixes "
                           "(1Ki, 1Mi). Suffixes are case-sensitive.", index)
        choices = action.choices
        if choices is None or action.raw.get("choices_unresolved"):
            return
        if typ in {"int", "float", "str", None}:
            if str(value) not in choices:
                listed = ", ".join(repr(c) if typ in {"str", None} else c for c in choices)
                raise ArgError(f"argument {_name(action)}: invalid choice: {value!r} "
                               f"(choose from {listed})", index)

    def parse(self, argv: list[str], config_count: int = 0) -> ParseResult:
        pattern = []
        parsed: list[tuple[int, tuple[Action | None, str, str | None] | None]] = []
        after_dashdash = False
        for i, arg in enumerate(argv):
            if after_dashdash:
                pattern.append("A")
                parsed.append((i, None))
                continue
            if arg == "--":
                pattern.append("-")
                parsed.append((i, None))
                after_dashdash = True
                continue
            tup = self.classify(arg, i)
            pattern.append("O" if tup is not None else "A")
            parsed.append((i, tup))
        options: list[ParsedOption] = []
        warnings: list[str] = []
        extras: list[int] = []
        seen: set[str] = set()
        i = 0
        n = len(argv)
        while i < n:
            tup = parsed[i][1]
            if pattern[i] != "O" or tup is None:
                extras.append(i)  # with no positionals, even "--" is left over (3.11)
                i += 1
                continue
            action, opt, explicit = tup
            if action is None:
                extras.append(i)
                i += 1
                continue
            nargs = _nargs(action)
            from_config = i < config_count
            abbreviated = opt != argv[i].split("=", 1)[0] or (
                explicit is not None and "=" not in argv[i])
            if explicit is not None:
                if nargs == 0:
                    # argparse: a single-dash flag would chain -xy into -x -y; SGLang has no
                    # single-letter flags taking no value besides -h, so this always errors
                    raise ArgError(f"argument {_name(action)}: ignored explicit argument "
                                   f"{explicit!r}", i)
                if isinstance(nargs, int) and nargs > 1:
                    raise ArgError(f"argument {_name(action)}: expected {nargs} arguments", i)
                values = [explicit]
                value_idx = None
                nxt = i + 1
            else:
                j = i + 1
                run = 0
                while j + run < n and pattern[j + run] == "A":
                    run += 1
                if nargs is None:
                    if run < 1:
                        raise ArgError(f"argument {_name(action)}: expected one argument", i)
                    take = 1
                elif nargs == 0:
                    take = 0
                elif nargs == "?":
                    take = min(run, 1)
                elif nargs == "*":
                    take = run
                elif nargs == "+":
                    if run < 1:
                        raise ArgError(f"argument {_name(action)}: expected at least one "
                                       "argument", i)
                    take = run
                elif isinstance(nargs, int):
                    if run < nargs:
                        word = "argument" if nargs == 1 else "arguments"
                        raise ArgError(f"argument {_name(action)}: expected {nargs} {word}", i)
                    take = nargs
                else:
                    take = min(run, 1)
                values = [argv[k] for k in range(j, j + take)]
                value_idx = j if take else None
                nxt = j + take
            if "--" in values:  # argparse _get_values drops the first "--" (3.11)
                values.remove("--")
            if not (nargs is None and not values):  # "--x=--": stores [] unchecked
                for k, text in enumerate(values):
                    self.check_value(action, text,
                                     (value_idx + k) if value_idx is not None else i)
            if action.raw.get("deprecated_error"):
                raise ArgError(action.raw.get("deprecated_message") or "deprecated", i)
            if action.deprecated and action.raw.get("deprecated_by") == "action":
                warnings.append(
                    f"'{opt}' is deprecated. {action.raw.get('deprecated_message', '')}".strip())
            if action.kind == "help":
                raise ArgError("help requested", i, exit_code=0)
            seen.add(action.dest + "\0" + "|".join(action.option_strings))
            value: str | list[str] | None
            if nargs == 0:
                value = None
            elif nargs in (None, "?") and len(values) <= 1:
                value = values[0] if values else None
            else:
                value = values
            options.append(ParsedOption(action, argv[i].split("=", 1)[0], opt, value, i,
                                        value_idx, abbreviated, False, None, from_config))
            i = nxt
        missing = [a for a in self.profile.actions if a.raw.get("required")
                   and a.dest + "\0" + "|".join(a.option_strings) not in seen]
        if missing:
            names = ", ".join(_name(a) for a in missing)
            raise ArgError(f"the following arguments are required: {names}", None)
        if extras:
            words = " ".join(argv[k] for k in extras)
            err = ArgError(f"unrecognized arguments: {words}", extras[0])
            err.extras = extras  # type: ignore[attr-defined]
            raise err
        return ParseResult(True, None, None, options, [], warnings=warnings)


def _load_yaml(path: str) -> Any:
    import yaml

    with open(path) as fh:
        return yaml.safe_load(fh)


def _config_args(profile: Profile, argv: list[str],
                 loader: Callable[[str], Any]) -> tuple[list[str], int]:
    """The argv after the release's ConfigArgumentMerger; (merged argv, #config tokens)."""
    rules = profile.rules.get("config_merge", {})
    idx = [i for i, a in enumerate(argv) if a == "--config"]
    if len(idx) > 1:
        raise ArgError("Multiple config files specified! Only one allowed.", idx[1], 1)
    at = idx[0]
    if at == len(argv) - 1:
        raise ArgError("No config file specified after --config flag!", at, 1)
    path = argv[at + 1]
    suffix = Path(path).suffix.lower()
    if suffix not in rules.get("suffixes", [".yaml", ".yml"]):
        raise ArgError(f"Config file must be YAML format, got: {suffix}", at + 1, 1)
    if not Path(path).exists():
        raise ArgError(f"Config file not found: {path}", at + 1, 1)
    data = loader(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ArgError("Config file must contain a dictionary at root level", at + 1, 1)
    store_true = {a.dest for a in profile.actions if a.kind == "store_true"
                  and not a.raw.get("action_class")}
    supported = {"store", "store_true"}
    unsupported = {a.dest for a in profile.actions
                   if a.option_strings and (a.kind not in supported or a.raw.get("action_class"))
                   and "--config" not in a.option_strings and a.kind != "help"}
    out: list[str] = []
    for key, value in data.items():
        norm = str(key).replace("-", "_")
        if rules.get("unsupported_action_error") and norm in unsupported \
                and norm not in store_true:
            raise ArgError(f"Unsupported config option '{norm}'", at + 1, 1)
        if isinstance(value, bool):
            if norm in store_true:
                if value:
                    out.append(f"--{key}")
            else:
                out += [f"--{key}", str(value).lower()]
        elif isinstance(value, list):
            if value:
                out.append(f"--{key}")
                out += [str(v) for v in value]
        else:
            out += [f"--{key}", str(value)]
    merged = out + argv[:at] + argv[at + 2:]
    return merged, len(out)


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


def parse(profile: Profile, argv: list[str],
          config_loader: Callable[[str], Any] | None = None,
          entry: str = "launch_server") -> ParseResult:
    """Parse ``argv`` as the release's ``prepare_server_args`` would (parse step only).

    ``entry="serve"``: argv follows ``sglang serve`` (its pre-processing is applied and
    indices refer to the argv given)."""
    if entry == "serve":
        inner, index_map = serve_argv(profile, list(argv))
        result = parse(profile, inner, config_loader)
        return _remap(result, index_map)
    argv = list(argv)
    config_count = 0
    config_file: str | None = None
    offset_map: list[int] | None = None
    parser = _Parser(profile)
    try:
        if profile.rules.get("config_file") and "--config" in argv:
            at = argv.index("--config")
            config_file = argv[at + 1] if at + 1 < len(argv) else None
            merged, config_count = _config_args(profile, argv, config_loader or _load_yaml)
            # map merged indices back to the original argv (config tokens -> the --config token)
            offset_map = [at] * config_count + [k for k in range(len(argv))
                                                if k not in (at, at + 1)]
            argv = merged
        result = parser.parse(argv, config_count)
    except ArgError as exc:
        def back(k: int | None) -> int | None:
            if k is None or offset_map is None:
                return k
            return offset_map[k] if k < len(offset_map) else None

        extras = [back(k) for k in getattr(exc, "extras", [])]
        return ParseResult(False, str(exc), back(exc.index), [], [],
                           error_kind="argparse" if exc.exit_code == 2 else (
                               "help" if exc.exit_code == 0 else "exception"),
                           config_file=config_file,
                           unrecognized=[argv[k] for k in getattr(exc, "extras", [])],
                           stage="parse", exit_code=exc.exit_code,
                           unrecognized_indices=[k for k in extras if k is not None])
    if offset_map is not None:
        result = dataclasses.replace(result, config_file=config_file, options=[
            dataclasses.replace(
                o, index=offset_map[o.index],
                value_index=offset_map[o.value_index] if o.value_index is not None else None)
            for o in result.options])
    return result


def _remap(result: ParseResult, index_map: list[int]) -> ParseResult:
    def back(k: int | None) -> int | None:
        if k is None or k >= len(index_map):
            return k
        return max(index_map[k], 0)

    return dataclasses.replace(
        result, error_index=back(result.error_index),
        unrecognized_indices=[back(k) or 0 for k in result.unrecognized_indices],
        options=[dataclasses.replace(o, index=back(o.index) or 0, value_index=back(o.value_index))
                 for o in result.options])
