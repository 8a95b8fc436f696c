"""Size budgets that hold on straight-line input too (``X=$X$X`` doubles a value per line).

A shell value (scalar or array) or the result of one expansion larger than these is not
built: the reader keeps it symbolic, with a note, and goes on. Reports repeat at most
``MAX_REPORT_ARGV_CHARS`` of a launch's argv text and ``MAX_MESSAGE_CHARS`` of a message.
"""

from __future__ import annotations

import time

MAX_VALUE_CHARS = 64 * 1024  # one shell value, or one expansion result
MAX_VALUE_PIECES = 4096  # the parts one value is made of (``$X$X…`` references)
MAX_ARRAY_ITEMS = 4096  # the elements of one shell array
MAX_PATTERN_INPUT = 4096  # a ``${X%pat}``/``${X#pat}`` subject (tried at every offset)
MAX_REPORT_ARGV_CHARS = 64 * 1024  # argv text one launch summary repeats in a JSON report
MAX_MESSAGE_CHARS = 4096  # one finding message in a report
MAX_FILE_STEPS = 1_000_000  # interpreter steps over all the code blocks of one file
MAX_FILE_SECONDS = 4.0  # and their wall time
# argv words judged per file (or InferenceX part), over all its launches: each launch is
# parsed per release and re-parsed per problem found, so 100 launches of 600 unknown words
# cost seconds; a guide repeating one launch 5,000 times stays far below
MAX_JUDGED_ARGV_WORDS = 200_000
# (a script checked on its own: 400,000 steps or 5 s, readers/bash.read_script)


def over_value(texts_size: int, pieces: int = 1) -> bool:
    return texts_size > MAX_VALUE_CHARS or pieces > MAX_VALUE_PIECES


def value_note(name: str, line: int | None) -> str:
    where = f" at line {line}" if line else ""
    return (
        f"value of {name}{where} is larger than {MAX_VALUE_CHARS} characters, "
        f"{MAX_VALUE_PIECES} parts or {MAX_ARRAY_ITEMS} array elements: kept symbolic"
    )


def capped_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut at ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"… ({len(text) - limit} more characters not shown)"


def report_argv(argv: list[str]) -> dict:
    """A launch summary's ``argv`` within the cap; when cut, ``argv_cap`` says so (the limit,
    the arguments and characters left out)."""
    shown, omitted = capped_argv(argv)
    if not omitted:
        return {"argv": argv}
    return {
        "argv": shown,
        "argv_cap": {
            "limit_chars": MAX_REPORT_ARGV_CHARS,
            "arguments": len(argv),
            "omitted_chars": omitted,
        },
    }


def capped_argv(argv: list[str]) -> tuple[list[str], int]:
    """The leading argv texts within ``MAX_REPORT_ARGV_CHARS`` (a longer one is cut) and how
    many characters were left out."""
    out: list[str] = []
    total = 0
    for i, text in enumerate(argv):
        room = MAX_REPORT_ARGV_CHARS - total
        if len(text) > room:
            out.append(text[:room])
            return out, len(text) - room + sum(len(t) for t in argv[i + 1 :])
        out.append(text)
        total += len(text)
    return out, 0


def judge_note(left: int) -> str:
    return (
        f"judging budget of this file spent ({MAX_JUDGED_ARGV_WORDS} argv words over its "
        f"launches): this launch and the {left - 1} after it were not judged"
    )


class FileWork:
    """The work budget of one file shared by every piece a reader hands to the interpreter
    (each Markdown code block has its own small budget too): linear in the file, bounded."""

    def __init__(self, steps: int = MAX_FILE_STEPS, seconds: float = MAX_FILE_SECONDS) -> None:
        self.steps = steps
        self.deadline = time.monotonic() + seconds
        self.seconds = seconds

    def used(self, steps: int) -> None:
        self.steps -= steps

    def steps_left(self, cap: int) -> int:
        return max(1, min(cap, self.steps))

    def seconds_left(self, cap: float) -> float:
        return max(0.01, min(cap, self.deadline - time.monotonic()))

    def spent(self) -> bool:
        return self.steps <= 0 or time.monotonic() >= self.deadline

    def note(self, what: str) -> str:
        return (
            f"work budget of this file spent ({MAX_FILE_STEPS} steps or "
            f"{self.seconds:g} s): {what} were not read"
        )
