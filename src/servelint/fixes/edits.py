"""Apply ``Fix`` edits to one file's text: locate, tidy deletions, drop overlaps.

Spans are 1-based lines and character columns (end exclusive). An edit with ``old`` is
located inside its span; an edit whose ``old`` is missing makes its whole fix inapplicable.
A deletion removes a *bare* word only (never the inside of a quoted string), with the
whitespace after it (or before it, at the end of a line); a line that a fix leaves empty
(or holding only the ``\\`` of a continued command) goes, and a command whose last
continued line went loses its dangling ``\\``. In YAML, deleting a mapping key removes its
one-line entry. Two fixes that touch overlapping text: the later one (by position, then
rule order) is skipped; a second run picks it up if it still applies.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from servelint.model import Edit, Fix

_BLANK_OR_CONTINUATION = re.compile(r"[ \t]*(?:export[ \t]*)?\\?[ \t]*")
_YAML_ENTRY = re.compile(
    r"[ \t]*(?:-[ \t]+)?([\"']?)(?P<key>[^\"':\s]+)\1[ \t]*:[ \t]*(?P<value>.*)"
)
_YAML_COMPLEX = ("|", ">", "{", "[", "&", "*", "!")


@dataclass(frozen=True, slots=True)
class Change:
    """One text replacement, by character offsets."""

    start: int
    end: int
    text: str


class Text:
    """A file's text with line offsets (columns count characters, as spans do)."""

    def __init__(self, text: str, yaml: bool = False) -> None:
        self.text = text
        self.yaml = yaml
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def offset(self, line: int, column: int) -> int | None:
        if not 1 <= line <= len(self.starts) or column < 1:
            return None
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return start + column - 1 if start + column - 1 <= end else None

    def line_bounds(self, pos: int) -> tuple[int, int]:
        """[start, end) of the line holding ``pos``, end at its newline (excluded)."""
        index = bisect_right(self.starts, pos) - 1
        start = self.starts[index]
        nl = self.text.find("\n", start)
        return start, (len(self.text) if nl < 0 else nl)


def locate(doc: Text, edit: Edit) -> tuple[int, int] | None:
    span = edit.span
    start = doc.offset(span.line, span.column)
    end_line = span.end_line if span.end_line is not None else span.line
    end = doc.offset(end_line, span.end_column) if span.end_column is not None else None
    if start is None or end is None or end < start:
        return None
    if not edit.old:
        return start, end
    found = doc.text.find(edit.old, start, end)
    return (found, found + len(edit.old)) if found >= 0 else None


def resolve(doc: Text, fix: Fix) -> list[Change] | None:
    """The text changes ``fix`` makes, or None when any edit cannot be placed exactly."""
    changes: list[Change] = []
    for edit in fix.edits:
        where = locate(doc, edit)
        if where is None:
            return None
        start, end = where
        if edit.replacement or start == end:
            changes.append(Change(start, end, edit.replacement))
            continue
        deletion = _deletion(doc, start, end)
        if deletion is None:
            return None
        changes.append(deletion)
    return _remove_emptied_lines(doc, sorted(changes, key=lambda c: c.start))


def _deletion(doc: Text, start: int, end: int) -> Change | None:
    text = doc.text
    line_start, line_end = doc.line_bounds(start)
    if doc.yaml:
        entry = _YAML_ENTRY.fullmatch(text, line_start, line_end)
        if entry and entry.start("key") <= start and end <= entry.end("key"):
            value = entry.group("value").strip()
            if not value or value.startswith(_YAML_COMPLEX):
                return None  # a nested or multi-line value: not a one-line entry
            return Change(line_start, min(line_end + 1, len(text)), "")
    before = text[start - 1] if start > line_start else " "
    after = text[end] if end < line_end else " "
    if not (before.isspace() and after.isspace()):
        return None  # inside a quoted string or a longer word: never a partial deletion
    stop = end
    while stop < line_end and text[stop] in " \t":
        stop += 1
    if stop < line_end and text[stop] != "\\":
        return Change(start, stop, "")
    begin = start
    while begin > line_start and text[begin - 1] in " \t":
        begin -= 1
    if begin == line_start:  # nothing before it on the line: keep the indentation
        return Change(start, stop, "")
    return Change(begin, end, "")


def _remove_emptied_lines(doc: Text, changes: list[Change]) -> list[Change] | None:
    text = doc.text
    by_line: dict[tuple[int, int], list[Change]] = {}
    for change in changes:
        if not change.text and change.start < change.end:
            by_line.setdefault(doc.line_bounds(change.start), []).append(change)
    out = [c for c in changes if c.text or c.start == c.end]
    for (line_start, line_end), dels in by_line.items():
        kept, pos = [], line_start
        for c in sorted(dels, key=lambda c: c.start):
            kept.append(text[pos : max(pos, c.start)])
            pos = max(pos, c.end)
        kept.append(text[pos:line_end])
        rest = "".join(kept)
        original = text[line_start:line_end]
        if (
            dels[0].end > line_end
            or not _BLANK_OR_CONTINUATION.fullmatch(rest)
            or _BLANK_OR_CONTINUATION.fullmatch(original)
        ):
            out.extend(dels)
            continue
        out.append(Change(line_start, min(line_end + 1, len(text)), ""))
        if not original.rstrip().endswith("\\") and line_start > 0:
            prev_start, prev_end = doc.line_bounds(line_start - 1)
            prev = text[prev_start:prev_end]
            if prev.rstrip().endswith("\\"):  # the command now ends on the line before
                cut = len(prev.rstrip()) - 1
                while cut > 0 and prev[cut - 1] in " \t":
                    cut -= 1
                out.append(Change(prev_start + cut, prev_end, ""))
    return sorted(out, key=lambda c: c.start)


def _overlaps(a: Change, b: Change) -> bool:
    if a.start == a.end or b.start == b.end:  # insertions clash only at the same point
        return a.start == b.start or a.start < b.start < a.end or b.start < a.start < b.end
    return a.start < b.end and b.start < a.end


def apply_fixes(
    text: str,
    fixes: list[Fix],
    *,
    yaml: bool = False,
) -> tuple[str, list[Fix], list[tuple[Fix, str]]]:
    """``text`` with every placeable, non-overlapping fix applied, in the order given;
    returns (new text, applied, [(skipped, why)])."""
    doc = Text(text, yaml=yaml)
    accepted: list[Change] = []
    applied: list[Fix] = []
    skipped: list[tuple[Fix, str]] = []
    seen: set[tuple[Change, ...]] = set()
    for fix in fixes:
        changes = resolve(doc, fix)
        if changes is None:
            skipped.append((fix, "the source does not hold the text the fix expects"))
            continue
        key = tuple(changes)
        if key in seen:  # the same edit from another rendering or release
            applied.append(fix)
            continue
        if any(_overlaps(c, a) for c in changes for a in accepted):
            skipped.append((fix, "overlaps an earlier fix"))
            continue
        seen.add(key)
        accepted.extend(changes)
        applied.append(fix)
    out = text
    for change in sorted(accepted, key=lambda c: (c.start, c.end), reverse=True):
        out = out[: change.start] + change.text + out[change.end :]
    return out, applied, skipped
