"""The ``fix:`` line of a read problem: what the user can do about it.

A reader says what it could not read; this module says what to change so it can. The
specific hints match the reader's message (patterns, first match wins); otherwise the
problem's kind decides. Every read problem gets one.
"""

from __future__ import annotations

import re

_BY_MESSAGE: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), fix)
    for pattern, fix in (
        (
            r"no launcher script for",
            "add the launcher script (one of the names tried) under benchmarks/, or correct the "
            "entry's model, precision, framework or runner",
        ),
        (
            r"runner label .* is not a label",
            "add the label to runners.yaml, or use a runner label it defines",
        ),
        (r"no such file or directory", "check the path"),
        (
            r"does not know what kind of file",
            "pass a recipe .yaml, a launcher .sh, a master config or a Markdown guide (with "
            "standard input, name it with --stdin-filename)",
        ),
        (r"too large", "split the file, or exclude it in the config (exclude = [...])"),
        (r"not valid UTF-8", "save the file as UTF-8"),
        (
            r"malformed YAML|not a mapping",
            "fix the YAML at the place shown (a linter such as yamllint shows the same error)",
        ),
        (
            r"unknown (variant|hardware)",
            "use a variant or hardware id the recipe and its taxonomy define",
        ),
        (
            r"internal reader error",
            "report it with the file attached; the rest of the file was checked",
        ),
        (r"duplicate master entry", "rename or remove one of the duplicate entries"),
    )
)

_BY_KIND = {
    "read-error": "make the file readable (the message says what failed), or exclude it",
    "parse-error": "fix the syntax at the place shown",
    "budget": "split the file or the construct, or exclude the file in the config",
    "unresolved": "make the reference point at something that exists",
    "unsupported": "nothing to fix if the launch is as intended: this part was not checked",
}
_SOURCED = "check the sourced helper on its own, or pass it among the paths"


def fix_for(kind: str, message: str, subject: str = "") -> str:
    if subject == "source":
        return _SOURCED
    for pattern, fix in _BY_MESSAGE:
        if pattern.search(message):
            return fix
    return _BY_KIND.get(kind, "see the message: the file could not be read as it stands")
