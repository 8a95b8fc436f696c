"""Emulate ``vllm serve`` argv parsing of one release, from its profile.

Two layers, like the engine: ``FlexibleArgumentParser.parse_args`` preprocessing (the
release's ``parser.rules``) and then CPython 3.11 ``argparse`` semantics over the
profile's actions (prefix matching, nargs patterns, type conversion, choices).
Every option found is reported with the argv index of its flag token so callers can
map back to source spans.  The argv is what follows ``vllm serve``.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from servelint.profiles import Action, Profile

__all__ = ["ParsedOption", "ParseResult", "JsonProblem", "parse", "check_json_config",
           "json_config_problems", "json_config_stage"]

NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
FLAG_KINDS = {"store_true", "store_false", "store_const", "boolean_optional", "count", "help",
              "version", "append_const"}


@dataclass(frozen=True)
class ParsedOption:
    action: Action | None
    written: str  # the flag as written in argv (before any rewriting)
    canonical: str  # the option string argparse matched (or the written one when unknown)
    value: str | list[str] | None
    index: int  # argv index of the flag token
    value_index: int | None  # argv index of the (first) value token
    abbreviated: bool
    dotted: bool
    config_path: str | None


@dataclass(frozen=True)
class ParseResult:
    ok: bool
    error: str | None
    error_index: int | None
    options: list[ParsedOption]
    positionals: list[str]
    # how the real CLI fails: "argparse" (exit 2) or "exception" (traceback, exit 1)
    error_kind: str | None = None
    config_file: str | None = None  # --config FILE: recorded, not read
    unrecognized: list[str] = field(default_factory=list)
    stage: str | None = None  # where a failure happens: "main" (the vllm entry) | "parse"


class _Fail(Exception):
    def __init__(self, message: str, index: int | None, kind: str = "argparse",
                 stage: str = "parse"):
        super().__init__(message)
        self.message = message
        self.index = index
        self.kind = kind
        self.stage = stage


@dataclass
class _Tok:
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


def _human_int(value: str) -> int:
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


def _merge(original: dict[str, Any], update: dict[str, Any]) -> None:
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(original.get(k), dict):
            _merge(original[k], v)
        elif isinstance(v, list) and isinstance(original.get(k), list):
            original[k] += v
        else:
            original[k] = v


def _preprocess(rules: dict[str, Any], argv: list[str], options: list[ParsedOption],
                profile: Profile) -> tuple[list[_Tok], str | None]:
    toks = [_Tok(a, i, a) for i, a in enumerate(argv)]
    texts = [t.text for t in toks]
    model_rule = rules.get("model_flag") or (
        "positional" if rules.get("model_flag_to_positional") else None)
    if model_rule == "error":
        for i, a in enumerate(texts):
            if a == "--model":
                raise _Fail("With `vllm serve`, you should provide the model as a positional "
                            "argument or in a config file instead of via the `--model` option.",
                            i, "exception")
    elif model_rule == "positional":
        for i, a in enumerate(texts):
            if re.match(r"^--model(=.+|$)", a):
                if a == "--model":
                    if i + 1 >= len(toks):
                        raise _Fail("IndexError: `--model` needs a value", i, "exception")
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
                and not any(re.match(r"^--config(=.+|$)", a) for a in texts):
            for i, a in enumerate(texts):
                if re.match(r"^--served[-_]model[-_]name(=.+|$)", a):
                    raise _Fail("`model` should be provided as the first positional argument "
                                "when using `vllm serve`.", toks[i].index, "exception")
    config_file = None
    if rules.get("config_file") and "--config" in texts:
        if texts.count("--config") > 1:
            raise _Fail("More than one config file specified!", None, "exception")
        i = texts.index("--config")
        if i == len(toks) - 1:
            raise _Fail("No config file specified!", toks[i].index, "exception")
        config_file = toks[i + 1].text
        extensions = rules.get("config_extensions")
        extension = config_file.split(".")[-1]
        if extensions and extension not in extensions:
            raise _Fail(f"Config file must be of a {'/'.join(extensions)} type. {extension} "
                        "supplied", toks[i + 1].index, "exception")
        act = profile.option_index.get("--config")
        options.append(ParsedOption(act, "--config", "--config", config_file, toks[i].index,
                                    toks[i + 1].index, False, False, None))
        toks = toks[:i] + toks[i + 2:]  # its content is not read (cannot be known)
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
    if rules.get("dotted_keys"):
        out = _fold_dotted(rules, out)
    return out, config_file


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
                raise _Fail("IndexError: list index out of range (a dotted key or a negative "
                            "decimal needs a following value)", t.index, "exception")
            value_tok = toks[i + 1]
            value_str = value_tok.text
            delete.add(i + 1)
        if rules.get("list_append_plus") and arg.endswith("+"):
            arg = arg[:-1]
            value_str = json.dumps(list(value_str.split(",")))
        key, *keys = arg.split(".")
        try:
            value: Any = json.loads(value_str)
        except json.JSONDecodeError:
            value = value_str
            if rules.get("dotted_human_int"):
                try:
                    value = _human_int(value_str)
                except ValueError:
                    value = value_str
        nested: Any = value
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


# ---- argparse (CPython 3.11) --------------------------------------------------------------
class _Parser:
    def __init__(self, profile: Profile):
        self.profile = profile
        self.allow_abbrev = profile.allow_abbrev
        self.strings: dict[str, Action] = {}
        for act in profile.actions:
            for s in act.accepted:
                self.strings.setdefault(s, act)
        self.positionals = [a for a in profile.actions if a.raw.get("positional")]
        self.has_negative_like = any(NEGATIVE_NUMBER.match(s) for s in self.strings)

    def option_tuples(self, arg: str) -> list[tuple[Action, str, str | None]]:
        result = []
        if arg[0] == "-" and len(arg) > 1 and arg[1] == "-":
            if self.allow_abbrev:
                prefix, explicit = arg.split("=", 1) if "=" in arg else (arg, None)
                for s, act in self.strings.items():
                    if s.startswith(prefix):
                        result.append((act, s, explicit))
        elif arg[0] == "-":
            short_prefix, short_explicit = arg[:2], arg[2:]
            for s, act in self.strings.items():
                if s == short_prefix:
                    result.append((act, s, short_explicit))
                elif s.startswith(arg):
                    result.append((act, s, None))
        return result

    def parse_optional(self, arg: str, index: int | None):
        """None (positional) or (action|None, option_string, explicit_arg, abbreviated)."""
        if not arg or arg[0] != "-":
            return None
        if arg in self.strings:
            return self.strings[arg], arg, None, False
        if len(arg) == 1:
            return None
        if "=" in arg:
            opt, explicit = arg.split("=", 1)
            if opt in self.strings:
                return self.strings[opt], opt, explicit, False
        tuples = self.option_tuples(arg)
        if len(tuples) > 1:
            matches = ", ".join(s for _, s, _ in tuples)
            raise _Fail(f"ambiguous option: {arg} could match {matches}", index)
        if len(tuples) == 1:
            act, s, explicit = tuples[0]
            return act, s, explicit, True
        if NEGATIVE_NUMBER.match(arg) and not self.has_negative_like:
            return None
        if " " in arg:
            return None
        return None, arg, None, False


def _nargs_pattern(nargs: Any, optional: bool) -> str:
    if nargs is None:
        p = "(-*A-*)"
    elif nargs == "?":
        p = "(-*A?-*)"
    elif nargs == "*":
        p = "(-*[A-]*)"
    elif nargs == "+":
        p = "(-*A[A-]*)"
    elif nargs == "...":
        p = "([-AO]*)"
    elif nargs == "A...":
        p = "(-*A[-AO]*)"
    elif isinstance(nargs, int):
        p = "(-*" + "-*".join("A" * nargs) + "-*)"
    else:
        p = "(-*A-*)"
    if optional:
        p = p.replace("-*", "").replace("-", "")
    return p


def _expected_message(nargs: Any) -> str:
    if nargs is None:
        return "expected one argument"
    if nargs == "?":
        return "expected at most one argument"
    if nargs == "+":
        return "expected at least one argument"
    if isinstance(nargs, int):
        return f"expected {nargs} argument{'s' if nargs != 1 else ''}"
    return "expected arguments"


def _effective_nargs(act: Action) -> Any:
    if act.kind in FLAG_KINDS:
        return 0
    return act.raw.get("nargs")


def _arg_name(act: Action) -> str:
    if act.raw.get("positional"):
        return act.dest
    return "/".join(act.option_strings) or act.dest


_INT_RE = re.compile(r"^\s*[+-]?(\d(_?\d)*)\s*$")


def _convert(act: Action, value: str) -> tuple[bool, Any, str]:
    """(ok, converted, error message) for one value through the action's type."""
    raw = act.raw
    if raw.get("optional") and value in ("", "None"):
        return True, None, ""
    t = raw.get("type")
    trepr = raw.get("type_repr") or ""
    base = trepr
    while base.startswith(("optional(", "parse(")):
        base = base[base.index("(") + 1: -1]
    wrapped = trepr.startswith(("optional(", "parse("))
    name = _arg_name(act)
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
            return True, _human_int(v), ""
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
    return f"argument {_arg_name(act)}: invalid choice: {converted!r} (choose from {shown})"


_PARSERS: dict[int, tuple[Profile, _Parser]] = {}


def _parser_for(profile: Profile) -> _Parser:
    cached = _PARSERS.get(id(profile))
    if cached is None or cached[0] is not profile:
        if len(_PARSERS) > 64:
            _PARSERS.clear()
        cached = (profile, _Parser(profile))
        _PARSERS[id(profile)] = cached
    return cached[1]


def _argparse(profile: Profile, toks: list[_Tok], options: list[ParsedOption],
              argv_texts: list[str]) -> tuple[list[str], list[str], list[int | None]]:
    p = _parser_for(profile)
    pattern_chars: list[str] = []
    found: dict[int, tuple[Action | None, str, str | None, bool]] = {}
    seen_dashdash = False
    for i, t in enumerate(toks):
        if seen_dashdash:
            pattern_chars.append("A")
            continue
        if t.text == "--":
            seen_dashdash = True
            pattern_chars.append("-")
            continue
        tup = p.parse_optional(t.text, t.index)
        if tup is None:
            pattern_chars.append("A")
        else:
            found[i] = tup
            pattern_chars.append("O")
    pattern = "".join(pattern_chars)
    texts = [t.text for t in toks]
    extras: list[str] = []
    extras_idx: list[int | None] = []
    positionals: list[str] = []
    pending_pos = list(p.positionals)

    def take(act: Action, vals: list[str], flag_i: int | None, opt: str, abbreviated: bool,
             value_i: int | None):
        vals = [v for v in vals]
        if _effective_nargs(act) not in ("...", "A...") and "--" in vals:
            vals.remove("--")
        converted: list[Any] = []
        for v in vals:
            ok, conv, msg = _convert(act, v)
            if not ok:
                raise _Fail(msg, value_i if value_i is not None else flag_i)
            err = _check_choice(act, conv, v)
            if err:
                raise _Fail(err, value_i if value_i is not None else flag_i)
            converted.append(conv)
        tok = toks[flag_i] if flag_i is not None else None
        value: str | list[str] | None
        nargs = _effective_nargs(act)
        if nargs in (None, "?") and len(vals) == 1:
            value = vals[0]
        elif nargs == "?" and not vals:
            value = None  # the const (or the default for a positional)
        elif nargs == 0:
            value = None
        else:
            value = list(vals)
        if act.raw.get("json_dataclass") or act.raw.get("type") == "json":
            for v in vals:
                probs = json_config_problems(profile, act, v)
                bad = [pr for pr in probs if pr.stage == "parse"]
                if bad:
                    where = tok.index if tok else None
                    for path, _raw, fi, _vi in (tok.dotted or []) if tok else []:
                        full = f"{act.dest}.{path}"
                        if bad[0].path == full or bad[0].path.startswith(full + "."):
                            where = fi
                            break
                    raise _Fail(f"argument {_arg_name(act)}: {bad[0].message}", where)
        if tok is not None and tok.dotted:
            for path, raw_value, fi, vi in tok.dotted:
                options.append(ParsedOption(act, _written_at(argv_texts, fi, tok), opt, raw_value,
                                            fi, vi, abbreviated, True,
                                            f"{act.dest}.{path}" if path else act.dest))
        elif act.raw.get("positional"):
            if isinstance(value, str):
                positionals.append(value)
        else:
            options.append(ParsedOption(act, tok.written if tok else opt, opt, value,
                                        tok.index if tok else -1, value_i, abbreviated, False,
                                        None))

    def consume_optional(start: int) -> int:
        act, opt, explicit, abbreviated = found[start]
        if act is None:
            extras.append(texts[start])
            extras_idx.append(toks[start].index)
            return start + 1
        if explicit is not None:
            nargs = _effective_nargs(act)
            arg_count = _match(nargs, "A")
            if arg_count == 0 and opt[1] != "-" and explicit != "":
                # single-dash combined short flags (-xyz): no such flags in vLLM; argparse
                # tries the next char as another short option
                nxt = "-" + explicit[0]
                if nxt in p.strings:
                    take(act, [], start, opt, abbreviated, None)
                    found[start] = (p.strings[nxt], nxt, explicit[1:] or None, False)
                    return consume_optional(start)
                raise _Fail(f"argument {_arg_name(act)}: ignored explicit argument "
                            f"{explicit!r}", toks[start].index)
            if arg_count == 1:
                take(act, [explicit], start, opt, abbreviated, toks[start].index)
                return start + 1
            raise _Fail(f"argument {_arg_name(act)}: ignored explicit argument {explicit!r}",
                        toks[start].index)
        nargs = _effective_nargs(act)
        count = _match(nargs, pattern, optional=True, pos=start + 1)  # no copy of the tail
        if count is None:
            raise _Fail(f"argument {_arg_name(act)}: {_expected_message(nargs)}",
                        toks[start].index)
        vals = texts[start + 1: start + 1 + count]
        vi = toks[start + 1].index if count else None
        take(act, vals, start, opt, abbreviated, vi)
        return start + 1 + count

    def consume_positionals(start: int) -> int:
        nonlocal pending_pos
        selected = pattern[start:]
        counts = _match_partial([_effective_nargs(a) for a in pending_pos], selected)
        idx = start
        for act, count in zip(list(pending_pos), counts, strict=False):
            vals = texts[idx: idx + count]
            take(act, vals, None, act.dest, False, toks[idx].index if count else None)
            idx += count
        pending_pos = pending_pos[len(counts):]
        return idx

    option_indices = sorted(found)
    max_opt = option_indices[-1] if option_indices else -1
    start = 0
    while start <= max_opt:
        next_opt = option_indices[bisect_left(option_indices, start)]  # argparse's min(), in log n
        if start != next_opt:
            end = consume_positionals(start)
            if end > start:
                start = end
                continue
            start = end
        if start not in found:
            extras.extend(texts[start:next_opt])
            extras_idx.extend(t.index for t in toks[start:next_opt])
            start = next_opt
        start = consume_optional(start)
    stop = consume_positionals(start)
    extras.extend(texts[stop:])
    extras_idx.extend(t.index for t in toks[stop:])
    return positionals, extras, extras_idx


def _written_at(argv: list[str], index: int, tok: _Tok) -> str:
    """The flag as written at argv[index] (each dotted part has its own token)."""
    return argv[index] if 0 <= index < len(argv) else tok.written


def _match(nargs: Any, selected: str, optional: bool = True, pos: int = 0) -> int | None:
    m = re.compile(_nargs_pattern(nargs, optional)).match(selected, pos)
    return len(m.group(1)) if m else None


def _match_partial(nargs_list: list[Any], selected: str) -> list[int]:
    for i in range(len(nargs_list), 0, -1):
        pat = "".join(_nargs_pattern(n, False) for n in nargs_list[:i])
        m = re.match(pat, selected)
        if m is not None:
            return [len(g) for g in m.groups()]
    return []


def parse(profile: Profile, argv: list[str]) -> ParseResult:
    """Parse ``argv`` (what follows ``vllm serve``) as the profile's release would."""
    options: list[ParsedOption] = []
    rules = profile.rules
    config_file = None
    try:
        main_fail = _main_stage(profile, argv)
        if main_fail:
            raise main_fail
        toks, config_file = _preprocess(rules, list(argv), options, profile)
        positionals, extras, extras_idx = _argparse(profile, toks, options, list(argv))
    except _Fail as fail:
        return ParseResult(False, fail.message, fail.index, options, [], fail.kind, config_file,
                           stage=fail.stage)
    if extras:
        first = next((i for i in extras_idx if i is not None), None)
        return ParseResult(False, "unrecognized arguments: " + " ".join(extras), first,
                           options, positionals, "argparse", config_file, list(extras),
                           stage="parse")
    return ParseResult(True, None, None, options, positionals, None, config_file)


def _main_stage(profile: Profile, argv: list[str]) -> _Fail | None:
    """``vllm`` main hands ``--omni`` to vllm-omni in releases that have that hook."""
    if profile.rules.get("omni_handoff") and "--omni" in argv:
        return _Fail("--omni flag requires a valid instance of vllm-omni to be installed.",
                     argv.index("--omni"), "exception", "main")
    return None


# ---- JSON config values ------------------------------------------------------------------
@dataclass(frozen=True)
class JsonProblem:
    message: str
    stage: str  # parse | engine_config | unknown
    path: str  # dotted config path ("attention_config.backend"), or the dest


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


def json_config_problems(profile: Profile, action: Action, value_text: str
                         ) -> list[JsonProblem]:
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
                return []
        json_stage = "parse" if action.raw.get("type") in ("json", "json_dataclass") else stage
        return [JsonProblem(f"invalid JSON: {exc}", json_stage, base)]
    cls = json_config_class(profile, action)
    if cls is None:
        return []
    out: list[JsonProblem] = []
    if not isinstance(value, dict):
        if value is None and trepr.startswith("optional("):
            return []
        out.append(JsonProblem(f"expected a JSON object for {cls}", stage, base))
        return out
    _check_object(profile, cls, value, base, stage, out)
    return out


def check_json_config(profile: Profile, action: Action, value_text: str) -> list[str]:
    """Problems of a JSON config value: bad JSON, unknown keys, disallowed values.

    Each message ends with the stage at which the real engine rejects it
    (``json_config_problems`` gives the stage as data)."""
    return [f"{p.path}: {p.message} [{p.stage}]"
            for p in json_config_problems(profile, action, value_text)]


def _expand_human_numbers(val: str) -> str:
    parts = re.split(r'("(?:[^"\\]|\\.)*")', val)
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"\b\d+(?:\.\d+)?[kKmMgGtT]\b",
                          lambda m: str(_safe_human(m.group())), parts[i])
    return "".join(parts)


def _safe_human(text: str) -> str:
    try:
        return str(_human_int(text))
    except ValueError:
        return text


def _check_object(profile: Profile, cls: str, value: dict[str, Any], path: str, stage: str,
                  out: list[JsonProblem]) -> None:
    spec = profile.configs.get(cls)
    if spec is None:
        return
    fields = spec.get("fields", {})
    for key, item in value.items():
        sub = f"{path}.{key}"
        f = fields.get(key)
        if f is not None and f.get("init") is False and spec.get("extra") == "forbid":
            if spec.get("keys_checked", True):  # field(init=False): not a keyword
                out.append(JsonProblem(f"{key!r} of {cls} cannot be set (the field is not "
                                       "a constructor argument)", stage, sub))
            continue
        if f is None:
            if spec.get("extra") == "forbid" and spec.get("keys_checked", True):
                out.append(JsonProblem(f"unknown key {key!r} for {cls} (extra keys are "
                                       "forbidden)", stage, sub))
            continue
        nested = f.get("config")
        if nested and isinstance(item, dict):
            _check_object(profile, nested, item, sub, stage, out)
            continue
        msg = _value_problem(f.get("value_check"), item)
        if msg is None and spec.get("extra") == "forbid":  # a pydantic config class
            msg = _bool_problem(f.get("type"), item) or _dict_problem(f.get("type"), item)
        if msg:
            out.append(JsonProblem(f"{cls}.{key}: {msg}", stage, sub))


# What pydantic (v2, lax mode) accepts for a ``bool`` field besides True/False and 0/1:
# these strings, compared lower-cased (pydantic documentation, "Booleans").
PYDANTIC_BOOL_STRINGS = frozenset({"0", "off", "f", "false", "n", "no",
                                   "1", "on", "t", "true", "y", "yes"})
BOOL_TYPES = frozenset({"bool", "bool | None", "Optional[bool]"})


def _dict_problem(annotation: str | None, item: Any) -> str | None:
    """A scalar or list given to a field whose every type is a dict (or None): pydantic wants
    an object there and does not read a JSON string as one."""
    parts = [p.strip() for p in (annotation or "").split("|")]
    if not parts or not all(p == "dict" or p.startswith("dict[") or p == "None" for p in parts):
        return None
    if item is None or isinstance(item, dict):
        return None
    return f"{item!r} is not an object (the field is {annotation})"


def _bool_problem(annotation: str | None, item: Any) -> str | None:
    """A value a pydantic ``bool`` field refuses: a string it cannot interpret, or a list or
    object. Numbers are left alone (pydantic's handling of them varies between versions)."""
    if annotation not in BOOL_TYPES:
        return None
    if isinstance(item, str) and item.strip().lower() not in PYDANTIC_BOOL_STRINGS:
        return f"{item!r} is not a valid boolean"
    if isinstance(item, (list, dict)):
        return f"{item!r} is not a valid boolean"
    return None


def _value_problem(check: dict[str, Any] | None, item: Any) -> str | None:
    if not check:
        return None
    kind = check.get("check")
    if item is None:
        return None if check.get("none", True) else "None is not allowed"
    if kind == "literal":
        values = check.get("values") or []
        # pydantic's lax mode may coerce "3" to 3: only plainly different values are judged
        if any(item == v or str(item) == str(v) for v in values):
            return None
        return f"{item!r} is not one of {values}"
    if kind == "number":
        if isinstance(item, bool):
            return None
        if isinstance(item, (int, float)):
            return None
        if isinstance(item, str):
            try:
                float(item)
                return None
            except ValueError:
                return f"{item!r} is not a number"
        return None
    if kind == "enum_name_ci":
        if not isinstance(item, str):
            return None
        if item.lower() in {s.lower() for s in check.get("specials", [])}:
            return None
        if item.upper() in set(check.get("values") or []):
            return None
        return f"unknown name {item!r} (one of {check.get('values')})"
    if kind == "enum_value":
        values = check.get("values") or []
        return None if item in values else f"{item!r} is not one of {values}"
    return None
