"""Click's parsing of ``trtllm-serve MODEL [OPTIONS]`` over a release profile.

``trtllm-serve`` is a click group whose unknown first word falls back to ``serve``; ``argv`` is
what follows ``trtllm-serve`` (or ``trtllm-serve serve``). This re-states click 8's parser for
the parameter kinds TensorRT-LLM uses:

- option strings match exactly: no prefix matching, no ``_``/``-`` folding (``--max-batch-size``
  is not ``--max_batch_size``); an unknown option is an error with click's close-match hint;
- ``--opt=value`` and ``--opt value``; a value is taken even when it starts with ``-``;
  a flag given a value (``--flag=x``) is an error;
- values are converted after parsing, each option once, from its last occurrence (an earlier
  bad value of a repeated option is never looked at), in the order options first appear;
- ``int``/``float`` convert with Python's ``int()``/``float()``; choices compare
  case-sensitively unless the profile says otherwise, after the alias map of
  ``ChoiceWithAlias``; ``click.Path(exists=True)`` is left open (the path is in the image);
- one positional (``MODEL``); missing or extra positionals are errors; ``--`` ends options.

Errors are phrased like argparse's (``unrecognized arguments``, ``argument X: invalid
choice``) so the shared lint loop and rules read them; ``click_message`` keeps click's own text.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, field

from servelint.engines import argparse_emul
from servelint.engines.trtllm.facts import option_file_problems as problems
from servelint.profiles import Action, Profile


@dataclass(frozen=True)
class ParsedOption(argparse_emul.ParsedOption):
    """An option of a ``trtllm-serve`` argv."""


@dataclass(frozen=True)
class ParseResult(argparse_emul.ParseResult):
    """A ``trtllm-serve`` argv parsed as the release's click command parses it."""

    exit_code: int = 0  # click exits 2 on a usage error
    unrecognized_indices: list[int] = field(default_factory=list)
    click_message: str = ""  # the message click itself prints


class _Usage(Exception):
    def __init__(
        self, message: str, click_message: str, index: int | None, unknown: list[int] | None = None
    ):
        super().__init__(message)
        self.click_message = click_message
        self.index = index
        self.unknown = unknown or []


def _takes_value(action: Action) -> bool:
    return action.kind not in {"store_true", "store_false"}


def _convert(action: Action, value: str) -> str | None:
    """Click's message when ``value`` does not convert, else None."""
    kind = action.raw.get("type")
    if kind == "int":
        try:
            int(value)
        except ValueError:
            return f"{value!r} is not a valid integer."
    elif kind == "float":
        try:
            float(value)
        except ValueError:
            return f"{value!r} is not a valid float."
    elif kind == "choice" and action.choices is not None:
        value = (action.raw.get("aliases") or {}).get(value, value)
        choices = [str(c) for c in action.choices]
        if action.raw.get("case_sensitive", True):
            ok = value in choices
        else:
            ok = value.casefold() in {c.casefold() for c in choices}
        if not ok:
            listed = ", ".join(repr(c) for c in choices)
            return f"{value!r} is not one of {listed}."
    return None


class _Parser:
    def __init__(self, profile: Profile):
        self.profile = profile
        self.longs = sorted(o for o in profile.option_index if o.startswith("--"))

    def no_such(self, opt: str, index: int) -> _Usage:
        close = difflib.get_close_matches(opt, self.longs)
        hint = (
            f" Did you mean {close[0]}?"
            if len(close) == 1
            else (f" (Possible options: {', '.join(sorted(close))})" if close else "")
        )
        return _Usage(
            f"unrecognized arguments: {opt}", f"No such option: {opt}{hint}", index, [index]
        )

    def parse(self, argv: list[str]) -> ParseResult:
        options: list[ParsedOption] = []
        positionals: list[tuple[int, str]] = []
        i = 0
        n = len(argv)
        only_positional = False
        while i < n:
            arg = argv[i]
            if only_positional or arg[:1] != "-" or len(arg) == 1:
                positionals.append((i, arg))
                i += 1
                continue
            if arg == "--":
                only_positional = True
                i += 1
                continue
            name, eq, explicit = arg.partition("=")
            if not arg.startswith("--") or not eq:
                name, explicit = arg, None
            action = self.profile.option_index.get(name)
            if action is None:
                if arg in {"--help", "-h"}:
                    return ParseResult(True, None, None, options, [], exit_code=0)
                raise self.no_such(name, i)
            if not _takes_value(action):
                if explicit is not None:
                    raise _Usage(
                        f"argument {name}: ignored explicit argument {explicit!r}",
                        f"Option {name!r} does not take a value.",
                        i,
                    )
                options.append(ParsedOption(action, arg, name, None, i, None, False, False, None))
                i += 1
                continue
            if explicit is not None:
                options.append(ParsedOption(action, arg, name, explicit, i, i, False, False, None))
                i += 1
                continue
            if i + 1 >= n:
                raise _Usage(
                    f"argument {name}: expected one argument",
                    f"Option {name!r} requires an argument.",
                    i,
                )
            options.append(
                ParsedOption(action, arg, name, argv[i + 1], i, i + 1, False, False, None)
            )
            i += 2
        self.check_positionals(positionals)
        self.convert(options)
        return ParseResult(True, None, None, options, [p for _, p in positionals])

    def check_positionals(self, positionals: list[tuple[int, str]]) -> None:
        wanted = len(self.profile.data.get("parser", {}).get("positionals", ["model"]))
        if len(positionals) > wanted:
            extra = positionals[wanted:]
            words = " ".join(p for _, p in extra)
            plural = "s" if len(extra) > 1 else ""
            raise _Usage(
                f"unrecognized arguments: {words}",
                f"Got unexpected extra argument{plural} ({words})",
                extra[0][0],
                [j for j, _ in extra],
            )
        if len(positionals) < wanted:
            raise _Usage(
                "the following arguments are required: MODEL", "Missing argument 'MODEL'.", None
            )

    def convert(self, options: list[ParsedOption]) -> None:
        last: dict[str, ParsedOption] = {}
        order: list[str] = []
        for opt in options:
            dest = opt.action.dest  # type: ignore[union-attr]
            if dest not in last:
                order.append(dest)
            if opt.action.raw.get("multiple"):  # type: ignore[union-attr]
                self.convert_one(opt)
            last[dest] = opt
        for dest in order:
            self.convert_one(last[dest])

    def convert_one(self, opt: ParsedOption) -> None:
        if opt.value is None or not isinstance(opt.value, str):
            return
        problem = _convert(opt.action, opt.value)  # type: ignore[arg-type]
        if problem is None:
            return
        primary = opt.action.primary  # type: ignore[union-attr]
        if opt.action.raw.get("type") == "choice":  # type: ignore[union-attr]
            message = f"argument {opt.canonical}: invalid choice: {problem}"
        else:
            message = f"argument {opt.canonical}: invalid value: {problem}"
        raise _Usage(message, f"Invalid value for {primary!r}: {problem}", opt.value_index)


def parse(profile: Profile, argv: list[str]) -> ParseResult:
    """Parse ``argv`` (the tokens after ``trtllm-serve``) as the release's click would."""
    argv = list(argv)
    offset = 0
    if argv[:1] == ["--"]:  # the group's own parser takes a leading "--" before serve parses
        argv, offset = argv[1:], 1
    try:
        result = _Parser(profile).parse(argv)
        return _shift(result, offset) if offset else result
    except _Usage as exc:
        if offset:
            exc.index = exc.index + offset if exc.index is not None else None
            exc.unknown = [i + offset for i in exc.unknown]
        return ParseResult(
            False,
            str(exc),
            exc.index,
            [],
            [],
            error_kind="click",
            exit_code=2,
            unrecognized_indices=exc.unknown,
            click_message=exc.click_message,
        )


def option_file_problems(profile: Profile, spec, parsed) -> list:
    """The option file's problems (``facts.option_file_problems``; rules find it here)."""
    return problems(profile, spec, parsed)


def _shift(result: ParseResult, offset: int) -> ParseResult:
    """Indices of a parse of ``argv[offset:]`` as indices of ``argv``."""
    options = [
        dataclasses.replace(
            o,
            index=o.index + offset,
            value_index=None if o.value_index is None else o.value_index + offset,
        )
        for o in result.options
    ]
    return dataclasses.replace(result, options=options)
