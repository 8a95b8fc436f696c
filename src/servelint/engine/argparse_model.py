"""Result types of the static argv parsers (``<engine>_argv.parse(profile, argv)``)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ParsedOption:
    """One option occurrence the parser consumed."""

    dest: str
    option: str  # the spelling in argv (may be an abbreviation), without "=value"
    canonical: str  # the registered option string it resolved to
    value: str | list[str] | None  # raw value text(s); None for flags taking no value
    index: int  # argv index of the option token
    value_index: int | None = None  # argv index of the (first) value token, if separate
    abbreviated: bool = False  # matched as a unique prefix (argparse allow_abbrev)
    from_config: bool = False  # came from a --config file, not the command line


@dataclass(slots=True)
class ParseResult:
    ok: bool
    options: list[ParsedOption] = field(default_factory=list)
    positionals: list[str] = field(default_factory=list)
    error: str | None = None  # argparse-style message (without "prog: error: ")
    error_index: int | None = None  # argv index of the token at fault
    exit_code: int = 0  # what the real CLI exits with (2 argparse, 1 exception)
    unrecognized_indices: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # deprecation warnings the release logs
