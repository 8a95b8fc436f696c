"""Human output: findings grouped by file, each with excerpt, caret, fix and renderings.

A file's findings follow one header line naming the releases they were judged against
(a finding names its own release only when the file's findings differ in it); the same
finding repeated in one file prints once, followed by an ``also at`` line; messages and
fixes wrap at the terminal width (100 columns when not a terminal). The summary counts
what is shown and what is hidden (info by default, or below ``--min-severity``) and
names the release range judged against, not every release.

Colour (on a terminal only) is rich's; without it the text is plain and rich is not imported.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from packaging.version import InvalidVersion, Version

from servelint.model import Finding, Severity
from servelint.reporters.excerpt import underline
from servelint.reporters.json_out import item_value
from servelint.rules.docs_links import is_absolute, rule_doc_url
from servelint.util.textsafe import printable

MAX_RENDERINGS_LISTED = 3  # more than this: name the first one and count the rest
DEFAULT_WIDTH = 100
EXCERPT_LEAD = 24  # columns kept left of the caret when a long source line is cropped
RELATED_SHOWN = 8  # related places listed under a finding (a cause repeated in many files)

_STYLES = {"bold": "bold", "dim": "dim", "red": "bold red", "yellow": "bold yellow",
           "cyan": "bold cyan"}
_SEVERITY_STYLE = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
# one line of output: plain text and (text, style name) pieces
Line = list[str | tuple[str, str]]


@dataclass(slots=True, eq=False)
class TextView:
    """How the text report is shown (set by the command line)."""

    shown: list[Finding] = field(default_factory=list)
    hidden: dict[Severity, int] = field(default_factory=dict)  # counted, not shown
    hidden_by: str = ""  # the option that shows them ("--show-info") or hides them
    quiet: bool = False  # findings only, no summary
    statistics: bool = False  # counts per rule instead of the findings
    color: bool | None = None  # None: decide from the stream and the environment
    width: int | None = None  # None: the terminal's width, else DEFAULT_WIDTH
    kinds: dict[str, int] = field(default_factory=dict)  # files checked per file kind (reader)


def use_color(stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    """Color only on a terminal, never with NO_COLOR; FORCE_COLOR forces it."""
    env = os.environ if env is None else env
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    if env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def output_width(stream: TextIO) -> int:
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        return max(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, 60)
    return DEFAULT_WIDTH


def judged_against(finding: Finding) -> str:
    if finding.release:
        return f"{finding.engine or 'engine'} {finding.release}"
    return ""


def renderings_line(renderings: Sequence[str]) -> str:
    """``2 renderings: a, b`` or, when many, ``12 renderings: bf16 · h100 · single_node_tp, …``.

    A rendering label may itself contain `` · `` (variant · hardware · strategy).
    """
    names = list(dict.fromkeys(renderings))
    if len(names) == 1:
        return f"rendering: {names[0]}"
    if len(names) <= MAX_RENDERINGS_LISTED:
        return f"{len(names)} renderings: " + ", ".join(names)
    return f"{len(names)} renderings: {names[0]}, …"


def release_ranges(labels: Sequence[str]) -> str:
    """``vllm 0.10.0 … 0.33.0 (26 releases), sglang 0.5.9`` from ``engine version`` labels."""
    by_engine: dict[str, list[str]] = {}
    for label in labels:
        engine, _, version = label.partition(" ")
        by_engine.setdefault(engine, []).append(version)
    parts = []
    for engine, versions in by_engine.items():
        try:
            versions = sorted(set(versions), key=Version)
        except InvalidVersion:
            versions = sorted(set(versions))
        if len(versions) == 1:
            parts.append(f"{engine} {versions[0]}")
        else:
            parts.append(f"{engine} {versions[0]} … {versions[-1]} ({len(versions)} releases)")
    return ", ".join(parts)


def wrap(prefix: str, text: str, width: int, indent: str) -> list[str]:
    """``prefix + text`` wrapped at ``width`` (words are never split; a line holds at least
    one word); continuation lines start with ``indent``. Each line is cut at the last space
    that fits, so a long text (a list of places) costs a search per line, not per word."""
    lines: list[str] = []
    head, pos, end = prefix, 0, len(text)
    while end - pos > width - len(head):
        cut = text.rfind(" ", pos, pos + max(width - len(head), 0) + 1)
        if cut < 0:  # the first word alone is too long: it gets the line
            cut = text.find(" ", pos)
            if cut < 0:
                break
        lines.append(head + text[pos:cut])
        head, pos = indent, cut + 1
    lines.append(head + text[pos:])
    return lines


def crop(shown: str, marks: str, width: int) -> tuple[str, str]:
    """A long single-width source line cut to a window around its caret."""
    if len(shown) <= width or len(shown.encode("utf-8", "replace")) != len(shown):
        return shown, marks
    caret = len(marks) - len(marks.lstrip(" "))
    start = max(caret - EXCERPT_LEAD, 0)
    end = start + width
    head = "…" if start > 0 else ""
    tail = "…" if end < len(shown) else ""
    return head + shown[start:end] + tail, " " * len(head) + marks[start:end]


def group_repeats(findings: Sequence[Finding]) -> list[tuple[Finding, list[Finding]]]:
    """Findings of one file, each with the later ones identical but for the place."""
    groups: dict[tuple, tuple[Finding, list[Finding]]] = {}
    for f in findings:
        key = (f.code, f.severity, f.message, f.release, f.fix)
        if key in groups:
            groups[key][1].append(f)
        else:
            groups[key] = (f, [])
    return list(groups.values())


class TextReporter:
    def __init__(self, stream: TextIO, read_source: Callable[[str], str | None],
                 color: bool, width: int = DEFAULT_WIDTH) -> None:
        self.stream = stream
        self.read_source = read_source
        self.color = color
        self.width = width
        self._console = _console(stream) if color else None
        self._lines: dict[str, list[str] | None] = {}

    def write(self, lines: list[Line]) -> None:
        if self._console is None:
            self.stream.write("".join("".join(p if isinstance(p, str) else p[0] for p in line)
                                      + "\n" for line in lines))
            return
        from rich.text import Text  # (colour only: a plain report never imports rich)

        for line in lines:
            self._console.print(Text.assemble(*(
                p if isinstance(p, str) else (p[0], _STYLES[p[1]]) for p in line)))

    def source_line(self, path: str, line: int) -> str | None:
        if path not in self._lines:
            text = self.read_source(path)
            self._lines[path] = text.splitlines() if text is not None else None
        lines = self._lines[path]
        if lines is None or not 1 <= line <= len(lines):
            return None
        return lines[line - 1]

    def file(self, path: str, findings: Sequence[Finding]) -> None:
        """One file's findings under a header naming what they were judged against."""
        releases = list(dict.fromkeys(judged_against(f) for f in findings if f.release))
        if releases:
            head = wrap(f"── {shown_path(path)} · ", f"judged against {', '.join(releases)}",
                        self.width, "   ")
            self.write([[(line, "dim")] for line in head])
        for first, repeats in group_repeats(findings):
            self.finding(first, name_release=len(releases) > 1, repeats=repeats)

    def finding(self, finding: Finding, *, name_release: bool = False,
                repeats: Sequence[Finding] = ()) -> None:
        span = finding.span
        sev = _SEVERITY_STYLE[finding.severity]
        where = f"{shown_path(span.path)}:{span.line}:{span.column}:"
        label = finding.severity.label
        rule = f"[{finding.code} {finding.rule}] "
        message = printable(finding.message)
        if name_release:
            message += f" [{judged_against(finding)}]"
        prefix = f"{where} {label}{rule}"
        if len(prefix) > self.width * 3 // 5:  # a long path: the message starts below it
            header = [prefix.rstrip(), *wrap("    ", message, self.width, "    ")]
        else:
            header = wrap(prefix, message, self.width, "    ")
        out: list[Line] = [[(where, "bold"), " ", (label, sev),
                            (rule + header[0][len(prefix):]).rstrip()]]
        out += [[line] for line in header[1:]]
        source = self.source_line(span.path, span.line)
        if source is not None:
            shown, marks = underline(source, span)
            shown = printable(shown, keep="\t")
            gutter = str(span.line)
            shown, marks = crop(shown, marks, self.width - len(gutter) - 5)
            pad = " " * len(gutter)
            out.append(["  ", (gutter, "dim"), f" | {shown}"])
            out.append([f"  {pad} | ", (marks, sev)])
        for fix_line in finding.fix.splitlines():
            out += [[line] for line in wrap("  fix: ", printable(fix_line), self.width, "       ")]
        if finding.renderings:
            out += [[line] for line in wrap("  ", printable(renderings_line(finding.renderings)),
                                            self.width, "    ")]
        if repeats:
            places = ", ".join(f"{r.span.line}:{r.span.column}" for r in repeats)
            more = f"  also at {len(repeats)} more place{'s' if len(repeats) > 1 else ''}: "
            out += [[line] for line in wrap(more, places, self.width, "    ")]
        for related in finding.related[:RELATED_SHOWN]:
            out += [[line] for line in wrap("  related: ", f"{shown_path(related.path)}:"
                                            f"{related.line}:{related.column}", self.width, "    ")]
        if len(finding.related) > RELATED_SHOWN:  # (JSON and SARIF list every one)
            out.append([f"  related: … and {len(finding.related) - RELATED_SHOWN} more"])
        if finding.evidence:
            out += [[line] for line in wrap("  evidence: ", printable(finding.evidence), self.width,
                                            "    ")]
        self.write(out)

    def statistics(self, findings: Sequence[Finding]) -> None:
        counts: dict[tuple[str, str, Severity], int] = {}
        for f in findings:
            key = (f.code, f.rule, f.severity)
            counts[key] = counts.get(key, 0) + 1
        rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))
        width = max((len(str(n)) for _, n in rows), default=1)
        for (code, rule, sev), n in rows:
            self.write([[f"{n:>{width}}  {code}  {rule} ({sev.label})"]])

    def summary(self, findings: Sequence[Finding], files_checked: int,
                profiles_used: Sequence[str], ignored: int = 0,
                hidden: Mapping[Severity, int] | None = None, hidden_by: str = "",
                kinds: Mapping[str, int] | None = None) -> None:
        counts = {sev: sum(f.severity == sev for f in findings) for sev in Severity}
        files = f"{files_checked} file{'s' if files_checked != 1 else ''} checked"
        if kinds and len(kinds) > 1:  # files per kind, when there is more than one
            files += " (" + ", ".join(f"{n} {k}" for k, n in kinds.items()) + ")"
        hidden = {sev: n for sev, n in (hidden or {}).items() if n}
        if findings:
            parts = [_plural(counts[Severity.ERROR], "error"),
                     _plural(counts[Severity.WARNING], "warning")]
            if counts[Severity.INFO] or not hidden.get(Severity.INFO):
                parts.append(f"{counts[Severity.INFO]} info")
            line = ", ".join(parts) + f" in {files}"
        elif hidden:
            shown = [s.label + ("s" if s != Severity.INFO else "") for s in
                     sorted(Severity, reverse=True) if s > max(hidden)]
            line = f"no {' or '.join(shown)} in {files}"
        else:
            line = f"no problems in {files}"
        if hidden:
            what = ", ".join(_plural(n, sev.label) if sev != Severity.INFO else f"{n} info"
                             for sev, n in sorted(hidden.items(), reverse=True))
            why = "--show-info shows them" if hidden_by == "--show-info" else \
                f"below {hidden_by}"
            line += f"; {what} hidden ({why})"
        if ignored:
            line += f", {ignored} ignored"
        if profiles_used:
            line += f"; judged against {release_ranges(profiles_used)}"
        self.write([[part] for part in wrap("", line, self.width, "  ")])


def _console(stream: TextIO):
    """A rich console writing colour to ``stream`` as it is: no wrapping, markup or
    highlighting of the text."""
    from rich.console import Console  # (colour only)

    return Console(file=stream, force_terminal=True, color_system="standard", soft_wrap=True,
                   markup=False, highlight=False, emoji=False)


def shown_path(path: str) -> str:
    """A file name as printed: relative to the working folder when it is inside it (as the
    paths named on the command line usually are), escaped, and never the start of a
    workflow command."""
    if os.path.isabs(path):
        try:
            rel = os.path.relpath(path)
        except ValueError:  # another drive (Windows)
            rel = path
        if not rel.startswith(".."):
            path = rel
    shown = printable(path)
    return "./" + shown if shown.startswith("::") else shown


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def render_text(findings: Sequence[Finding], stream: TextIO, *, files_checked: int,
                profiles_used: Sequence[str], read_source: Callable[[str], str | None],
                color: bool, ignored: int = 0, view: TextView | None = None) -> None:
    view = view or TextView()
    reporter = TextReporter(stream, read_source, color, view.width or output_width(stream))
    if view.statistics:
        reporter.statistics(findings)
    else:
        by_path: dict[str, list[Finding]] = {}
        for finding in findings:
            by_path.setdefault(finding.span.path, []).append(finding)
        for path, found in by_path.items():
            reporter.file(path, found)
    if view.quiet:
        return
    if findings:
        reporter.write([[]])
    reporter.summary(findings, files_checked, profiles_used, ignored, view.hidden,
                     view.hidden_by, view.kinds)
    if findings:
        reporter.write([[docs_line(findings)]])


def docs_line(findings: Sequence[Finding]) -> str:
    """How to read about every rule shown: ``servelint explain CODE`` (the installed
    package holds each rule's page), and the rule pages' https address when one is known
    (``docs_links``): a repository path is no link a user of the package can open."""
    codes = sorted({f.code for f in findings})
    line = f"about a rule: servelint explain CODE ({', '.join(codes)})"
    pattern = rule_doc_url("<CODE>")
    return f"{line}; pages: {pattern}" if is_absolute(pattern) else line


def render_works_on(launches: list[Any], stream: TextIO) -> None:
    """``--works-on`` in text: per file, the releases its launches pass on (no error if
    the image were bumped to that release), launches with the same answer counted once."""
    by_file: dict[str, dict[str, int]] = {}
    for item in launches:
        summary = item_value(item)
        works = summary.get("works_on")
        engine = summary.get("engine", "")
        if works is None:
            said = ": cannot be told (no profiles, or not the engine's own image)"
        elif works.get("first") is None:
            said = f"{{pass}} on no {engine} release"
        else:
            count = works.get("releases")
            said = (f"{{pass}} on {engine} {works['first']} … {works['last']}"
                    + (f" ({count} release{'s' * (count != 1)})" if count is not None else ""))
        answers = by_file.setdefault(shown_path(summary.get("path", "?")), {})
        answers[said] = answers.get(said, 0) + 1
    if not by_file:
        return
    stream.write("\nworks on (each launch checked on every release):\n")
    for path, answers in sorted(by_file.items()):
        for said, n in sorted(answers.items()):
            verb = "passes" if n == 1 else "pass"
            line = f"{n} launch{'es' * (n != 1)} " + said.replace("{pass}", verb)
            stream.write(f"  {path}: {line.replace(' :', ':')}\n")
