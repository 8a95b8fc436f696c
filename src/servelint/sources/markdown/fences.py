"""Fenced code blocks of a Markdown text, with the position of every content line.

CommonMark fences: a line of three or more backticks or tildes opens a block (the info
string's first word is the language), the same character repeated at least as often
closes it (an unclosed block runs to the end of the text). A fence may be indented (list
items nest them); up to that many spaces are removed from each content line, as CommonMark
does, and ``strip`` records how many were removed so columns map back to the source. A
fence inside block quotes (``> > ```bash``, any depth) has the same number of quote markers
removed from each content line; a line with fewer markers ends the quote and the block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from servelint.engines import registry

# the indentation may hold tabs: a list item's fence written with a tab (CommonMark expands it
# to the item's content column; PanZaifeng/KVFlow@7ef897e README.md "Serve" does this)
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_QUOTE = re.compile(r" {0,3}> ?")  # one block-quote marker
SHELL_LANGS = frozenset({
    "", "bash", "sh", "shell", "zsh", "console", "shell-session", "shellsession", "sh-session",
    "bash-session", "terminal", "shellscript", "session",
})
CONSOLE_LANGS = frozenset({"console", "shell-session", "shellsession", "sh-session",
                           "bash-session", "terminal", "session"})


@dataclass(slots=True, eq=False)
class Fence:
    """One fenced code block of a Markdown document (a plain slotted record: nothing
    compares, hashes or copies one)."""

    index: int  # 1-based number of the block in the document
    lang: str  # lowercased first word of the info string ("" when none)
    line: int  # 1-based line of the first content line
    lines: list[str]  # content lines (fence indentation removed)
    strip: list[int]  # characters removed from the start of each content line
    indent: int  # indentation of the opening fence
    closed: bool = True

    @property
    def is_shell(self) -> bool:
        return self.lang in SHELL_LANGS

    @property
    def is_console(self) -> bool:
        return self.lang in CONSOLE_LANGS


def _lang(info: str) -> str:
    word = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    word = word.strip("{}").lstrip(".").lower()
    return word.split(",", 1)[0]


def _strip_indent(line: str, indent: int) -> tuple[str, int]:
    n = 0
    while n < indent and n < len(line) and line[n] in " \t":
        n += 1
    return line[n:], n


def _unquote(line: str, depth: int | None = None) -> tuple[str, int, int]:
    """``line`` without its block-quote markers (at most ``depth``): (rest, markers, chars)."""
    pos = markers = 0
    while depth is None or markers < depth:
        m = _QUOTE.match(line, pos)
        if not m:
            break
        pos, markers = m.end(), markers + 1
    return line[pos:], markers, pos


def find_fences(text: str) -> list[Fence]:
    """Every fenced code block, in document order (one pass over the lines)."""
    lines = text.splitlines()
    out: list[Fence] = []
    i = 0
    while i < len(lines):
        opening, depth, quoted = _unquote(lines[i]) if ">" in lines[i] else (lines[i], 0, 0)
        m = _OPEN.match(opening)
        if not m or (m.group("fence")[0] == "`" and "`" in m.group("info")):
            i += 1
            continue
        fence = m.group("fence")
        indent = len(m.group("indent"))
        close = re.compile(r"^[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",} *$")
        body: list[str] = []
        strip: list[int] = []
        j = i + 1
        closed = False
        while j < len(lines):
            line, markers, removed = _unquote(lines[j], depth) if depth else (lines[j], 0, 0)
            if markers < depth:  # the quote ended, and the block with it
                break
            if close.match(line):
                closed = True
                break
            content, n = _strip_indent(line, indent)
            body.append(content)
            strip.append(removed + n)
            j += 1
        out.append(Fence(len(out) + 1, _lang(m.group("info")), i + 2, body, strip,
                         quoted + indent, closed=closed or j < len(lines)))
        i = j + 1 if closed else j
    return out


# a block worth interpreting mentions an engine's shell words (engines.registry) or one of
# these: containers, installs, exports and heredocs (for later blocks)
_KEYWORDS = ("docker", "podman", "pip ", "export ", "<<")


def worth_reading(fence: Fence) -> bool:
    """Whether a block is a shell block that could launch, install or set what a launch
    reads (the shell interpreter is imported only for such a block)."""
    if not fence.is_shell:
        return False
    body = "\n".join(fence.lines)
    # the engines' own words too: a block whose only command is ``trtllm-serve ...``
    return any(k in body for k in _KEYWORDS) or any(w in body for w in registry.shell_words())
