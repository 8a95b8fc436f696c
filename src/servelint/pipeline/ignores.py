"""Inline suppression: ``# servelint: ignore[rule-id, ...] reason``.

A comment names rules by kebab name or code. A comment that ends a line of code
applies to that line; a comment alone on its line applies to the next line that is
not itself an ignore comment. It never covers a whole multi-line command: above a
backslash-continued command it covers the command's first line only, so an error two
lines below stays reported. A finding is ignored when the first or the last line of its
span is the line a comment applies to. Markdown uses
``<!-- servelint: ignore[rule-id] reason -->``.

Ignores are applied before the config (``Config.apply``), so an ignore for a rule
the config disables still counts as used only if the rule produced a finding.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType

from servelint.model import Finding, Span
from servelint.rules import unknown_rule_in_ignore, unused_ignore

_HASH_IGNORE = re.compile(r"(?:^|(?<=\s))#\s*servelint:\s*ignore\b(?P<rest>.*)$")
_HTML_IGNORE = re.compile(r"<!--\s*servelint:\s*ignore\b(?P<rest>.*?)-->")
_IDS = re.compile(r"\[(?P<ids>[^\]]*)\](?P<reason>.*)$")
_CODE = re.compile(r"[A-Za-z]+[0-9]+")


# Plain slotted records: nothing compares, hashes or copies them.
@dataclass(slots=True, eq=False)
class RuleRef:
    """One rule id written inside an ignore comment."""

    text: str
    span: Span
    used: bool = False


@dataclass(slots=True, eq=False)
class IgnoreComment:
    """One ``servelint: ignore`` comment: the lines and rules it applies to, and why."""

    path: str
    span: Span  # the whole comment
    targets: frozenset[int]  # lines it applies to
    ids: list[RuleRef]
    reason: str
    bracketed: bool  # False for "servelint: ignore" without [ids]


def normalize_id(text: str) -> str:
    text = text.strip()
    return text.upper() if _CODE.fullmatch(text) else text


def parse_ignores(path: str, text: str) -> list[IgnoreComment]:
    """Every ignore comment in ``text``, with the lines each one applies to."""
    if "servelint:" not in text:  # both comment forms contain it
        return []
    lines = text.splitlines()
    found: list[tuple[int, re.Match[str], bool]] = []  # (line index, match, standalone)
    for index, line in enumerate(lines):
        match = _HTML_IGNORE.search(line) or _HASH_IGNORE.search(line)
        if match:
            found.append((index, match, not line[: match.start()].strip()))
    standalone_lines = {index for index, _, alone in found if alone}
    comments = []
    for index, match, alone in found:
        comments.append(_comment(path, lines, index, match, alone, standalone_lines))
    return comments


def _comment(path: str, lines: list[str], index: int, match: re.Match[str], alone: bool,
             standalone_lines: set[int]) -> IgnoreComment:
    lineno = index + 1
    targets = {lineno}
    if alone:
        nxt = index + 1
        while nxt in standalone_lines:
            nxt += 1
        if nxt < len(lines):
            targets.add(nxt + 1)
    span = Span(path, lineno, match.start() + 1, lineno, match.end() + 1)
    rest_start = match.start("rest")
    ids_match = _IDS.match(match.group("rest").lstrip())
    if not ids_match:
        return IgnoreComment(path, span, frozenset(targets), [], "", bracketed=False)
    offset = rest_start + (len(match.group("rest")) - len(match.group("rest").lstrip()))
    ids_start = offset + ids_match.start("ids")
    refs = []
    for part in re.finditer(r"[^,]+", ids_match.group("ids")):
        raw = part.group()
        if not raw.strip():
            continue
        lead = len(raw) - len(raw.lstrip())
        col = ids_start + part.start() + lead + 1
        refs.append(RuleRef(normalize_id(raw), Span(path, lineno, col, lineno,
                                                    col + len(raw.strip()))))
    reason = ids_match.group("reason").strip()
    return IgnoreComment(path, span, frozenset(targets), refs, reason, bracketed=True)


def _matches(ref: RuleRef, finding: Finding) -> bool:
    return ref.text == finding.rule or ref.text == finding.code.upper()


def _covering(by_line: dict[tuple[str, int], list[IgnoreComment]],
              finding: Finding) -> list[IgnoreComment]:
    """The comments that apply to the first or the last line of the finding's span."""
    span = finding.span
    last = span.end_line if span.end_line and span.end_line >= span.line else span.line
    found: list[IgnoreComment] = []
    for line in dict.fromkeys((span.line, last)):
        for comment in by_line.get((span.path, line), ()):
            if comment not in found:
                found.append(comment)
    return found


def apply_ignores(
    findings: Iterable[Finding],
    read_source: Callable[[str], str | None],
    known_rules: Iterable[str] | Callable[[], Iterable[str]],
    *,
    enabled: bool = True,
    checked_paths: Iterable[str] = (),
) -> tuple[list[Finding], list[Finding], list[Finding]]:
    """Split ``findings`` into (kept, ignored, extra_findings).

    ``extra_findings`` are SL901 (an id that matches nothing) and SL902 (an unknown
    id, or no ids) warnings on the comments. Files named by ``checked_paths`` are
    scanned too, so an ignore in a file without findings is still reported unused.
    ``enabled=False`` (``--no-ignores``) keeps every finding and reports nothing.
    ``known_rules`` may be a function: it is only called when there are comments.
    """
    findings = list(findings)
    if not enabled:
        return findings, [], []
    comments_by_path = _read_comments(findings, read_source, checked_paths)
    if not any(comments_by_path.values()):
        return findings, [], []
    known = {normalize_id(rule) for rule in
             (known_rules() if callable(known_rules) else known_rules)}
    by_line: dict[tuple[str, int], list[IgnoreComment]] = {}
    for path, comments in comments_by_path.items():
        for comment in comments:
            for line in comment.targets:
                by_line.setdefault((path, line), []).append(comment)
    kept, ignored = [], []
    for finding in findings:
        (ignored if _suppress(by_line, finding, known) else kept).append(finding)
    extra = [problem for comments in comments_by_path.values() for comment in comments
             for problem in _comment_problems(comment, known)]
    return kept, ignored, extra


def _read_comments(findings: list[Finding], read_source: Callable[[str], str | None],
                   checked_paths: Iterable[str]) -> dict[str, list[IgnoreComment]]:
    """The ignore comments of every file with a finding or named by ``checked_paths``."""
    out: dict[str, list[IgnoreComment]] = {}
    for path in dict.fromkeys([*(f.span.path for f in findings), *checked_paths]):
        text = read_source(path)
        if text is not None:
            out[path] = parse_ignores(path, text)
    return out


def _suppress(by_line: dict[tuple[str, int], list[IgnoreComment]], finding: Finding,
              known: set[str]) -> bool:
    """Whether a comment covering ``finding`` names it; marks every id that does as used."""
    suppressed = False
    for comment in _covering(by_line, finding):
        for ref in comment.ids:
            if ref.text in known and _matches(ref, finding):
                ref.used = True
                suppressed = True
    return suppressed


def _comment_problems(comment: IgnoreComment, known: set[str]) -> list[Finding]:
    if not comment.bracketed or not comment.ids:
        return [_problem(unknown_rule_in_ignore, comment.span,
                         "ignore comment names no rule; servelint has no blanket ignore",
                         'name the rules to ignore: "servelint: ignore[rule-id] reason"')]
    problems = []
    for ref in comment.ids:
        if ref.text not in known:
            close = difflib.get_close_matches(ref.text, sorted(known), n=1, cutoff=0.75)
            hint = f'; did you mean "{close[0]}"?' if close else ""
            problems.append(_problem(unknown_rule_in_ignore, ref.span,
                                     f'unknown rule "{ref.text}" in ignore comment{hint}',
                                     "use a rule name or code listed by `servelint explain`"))
        elif not ref.used:
            lines = sorted(comment.targets)
            where = f"line {lines[0]}" if len(lines) == 1 else f"lines {lines[0]}-{lines[-1]}"
            problems.append(_problem(unused_ignore, ref.span,
                                     f'unused ignore: no "{ref.text}" finding on {where}',
                                     f'remove "{ref.text}" from the ignore comment'))
    return problems


def _problem(rule: ModuleType, span: Span, message: str, fix: str) -> Finding:
    return Finding(rule=rule.NAME, code=rule.CODE, severity=rule.SEVERITY, message=message,
                   span=span, fix=fix)
