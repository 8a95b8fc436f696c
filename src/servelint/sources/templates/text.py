"""Go templates (Helm), Jinja and Terraform ``templatefile`` directives (``%{ for }``): a
template's text with its expressions as placeholders,
every other character where it was (spans stay the file's).

* A value expression inside a line (``image: "{{ .Values.image }}:{{ .Values.tag }}"``)
  becomes ``$_T___…`` of the same length: a word the readers mark symbolic (and the shell
  reader reads as an unset variable), never a value to judge.
* An action alone on its line is blanked. A value expression alone on its line
  (``{{- toYaml .Values.args | nindent 12 }}``) may add lines nobody can see: its line
  number is kept in ``Prepared.unknown_lines`` so that readers mark what holds it.
* ``if``/``with``/``range``/``for`` bodies are kept once; the ``else`` branches are blanked,
  so the text is one rendering, the one in which every condition holds (each optional
  flag present once, never a branch's flag beside its alternative's). ``define`` bodies
  (helpers) are blanked. Comments are blanked.
* ``prepare(text, other_branches=True)`` is the other rendering: of every ``if``/``with``
  that has an ``else``, the bodies before it blanked and the last ``else`` branch kept (an
  ``if`` with no ``else`` keeps its body), so a
  template with ``else`` branches is read as two renderings, each branch's words in one of
  them only (``Prepared.branches`` counts the ``else`` actions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ACTION = re.compile(r"\{\{-?(.*?)-?\}\}|\{%-?(.*?)-?%\}|%\{~?(.*?)~?\}|\{#.*?#\}", re.S)
_OPENERS = ("if", "with", "range", "define", "block", "for", "macro", "filter", "set ")
_ELSE = ("else", "elif")
_ENDS = ("end", "endif", "endfor", "endmacro", "endfilter", "endwith", "endset", "endblock")
_HIDDEN = ("define", "macro")
PLACEHOLDER = re.compile(r"\$_T_+")


@dataclass(slots=True)
class Prepared:
    text: str
    unknown_lines: set[int] = field(default_factory=set)  # 1-based
    expressions: int = 0
    branches: int = 0  # else/elif actions


def _blank(text: str) -> str:
    return "".join(c if c == "\n" else " " for c in text)


def _placeholder(text: str) -> str:
    if "\n" in text or len(text) < 4:
        return _blank(text) if "\n" in text else "$_T_"[: len(text)].ljust(len(text), "_")
    return "$_T" + "_" * (len(text) - 3)


def _word(inner: str) -> str:
    body = inner.strip().lstrip("/*").strip()
    return body.split(None, 1)[0] if body else ""


def _alone(text: str, start: int, end: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    return not text[line_start:start].strip() and not text[end:line_end].strip()


def _with_else(text: str) -> set[int]:
    """The offsets of the ``if``/``with`` actions that have an ``else`` branch."""
    found: set[int] = set()
    stack: list[int] = []
    for m in _ACTION.finditer(text):
        inner = m.group(1) if m.group(1) is not None else (m.group(2) or m.group(3) or "")
        word = _word(inner)
        if word in _OPENERS or (word + " ") in _OPENERS:
            if not (word == "set" and "=" in inner):
                stack.append(m.start() if word in ("if", "with") else -1)
        elif word in _ELSE and stack and stack[-1] >= 0:
            found.add(stack[-1])
        elif word in _ENDS and stack:
            stack.pop()
    return found


def prepare(text: str, other_branches: bool = False) -> Prepared:
    """The template's text, expressions as placeholders (see the module doc)."""
    swapped = _with_else(text) if other_branches else set()
    out: list[str] = []
    stack: list[tuple[str, bool]] = []  # (opener, hiding: in an else branch or a define)
    cursor = 0
    prepared = Prepared("")
    for m in _ACTION.finditer(text):
        hiding = any(h for _, h in stack)
        between = text[cursor:m.start()]
        out.append(_blank(between) if hiding else between)
        cursor = m.end()
        raw = m.group(0)
        prepared.expressions += 1
        inner = m.group(1) if m.group(1) is not None else (m.group(2) or m.group(3) or "")
        word = _word(inner)
        is_statement = m.group(2) is not None or m.group(3) is not None
        if raw.startswith("{#") or inner.strip().startswith("/*"):
            out.append(_blank(raw))
        elif word in _OPENERS or (word + " ") in _OPENERS or (is_statement and word == "set"):
            out.append(_blank(raw))
            if not (word == "set" and "=" in inner):  # `{% set x = y %}` has no body
                stack.append((word, word in _HIDDEN or m.start() in swapped))
        elif word in _ELSE:
            out.append(_blank(raw))
            prepared.branches += 1
            if stack:  # `else if`/`elif` is one more branch before the last `else`
                last = word == "else" and not inner.strip().startswith("else if")
                stack[-1] = (stack[-1][0], not (other_branches and last))
        elif word in _ENDS:
            out.append(_blank(raw))
            if stack:
                stack.pop()
        elif hiding or is_statement:
            out.append(_blank(raw))
        elif _alone(text, m.start(), m.end()):
            out.append(_blank(raw))
            prepared.unknown_lines.add(text.count("\n", 0, m.start()) + 1)
        else:
            out.append(_placeholder(raw))
    rest = text[cursor:]
    out.append(_blank(rest) if any(h for _, h in stack) else rest)
    prepared.text = "".join(out)
    return prepared
