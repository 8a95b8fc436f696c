"""Emulate ``vllm serve`` argv parsing of one release, from its profile.

Two layers, like the engine: ``FlexibleArgumentParser.parse_args`` preprocessing (the
release's ``parser.rules``) and then CPython 3.11 ``argparse`` semantics over the
profile's actions (``engines.argparse_emul``), with vLLM's type conversions and JSON options.
Every option found is reported with the argv index of its flag token so callers can
map back to source spans.  The argv is what follows ``vllm serve``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from servelint.engines import argparse_emul
from servelint.engines.argparse_emul import (
    FLAG_KINDS,
    ArgFail,
    ParseResult,
    arg_name,
    consume,
    effective_nargs,
    table_for,
)
from servelint.engines.vllm.json_config import (
    JsonProblem,
    check_json_config,
    dotted_payload,
    dotted_value,
    field_value_check,
    human_int,
    json_config_problems,
    json_config_stage,
    option_bound_problem,
    option_value_problem,
    shadowed_json_values,
)
from servelint.profiles import Action, Profile

__all__ = ["FLAG_KINDS", "ParsedOption", "ParseResult", "JsonProblem", "parse",
           "check_json_config", "field_value_check", "option_bound_problem",
           "option_value_problem", "json_config_problems", "json_config_stage", "dotted_payload",
           "shadowed_json_values"]


@dataclass(frozen=True, eq=False, repr=False)  # (replaced, never compared: see the base)
class ParsedOption(argparse_emul.ParsedOption):
    """An option of a ``vllm serve`` argv, with its values after the action's type."""

    # the values after the action's own type= (a lambda that lower-cases, an optional()
    # that maps "None" to None, ...); None when the parser did not convert them
    typed: tuple[Any, ...] | None = None
    # the problems of its JSON value on the release, as the parse found them (None: not a
    # JSON option, or not one value): the rules and the verdicts read them here
    json_problems: tuple[JsonProblem, ...] | None = None


@dataclass(slots=True, eq=False)
class _Tok:
    """An argv token during vLLM's preprocessing, with the argv index it came from."""

    text: str
    index: int | None  # original argv index (None for synthesized JSON)
    written: str  # the original text of the flag token this came from
    dotted: list[tuple[str, str, int, int | None]] | None = None  # (key path, value, i, vi)


# ---- FlexibleArgumentParser preprocessing ---------------------------------------------------
def _dash_key(key: str) -> str:
    """`_` -> `-` between the leading `--` and the first `.` (re `(?<=--)[^\\.]*`)."""
    pos = key.find("--")
    if pos < 0:
        return key
    start = pos + 2
    end = key.find(".", start)
    end = len(key) if end < 0 else end
    return key[:start] + key[start:end].replace("_", "-") + key[end:]


def _merge(original: dict[str, Any], update: dict[str, Any]) -> None:
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(original.get(k), dict):
            _merge(original[k], v)
        elif isinstance(v, list) and isinstance(original.get(k), list):
            original[k] += v
        else:
            original[k] = v


def _preprocess(rules: dict[str, Any], argv: list[str], options: list[ParsedOption],
                profile: Profile, entry: str = "") -> tuple[list[_Tok], str | None]:
    toks = [_Tok(a, i, a) for i, a in enumerate(argv)]
    if entry != "api_server":  # ``vllm serve``'s own handling of --model (see ENTRIES)
        toks = _model_flag(rules, toks, options, profile)
    toks, config_file = _config_flag(rules, toks, options, profile)
    out = _rewrite_tokens(rules, toks)
    if rules.get("dotted_keys"):
        out = _fold_dotted(rules, out)
    return out, config_file


_MODEL_FLAG = re.compile(r"^--model(=.+|$)")
_CONFIG_FLAG = re.compile(r"^--config(=.+|$)")
_SERVED_NAME_FLAG = re.compile(r"^--served[-_]model[-_]name(=.+|$)")


def _model_flag(rules: dict[str, Any], toks: list[_Tok], options: list[ParsedOption],
                profile: Profile) -> list[_Tok]:
    """``--model X``: refused, or moved to the positional, as the release does."""
    texts = [t.text for t in toks]
    model_rule = rules.get("model_flag") or (
        "positional" if rules.get("model_flag_to_positional") else None)
    if model_rule == "error":
        for i, a in enumerate(texts):
            if a == "--model":
                raise ArgFail("With `vllm serve`, you should provide the model as a positional "
                            "argument or in a config file instead of via the `--model` option.",
                            i, "exception")
    elif model_rule == "positional":
        for i, a in enumerate(texts):
            if _MODEL_FLAG.match(a):
                if a == "--model":
                    if i + 1 >= len(toks):
                        raise ArgFail("IndexError: `--model` needs a value", i, "exception")
                    val_tok = toks[i + 1]
                    rest = i + 2
                else:
                    val_tok = _Tok(a.removeprefix("--model="), i, a)
                    rest = i + 1
                act = profile.by_dest.get("model")
                options.append(ParsedOption(act, a, "--model", val_tok.text, i, val_tok.index,
                                            False, False, None))
                toks = [_Tok(val_tok.text, val_tok.index, a)] + toks[:i] + toks[rest:]
                break
        texts = [t.text for t in toks]
        if rules.get("served_model_name_needs_model") and texts and texts[0].startswith("-") \
                and not any(_CONFIG_FLAG.match(a) for a in texts):
            for i, a in enumerate(texts):
                if _SERVED_NAME_FLAG.match(a):
                    raise ArgFail("`model` should be provided as the first positional argument "
                                "when using `vllm serve`.", toks[i].index, "exception")
    return toks


def _config_flag(rules: dict[str, Any], toks: list[_Tok], options: list[ParsedOption],
                 profile: Profile) -> tuple[list[_Tok], str | None]:
    """``--config FILE``: recorded and removed (its content cannot be known here)."""
    texts = [t.text for t in toks]
    config_file = None
    if rules.get("config_file") and "--config" in texts:
        if texts.count("--config") > 1:
            raise ArgFail("More than one config file specified!", None, "exception")
        i = texts.index("--config")
        if i == len(toks) - 1:
            raise ArgFail("No config file specified!", toks[i].index, "exception")
        config_file = toks[i + 1].text
        extensions = rules.get("config_extensions")
        extension = config_file.split(".")[-1]
        if extensions and extension not in extensions:
            raise ArgFail(f"Config file must be of a {'/'.join(extensions)} type. {extension} "
                        "supplied", toks[i + 1].index, "exception")
        act = profile.option_index.get("--config")
        options.append(ParsedOption(act, "--config", "--config", config_file, toks[i].index,
                                    toks[i + 1].index, False, False, None))
        toks = toks[:i] + toks[i + 2:]  # its content is not read (cannot be known)
    return toks, config_file


def _rewrite_tokens(rules: dict[str, Any], toks: list[_Tok]) -> list[_Tok]:
    """``--help=``, ``_`` -> ``-`` in long flags, and the ``-O`` shorthands."""
    out: list[_Tok] = []
    dash_o = rules.get("dash_O")
    o_values = set(rules.get("dash_O_values") or [])
    for i, t in enumerate(toks):
        a = t.text
        if a.startswith("--help=") and rules.get("help_equals", True):
            out.append(_Tok("--help", t.index, t.written))
        elif a.startswith("--") and rules.get("underscore_to_dash", True):
            if "=" in a:
                key, value = a.split("=", 1)
                out.append(_Tok(f"{_dash_key(key)}={value}", t.index, t.written))
            else:
                out.append(_Tok(_dash_key(a), t.index, t.written))
        elif dash_o and a.startswith("-O") and a != "-O" and not (
                rules.get("dash_O_dot_passthrough") and a[2] == "."):
            value = a[3:] if a[2] == "=" else a[2:]
            if dash_o == "optimization_level":
                out.append(_Tok("--optimization-level", t.index, a))
                out.append(_Tok(value, t.index, a))
            else:
                out.append(_Tok(f"-O.{rules.get('dash_O_key', 'level')}={value}", t.index, a))
        elif dash_o and a == "-O" and i + 1 < len(toks) and toks[i + 1].text in o_values:
            if dash_o == "optimization_level":
                out.append(_Tok("--optimization-level", t.index, a))
            else:
                out.append(_Tok(f"-O.{rules.get('dash_O_key', 'level')}", t.index, a))
        elif rules.get("dash_O_dot_alias") and a.startswith("-O."):
            out.append(_Tok(rules["dash_O_dot_alias"] + a[2:], t.index, a))
        else:
            out.append(t)
    return out


def _fold_dotted(rules: dict[str, Any], toks: list[_Tok]) -> list[_Tok]:
    prefix = rules.get("dotted_prefix") or "--"
    delete: set[int] = set()
    groups: dict[str, tuple[dict[str, Any], _Tok, list[tuple[str, str, int, int | None]]]] = {}
    for i, t in enumerate(toks):
        if i in delete:
            continue
        arg = t.text
        if not (arg.startswith(prefix) and "." in arg):
            continue
        value_tok: _Tok | None
        if "=" in arg:
            arg, value_str = arg.split("=", 1)
            if "." not in arg:
                continue
            value_tok = None
        else:
            if i + 1 >= len(toks):
                raise ArgFail("IndexError: list index out of range (a dotted key or a negative "
                            "decimal needs a following value)", t.index, "exception")
            value_tok = toks[i + 1]
            value_str = value_tok.text
            delete.add(i + 1)
        if rules.get("list_append_plus") and arg.endswith("+"):
            arg = arg[:-1]
            value_str = json.dumps(list(value_str.split(",")))
        key, *keys = arg.split(".")
        nested: Any = dotted_value(rules, value_str)
        for k in reversed(keys):
            nested = {k: nested}
        if key not in groups:
            groups[key] = ({}, t, [])
        _merge(groups[key][0], nested)
        vi = value_tok.index if value_tok is not None else t.index
        groups[key][2].append((".".join(keys), value_str, t.index if t.index is not None else -1,
                               vi))
        delete.add(i)
    kept = [t for i, t in enumerate(toks) if i not in delete]
    for key, (payload, first, parts) in groups.items():
        kept.append(_Tok(key, first.index, first.written, dotted=parts))
        kept.append(_Tok(json.dumps(payload), None, first.written))
    return kept


# ---- argparse (CPython 3.11, engines.argparse_emul) with vLLM's values ----------------------
_INT_RE = re.compile(r"^\s*[+-]?(\d(_?\d)*)\s*$")


def _convert(act: Action, value: str) -> tuple[bool, Any, str]:
    """(ok, converted, error message) for one value through the action's type."""
    raw = act.raw
    if raw.get("optional") and value in ("", "None"):
        return True, None, ""
    sentinels = raw.get("type_sentinels") or {}
    if value.lower() in sentinels:  # the release's type= maps it (e.g. "none" -> "")
        return True, sentinels[value.lower()], ""
    t = raw.get("type")
    trepr = raw.get("type_repr") or ""
    base = trepr
    while base.startswith(("optional(", "parse(")):
        base = base[base.index("(") + 1: -1]
    wrapped = trepr.startswith(("optional(", "parse("))
    name = arg_name(act)
    if t in ("int",) or base == "int":
        if _INT_RE.match(value):
            return True, int(value.strip().replace("_", "")), ""
        msg = (f"Value {value} cannot be converted to <class 'int'>." if wrapped
               else f"invalid int value: {value!r}")
        return False, None, f"argument {name}: {msg}"
    if t == "float" or base == "float":
        try:
            return True, float(value), ""
        except ValueError:
            msg = (f"Value {value} cannot be converted to <class 'float'>." if wrapped
                   else f"invalid float value: {value!r}")
            return False, None, f"argument {name}: {msg}"
    if base in ("human_readable_int", "human_readable_int_or_auto"):
        v = value.strip()
        if base.endswith("_or_auto") and (v == "-1" or v.lower() == "auto"):
            return True, -1, ""
        try:
            return True, human_int(v), ""
        except ValueError:
            return False, None, f"argument {name}: invalid {base} value: {value!r}"
    if base in ("json.loads",):
        try:
            return True, json.loads(value), ""
        except ValueError:
            return False, None, f"argument {name}: invalid JSON: {value!r}"
    if base == "union_dict_and_str":
        if re.match(r"(?s)^\s*{.*}\s*$", value):
            try:
                return True, json.loads(value), ""
            except ValueError:
                return False, None, f"argument {name}: invalid JSON: {value!r}"
        return True, value, ""
    if base == "lambda":
        applied = _apply_lambda(raw.get("type_lambda") or "", value)
        return True, value if applied is None else applied, ""
    return True, value, ""


def _apply_lambda(src: str, value: str) -> str | None:
    """Apply the simple string-method chain of a ``type=lambda s: s.lower()...``;
    None when the lambda is anything else (its effect is then unknown)."""
    m = re.match(r"lambda (\w+): \1((?:\.\w+\([^()]*\))*)$", src.strip())
    if not m:
        return None
    out = value
    for meth, args in re.findall(r"\.(\w+)\(([^()]*)\)", m.group(2)):
        lits = re.findall(r"'([^']*)'|\"([^\"]*)\"", args)
        strs = [a or b for a, b in lits]
        if meth in ("lower", "upper", "strip") and not strs:
            out = getattr(out, meth)()
        elif meth == "replace" and len(strs) == 2:
            out = out.replace(strs[0], strs[1])
        else:
            return None
    return out


KNOWN_TYPES = {"int", "float", "str", "bool", "human_readable_int", "human_readable_int_or_auto",
               "json.loads", "union_dict_and_str", "lambda"}


def _check_choice(act: Action, converted: Any, value: str) -> str | None:
    choices = act.raw.get("choices")
    if choices is None or act.raw.get("choices_open"):
        return None
    trepr = act.raw.get("type_repr") or "str"
    base = re.sub(r"^(optional\(|parse\()+|\)+$", "", trepr)
    if base not in KNOWN_TYPES or (base == "lambda" and _apply_lambda(
            act.raw.get("type_lambda") or "", "x") is None):
        return None  # an unknown conversion runs first: the choices cannot be judged
    if converted is None:
        if act.raw.get("choices_none"):
            return None
    elif str(converted) in choices or (isinstance(converted, float) and converted.is_integer()
                                       and str(int(converted)) in choices):
        return None
    shown = ", ".join(repr(c) for c in choices)
    return f"argument {arg_name(act)}: invalid choice: {converted!r} (choose from {shown})"


class _Take:
    """Store one action's values as vLLM's argparse types would (or raise ArgFail)."""

    def __init__(self, profile: Profile, toks: list[_Tok], options: list[ParsedOption],
                 argv: list[str]):
        self.profile, self.toks, self.options, self.argv = profile, toks, options, argv
        self.positionals: list[str] = []

    def __call__(self, act: Action, vals: list[str], flag_i: int | None, opt: str,
                 abbreviated: bool, value_pos: int | None, explicit: bool) -> None:
        toks, profile, options = self.toks, self.profile, self.options
        value_i = toks[value_pos].index if value_pos is not None else None
        converted: list[Any] = []
        for v in vals:
            ok, conv, msg = _convert(act, v)
            if not ok:
                raise ArgFail(msg, value_i if value_i is not None else flag_i)
            err = _check_choice(act, conv, v)
            if err:
                raise ArgFail(err, value_i if value_i is not None else flag_i)
            converted.append(conv)
        tok = toks[flag_i] if flag_i is not None else None
        value: str | list[str] | None
        nargs = effective_nargs(act)
        if nargs in (None, "?") and len(vals) == 1:
            value = vals[0]
        elif nargs == "?" and not vals:
            value = None  # the const (or the default for a positional)
        elif nargs == 0:
            value = None
        else:
            value = list(vals)
        problems: tuple[JsonProblem, ...] | None = None
        if act.raw.get("json_dataclass") or act.raw.get("type") == "json":
            for v in vals:
                probs = json_config_problems(profile, act, v)
                problems = probs if value is v else None
                bad = [pr for pr in probs if pr.stage == "parse"]
                if bad:
                    where = tok.index if tok else None
                    for path, _raw, fi, _vi in (tok.dotted or []) if tok else []:
                        full = f"{act.dest}.{path}"
                        if bad[0].path == full or bad[0].path.startswith(full + "."):
                            where = fi
                            break
                    raise ArgFail(f"argument {arg_name(act)}: {bad[0].message}", where)
        if tok is not None and tok.dotted:
            for path, raw_value, fi, vi in tok.dotted:
                options.append(ParsedOption(act, _written_at(self.argv, fi, tok), opt, raw_value,
                                            fi, vi, abbreviated, True,
                                            f"{act.dest}.{path}" if path else act.dest))
        elif act.raw.get("positional"):
            if isinstance(value, str):
                self.positionals.append(value)
        else:
            options.append(ParsedOption(act, tok.written if tok else opt, opt, value,
                                        tok.index if tok else -1, value_i, abbreviated, False,
                                        None, tuple(converted), problems))



def _argparse(profile: Profile, toks: list[_Tok], options: list[ParsedOption],
              argv_texts: list[str]) -> tuple[list[str], list[str], list[int | None]]:
    take = _Take(profile, toks, options, argv_texts)
    left = consume(table_for(profile), [t.text for t in toks], [t.index for t in toks], take)
    return take.positionals, left.texts, [toks[k].index for k in left.positions]


def _written_at(argv: list[str], index: int, tok: _Tok) -> str:
    """The flag as written at argv[index] (each dotted part has its own token)."""
    return argv[index] if 0 <= index < len(argv) else tok.written


# entrypoints whose sub-command checks the parsed namespace before anything is built
# (ServeSubcommand.validate; the profile's ``serve_checks``): a launch the Dynamo worker
# parses with the same options never runs them, so the argv memo keys the two apart
ENTRIES = {
    "vllm serve": "serve",
    # the OpenAI server module: FlexibleArgumentParser.parse_args refuses ``--model`` only
    # when argv[0] is "serve" (0.10.1.1 vllm/utils/__init__.py:1775); here it is an option
    "python -m vllm.entrypoints.openai.api_server": "api_server",
}
# entries parsed as the default parse is (the argv memo shares their parses)
SAME_PARSE_ENTRIES = frozenset({"serve"})


def parse(profile: Profile, argv: list[str], entry: str = "") -> ParseResult:
    """Parse ``argv`` (what follows ``vllm serve``) as the profile's release would (``entry``
    names the entrypoint, ``ENTRIES``; the parse is the same for each)."""
    options: list[ParsedOption] = []
    rules = profile.rules
    config_file = None
    try:
        main_fail = _main_stage(profile, argv)
        if main_fail:
            raise main_fail
        toks, config_file = _preprocess(rules, list(argv), options, profile, entry)
        positionals, extras, extras_idx = _argparse(profile, toks, options, list(argv))
    except ArgFail as fail:
        return ParseResult(False, fail.message, fail.index, options, [], fail.kind, config_file,
                           stage=fail.stage)
    if extras:
        first = next((i for i in extras_idx if i is not None), None)
        known = all(i is not None and i >= 0 for i in extras_idx)
        return ParseResult(False, "unrecognized arguments: " + " ".join(extras), first,
                           options, positionals, "argparse", config_file, list(extras),
                           stage="parse",
                           unrecognized_indices=list(extras_idx) if known else [])
    return ParseResult(True, None, None, options, positionals, None, config_file)


def _main_stage(profile: Profile, argv: list[str]) -> ArgFail | None:
    """``vllm`` main hands ``--omni`` to vllm-omni in releases that have that hook."""
    if profile.rules.get("omni_handoff") and "--omni" in argv:
        return ArgFail("--omni flag requires a valid instance of vllm-omni to be installed.",
                     argv.index("--omni"), "exception", "main")
    return None
