"""Line-continuation mistakes in shell text that change the words a command gets.

* ``--flag value \\ `` with a space (or a comment) after the backslash: the backslash escapes
  the space, so the command gets a stray ``" "`` argument (in an array, a ``" "`` element)
  and, outside an array, the next line runs as a command of its own;
* a launch line without the ``\\`` when the next line goes on with ``--flags``: those flags
  never reach the engine (the shell runs ``--flag`` as a command and fails).

The bash parser drops an escaped space at the end of a line, so these are found in the text.
Each becomes an ``argv-shape`` reader problem at the backslash (or the line end).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from servelint.model import Span
from servelint.sources.common.problems import ReadProblem

_ESCAPED_SPACE = re.compile(r"(?<!\\)((?:\\\\)*)\\[ \t]+(#.*)?$")
_CONTINUES = re.compile(r"^\s*--?[A-Za-z]")
_LAUNCH = re.compile(
    r"\bvllm\s+serve\b|\bsglang\.launch_server\b|\bvllm\.entrypoints\b|"
    r"\btrtllm-serve\b"
)
_ARRAY_OPEN = re.compile(r"^\s*(?:local\s+|declare\s+-a\s+)?[A-Za-z_]\w*\+?=\((?P<rest>.*)$")
KIND = "argv-shape"


def continuation_problems(
    path: str, lines: list[str], span_at: Callable[[int, int], Span | None]
) -> list[ReadProblem]:
    """Problems in ``lines`` (shell text); ``span_at(index, column)`` places a problem."""
    out: list[ReadProblem] = []
    in_array = False
    in_launch = False
    following = _next_non_blank(lines)
    for i, line in enumerate(lines):
        text = line.rstrip("\n")
        stripped = text.strip()
        nxt = following[i]
        opened = _ARRAY_OPEN.match(text.split("#", 1)[0].rstrip())
        # an array literal spans lines until its ")" (words on the opening line included:
        # ``cmd=(vllm serve "$M"`` then ``--flag v`` lines need no backslash)
        if opened and not opened["rest"].rstrip().endswith(")"):
            in_array = True
        elif in_array and (stripped.startswith(")") or stripped.endswith(")")):
            in_array = False
            if not stripped.startswith(")"):
                continue  # the closing line holds words of the array, not of a launch
        m = _ESCAPED_SPACE.search(text)
        if m and not stripped.startswith("#") and _CONTINUES.match(nxt):
            col = m.start() + len(m.group(1)) + 1
            where = (
                'the array gets a stray " " element'
                if in_array
                else 'the command gets a stray " " argument and the next line runs on its own'
            )
            out.append(
                ReadProblem(
                    path,
                    span_at(i, col),
                    f"a space after the line-continuation backslash: {where}",
                    KIND,
                )
            )
        if not in_array and _LAUNCH.search(text) and not stripped.startswith("#"):
            in_launch = True
        if (
            in_launch
            and not in_array
            and not stripped.endswith("\\")
            and stripped
            and not stripped.startswith("#")
        ):
            if _CONTINUES.match(nxt) and not m:
                out.append(
                    ReadProblem(
                        path,
                        span_at(i, len(text.rstrip()) + 1),
                        "the launch ends on this line (no line-continuation backslash), but the "
                        f"next line goes on with {nxt.split()[0]!r}: those flags never reach the "
                        "engine",
                        KIND,
                    )
                )
            in_launch = False
    return out


def _next_non_blank(lines: list[str]) -> list[str]:
    """For each line, the next line after it that is not blank ("" at the end): one pass
    from the end, linear however many blank lines there are."""
    out = [""] * len(lines)
    nxt = ""
    for i in range(len(lines) - 1, -1, -1):
        out[i] = nxt
        if lines[i].strip():
            nxt = lines[i]
    return out
