"""CPython 3.11 ``argparse`` over a release profile's actions: the part vLLM and SGLang share.

Both engines parse their argv with a plain ``argparse`` parser (vLLM's
``FlexibleArgumentParser`` rewrites argv first; SGLang may merge a ``--config`` YAML first).
This module re-states what argparse does with the rewritten argv: classifying each token
(``_parse_optional``: exact strings, ``--opt=value``, unique prefixes, negative numbers),
matching nargs patterns (``consume_optional`` / ``consume_positionals``), dropping ``--``,
required actions and leftover ("unrecognized") tokens. What an engine does with a value
(its type conversions, choices, JSON) is the engine's ``take`` callback.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from servelint.profiles import Action, Profile

NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
# action kinds that take no value
FLAG_KINDS = frozenset(
    {
        "store_true",
        "store_false",
        "store_const",
        "boolean_optional",
        "count",
        "help",
        "version",
        "append_const",
    }
)
_EXIT_CODES = {"argparse": 2, "exception": 1, "help": 0}


# The two records below are dataclasses for ``dataclasses.replace`` (the argv models remap
# them), without generated __eq__/__repr__: nothing compares or prints one (each would cost
# every run its compile at import). The engines' subclasses keep theirs.
@dataclass(frozen=True, eq=False, repr=False)
class ParsedOption:
    """One option of an argv as argparse would take it."""

    action: Action | None
    written: str  # the flag as written in argv (before any rewriting)
    canonical: str  # the option string argparse matched (or the written one when unknown)
    value: str | list[str] | None
    index: int  # argv index of the flag token
    value_index: int | None  # argv index of the (first) value token
    abbreviated: bool
    dotted: bool
    config_path: str | None


@dataclass(frozen=True, eq=False, repr=False)
class ParseResult:
    """An argv parsed as the engine's argparse parser would parse it."""

    ok: bool
    error: str | None
    error_index: int | None
    options: list[ParsedOption]
    positionals: list[str]
    # how the real CLI fails: "argparse" (exit 2), "exception" (traceback, exit 1), "help"
    error_kind: str | None = None
    config_file: str | None = None  # --config FILE: recorded (vLLM: not read)
    unrecognized: list[str] = field(default_factory=list)
    stage: str | None = None  # where a failure happens: "main" (the CLI entry) | "parse"
    # argv indices of the unrecognized tokens (argparse lists them all at once: the linter
    # drops them all in one round); empty when not every one maps to the argv
    unrecognized_indices: list[int] = field(default_factory=list)


class ArgFail(Exception):
    """The parse stops: ``kind`` says how the real CLI ends (see ``ParseResult.error_kind``)."""

    def __init__(
        self, message: str, index: int | None, kind: str = "argparse", stage: str = "parse"
    ):
        super().__init__(message)
        self.message = message
        self.index = index
        self.kind = kind
        self.stage = stage
        self.extras: list[int] = []  # positions of unrecognized tokens, when that is the error

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES[self.kind]


# ---- the parser's option strings (argparse _parse_optional) --------------------------------
class OptionTable:
    def __init__(self, profile: Profile):
        self.allow_abbrev = profile.allow_abbrev
        self.strings: dict[str, Action] = {}
        for act in profile.actions:
            for s in act.accepted:
                self.strings.setdefault(s, act)
        self.positionals = [a for a in profile.actions if a.raw.get("positional")]
        self.required = [a for a in profile.actions if a.raw.get("required")]
        self.has_negative_like = any(NEGATIVE_NUMBER.match(s) for s in self.strings)
        # prefix lookups by bisection (a launch of 600 unknown flags, parsed again per
        # round, would scan every option string per flag); matches keep argparse's order
        self._sorted = sorted(self.strings)
        self._order = {s: i for i, s in enumerate(self.strings)}

    def _starting_with(self, prefix: str) -> list[str]:
        i = bisect_left(self._sorted, prefix)
        out = []
        while i < len(self._sorted) and self._sorted[i].startswith(prefix):
            out.append(self._sorted[i])
            i += 1
        return out

    def option_tuples(self, arg: str) -> list[tuple[Action, str, str | None]]:
        """argparse's ``_get_option_tuples``: the option strings ``arg`` abbreviates, in the
        parser's order."""
        result = []
        if arg[0] == "-" and len(arg) > 1 and arg[1] == "-":
            if self.allow_abbrev:
                prefix, explicit = arg.split("=", 1) if "=" in arg else (arg, None)
                for s in sorted(self._starting_with(prefix), key=self._order.__getitem__):
                    result.append((self.strings[s], s, explicit))
        elif arg[0] == "-":
            short_prefix, short_explicit = arg[:2], arg[2:]
            found = set(self._starting_with(arg))
            if short_prefix in self.strings:
                found.add(short_prefix)
            for s in sorted(found, key=self._order.__getitem__):
                if s == short_prefix:
                    result.append((self.strings[s], s, short_explicit))
                else:
                    result.append((self.strings[s], s, None))
        return result

    def classify(self, arg: str, index: int | None):
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
            raise ArgFail(f"ambiguous option: {arg} could match {matches}", index)
        if len(tuples) == 1:
            act, s, explicit = tuples[0]
            return act, s, explicit, True
        if NEGATIVE_NUMBER.match(arg) and not self.has_negative_like:
            return None
        if " " in arg:
            return None
        return None, arg, None, False


def table_for(profile: Profile) -> OptionTable:
    return profile.derived("argparse_emul.table", OptionTable)


# ---- nargs ---------------------------------------------------------------------------------
def effective_nargs(act: Action) -> Any:
    return 0 if act.kind in FLAG_KINDS else act.raw.get("nargs")


def arg_name(act: Action) -> str:
    if act.raw.get("positional"):
        return act.dest
    return "/".join(act.option_strings) or act.dest


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


def expected_message(nargs: Any) -> str:
    if nargs is None:
        return "expected one argument"
    if nargs == "?":
        return "expected at most one argument"
    if nargs == "+":
        return "expected at least one argument"
    if isinstance(nargs, int):
        return f"expected {nargs} argument{'s' if nargs != 1 else ''}"
    return "expected arguments"


def _nargs_regex(nargs: tuple[Any, ...], optional: bool) -> re.Pattern[str]:
    return re.compile("".join(_nargs_pattern(n, optional) for n in nargs))


def _match(nargs: Any, selected: str, pos: int = 0) -> int | None:
    m = _nargs_regex((nargs,), True).match(selected, pos)
    return len(m.group(1)) if m else None


def _match_partial(nargs_list: list[Any], selected: str) -> list[int]:
    for i in range(len(nargs_list), 0, -1):
        m = _nargs_regex(tuple(nargs_list[:i]), False).match(selected)
        if m is not None:
            return [len(g) for g in m.groups()]
    return []


def without_dashdash(act: Action, values: list[str]) -> list[str]:
    """argparse ``_get_values`` drops the first ``--`` (3.11), except for REMAINDER/PARSER."""
    if effective_nargs(act) not in ("...", "A...") and "--" in values:
        values = list(values)
        values.remove("--")
    return values


# ---- the parse loop (argparse _parse_known_args) -------------------------------------------
# take(action, values, flag position or None (positional), option string, abbreviated,
#      value position or None, explicit): store one action's values (or raise ArgFail)
Take = Callable[[Action, list[str], "int | None", str, bool, "int | None", bool], None]


@dataclass(slots=True, eq=False)
class Leftover:
    """What argparse leaves over: positions and texts of unrecognized tokens."""

    positions: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


def consume(
    table: OptionTable, texts: list[str], indices: list[int | None], take: Take
) -> Leftover:
    """Consume ``texts`` as argparse would; errors name the argv index ``indices[pos]``."""
    found, pattern = _classify_all(table, texts, indices)
    run = _Run(table, texts, indices, take, found, pattern)
    run.loop()
    missing = [a for a in table.required if id(a) not in run.seen]
    if missing:
        names = ", ".join(arg_name(a) for a in missing)
        raise ArgFail(f"the following arguments are required: {names}", None)
    return run.extras


def _classify_all(table: OptionTable, texts: list[str], indices: list[int | None]):
    pattern_chars: list[str] = []
    found: dict[int, tuple[Action | None, str, str | None, bool]] = {}
    seen_dashdash = False
    for i, text in enumerate(texts):
        if seen_dashdash:
            pattern_chars.append("A")
        elif text == "--":
            seen_dashdash = True
            pattern_chars.append("-")
        else:
            tup = table.classify(text, indices[i])
            if tup is None:
                pattern_chars.append("A")
            else:
                found[i] = tup
                pattern_chars.append("O")
    return found, "".join(pattern_chars)


class _Run:
    def __init__(
        self,
        table: OptionTable,
        texts: list[str],
        indices: list[int | None],
        take: Take,
        found: dict,
        pattern: str,
    ):
        self.table, self.texts, self.indices, self._take = table, texts, indices, take
        self.found, self.pattern = found, pattern
        self.pending_pos = list(table.positionals)
        self.extras = Leftover()
        self.seen: set[int] = set()  # ids of the actions taken

    def take(
        self,
        act: Action,
        vals: list[str],
        flag: int | None,
        opt: str,
        abbreviated: bool,
        value: int | None,
        explicit: bool = False,
    ) -> None:
        self.seen.add(id(act))
        self._take(act, without_dashdash(act, vals), flag, opt, abbreviated, value, explicit)

    def leave(self, start: int, stop: int) -> None:
        self.extras.positions.extend(range(start, stop))
        self.extras.texts.extend(self.texts[start:stop])

    def loop(self) -> None:
        option_indices = sorted(self.found)
        max_opt = option_indices[-1] if option_indices else -1
        start = 0
        while start <= max_opt:
            next_opt = option_indices[bisect_left(option_indices, start)]  # argparse's min()
            if start != next_opt:
                end = self.consume_positionals(start)
                if end > start:
                    start = end
                    continue
                start = end
            if start not in self.found:
                self.leave(start, next_opt)
                start = next_opt
            start = self.consume_optional(start)
        stop = self.consume_positionals(start)
        self.leave(stop, len(self.texts))

    def consume_optional(self, start: int) -> int:
        act, opt, explicit, abbreviated = self.found[start]
        if act is None:
            self.leave(start, start + 1)
            return start + 1
        if explicit is not None:
            return self.consume_explicit(start, act, opt, explicit, abbreviated)
        nargs = effective_nargs(act)
        count = _match(nargs, self.pattern, pos=start + 1)  # no copy of the tail
        if count is None:
            raise ArgFail(
                f"argument {arg_name(act)}: {expected_message(nargs)}", self.indices[start]
            )
        vals = self.texts[start + 1 : start + 1 + count]
        self.take(act, vals, start, opt, abbreviated, start + 1 if count else None)
        return start + 1 + count

    def consume_explicit(
        self, start: int, act: Action, opt: str, explicit: str, abbreviated: bool
    ) -> int:
        nargs = effective_nargs(act)
        arg_count = _match(nargs, "A")
        if arg_count is None:
            raise ArgFail(
                f"argument {arg_name(act)}: {expected_message(nargs)}", self.indices[start]
            )
        if arg_count == 0 and opt[1] != "-" and explicit != "":
            # single-dash combined short flags (-xyz): the next char is another short option
            nxt = "-" + explicit[0]
            if nxt in self.table.strings:
                self.take(act, [], start, opt, abbreviated, None)
                self.found[start] = (self.table.strings[nxt], nxt, explicit[1:] or None, False)
                return self.consume_optional(start)
        if arg_count == 1:
            self.take(act, [explicit], start, opt, abbreviated, start, True)
            return start + 1
        raise ArgFail(
            f"argument {arg_name(act)}: ignored explicit argument {explicit!r}", self.indices[start]
        )

    def consume_positionals(self, start: int) -> int:
        counts = _match_partial(
            [effective_nargs(a) for a in self.pending_pos], self.pattern[start:]
        )
        idx = start
        for act, count in zip(list(self.pending_pos), counts, strict=False):
            self.take(
                act, self.texts[idx : idx + count], None, act.dest, False, idx if count else None
            )
            idx += count
        self.pending_pos = self.pending_pos[len(counts) :]
        return idx


# ---- a plain argparse parser (an engine without argv rewriting) ----------------------------
def _plain_value(act: Action, text: str) -> None:
    kind = act.raw.get("type")
    convert = {"int": int, "float": float}.get(kind)
    if convert is not None:
        try:
            convert(text)
        except ValueError:
            raise ArgFail(
                f"argument {arg_name(act)}: invalid {kind} value: {text!r}", None
            ) from None
    choices = act.raw.get("choices")
    if choices is not None and text not in choices:
        shown = ", ".join(repr(c) for c in choices)
        raise ArgFail(
            f"argument {arg_name(act)}: invalid choice: {text!r} (choose from {shown})", None
        )


def parse_plain(profile: Profile, argv: list[str]) -> ParseResult:
    """``parser.parse_args(argv)`` for a parser built from the profile's actions alone
    (types ``int``/``float`` and string choices are checked; other types are not judged)."""
    options: list[ParsedOption] = []
    positionals: list[str] = []

    def take(act, vals, flag, opt, abbreviated, value, explicit):
        for text in vals:
            try:
                _plain_value(act, text)
            except ArgFail as fail:
                fail.index = value if value is not None else flag
                raise
        if flag is None:
            positionals.extend(vals)
            return
        shown = vals[0] if len(vals) == 1 else (list(vals) if vals else None)
        options.append(
            ParsedOption(act, argv[flag], opt, shown, flag, value, abbreviated, False, None)
        )

    try:
        left = consume(table_for(profile), list(argv), list(range(len(argv))), take)
    except ArgFail as fail:
        return ParseResult(
            False, fail.message, fail.index, options, [], fail.kind, stage=fail.stage
        )
    if left.texts:
        return ParseResult(
            False,
            "unrecognized arguments: " + " ".join(left.texts),
            left.positions[0],
            options,
            positionals,
            "argparse",
            unrecognized=left.texts,
            stage="parse",
        )
    return ParseResult(True, None, None, options, positionals)
