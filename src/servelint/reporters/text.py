"""Human output: one header line per finding, source excerpt, caret, fix and renderings.

Colour (on a terminal only) is rich's; without it the text is plain and rich is not imported.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

from servelint.model import Finding, Severity
from servelint.reporters.excerpt import underline

MAX_RENDERINGS_LISTED = 3  # more than this: name the first one and count the rest

_STYLES = {"bold": "bold", "dim": "dim", "red": "bold red", "yellow": "bold yellow",
           "cyan": "bold cyan"}
_SEVERITY_STYLE = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
# one line of output: plain text and (text, style name) pieces
Line = list[str | tuple[str, str]]


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


class TextReporter:
    def __init__(self, stream: TextIO, read_source: Callable[[str], str | None],
                 color: bool) -> None:
        self.stream = stream
        self.read_source = read_source
        self.color = color
        self._console = _console(stream) if color else None
        self._lines: dict[str, list[str] | None] = {}

    def write(self, lines: list[Line]) -> None:
        if self._console is None:
            self.stream.write("".join("".join(p if isinstance(p, str) else p[0] for p in line)
                                      + "\n" for line in lines))
            return
        from rich.text import Text

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

    def finding(self, finding: Finding) -> None:
        span = finding.span
        sev = _SEVERITY_STYLE[finding.severity]
        header: Line = [(f"{span.path}:{span.line}:{span.column}:", "bold"), " ",
                        (finding.severity.label, sev),
                        f"[{finding.code} {finding.rule}] {finding.message}"]
        against = judged_against(finding)
        if against:
            header.append((f" (judged against {against})", "dim"))
        out = [header]
        source = self.source_line(span.path, span.line)
        if source is not None:
            shown, marks = underline(source, span)
            gutter = str(span.line)
            pad = " " * len(gutter)
            out.append(["  ", (gutter, "dim"), f" | {shown}"])
            out.append([f"  {pad} | ", (marks, sev)])
        out += [[f"  fix: {fix_line}"] for fix_line in finding.fix.splitlines()]
        if finding.renderings:
            out.append([f"  {renderings_line(finding.renderings)}"])
        for related in finding.related:
            out.append([f"  related: {related.path}:{related.line}:{related.column}"])
        if finding.evidence:
            out.append([f"  evidence: {finding.evidence}"])
        self.write(out)

    def summary(self, findings: Sequence[Finding], files_checked: int,
                profiles_used: Sequence[str], ignored: int = 0) -> None:
        counts = {sev: sum(f.severity == sev for f in findings) for sev in Severity}
        files = f"{files_checked} file{'s' if files_checked != 1 else ''} checked"
        if findings:
            parts = [_plural(counts[Severity.ERROR], "error"),
                     _plural(counts[Severity.WARNING], "warning"),
                     f"{counts[Severity.INFO]} info"]
            line = ", ".join(parts) + f" in {files}"
        else:
            line = f"no problems in {files}"
        if ignored:
            line += f", {ignored} ignored"
        if profiles_used:
            line += f" (judged against {', '.join(profiles_used)})"
        self.write([[line]])


def _console(stream: TextIO):
    """A rich console writing colour to ``stream`` as it is: no wrapping, markup or
    highlighting of the text."""
    from rich.console import Console

    return Console(file=stream, force_terminal=True, color_system="standard", soft_wrap=True,
                   markup=False, highlight=False, emoji=False)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def render_text(findings: Sequence[Finding], stream: TextIO, *, files_checked: int,
                profiles_used: Sequence[str], read_source: Callable[[str], str | None],
                color: bool, ignored: int = 0) -> None:
    reporter = TextReporter(stream, read_source, color)
    for finding in findings:
        reporter.finding(finding)
    if findings:
        reporter.write([[]])
    reporter.summary(findings, files_checked, profiles_used, ignored)
