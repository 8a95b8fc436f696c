"""GitHub Actions workflow-command annotations (``::error file=...::message``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from servelint.model import Finding, Severity
from servelint.reporters.text import release_ranges
from servelint.util.textsafe import printable

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message (workflow-commands spec); other control characters (ESC)
    become visible escapes, so nothing in a value acts on the log or starts a line."""
    text = printable(text, keep="\r\n")
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property value: data escapes plus ':' and ','."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workspace_path(path: str) -> str:
    """GitHub wants paths relative to the workspace: relativize absolute paths under cwd."""
    if os.path.isabs(path):
        try:
            return Path(path).relative_to(Path.cwd()).as_posix()
        except ValueError:
            return path
    return path


def annotation(finding: Finding) -> str:
    span = finding.span
    props = [f"file={escape_property(workspace_path(span.path))}", f"line={span.line}", f"col={span.column}"]
    end_line = span.end_line if span.end_line is not None else span.line
    props.append(f"endLine={end_line}")
    if span.end_column is not None and end_line == span.line:
        props.append(f"endColumn={span.end_column}")
    props.append(f"title={escape_property(f'{finding.code} {finding.rule}')}")
    message = finding.message
    if finding.release:
        message += f" (judged against {finding.engine} {finding.release})"
    if finding.fix:
        message += f"\nfix: {finding.fix}"
    return f"::{COMMANDS[finding.severity]} {','.join(props)}::{escape_data(message)}"


def render_github(findings: Sequence[Finding], stream: TextIO, *, files_checked: int,
                  profiles_used: Sequence[str]) -> None:
    for finding in findings:
        stream.write(annotation(finding) + "\n")
    against = f" (judged against {release_ranges(profiles_used)})" if profiles_used else ""
    stream.write(f"servelint: {_plural(len(findings), 'finding')} in "
                 f"{_plural(files_checked, 'file')} checked{against}\n")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"
