"""``--fix`` / ``--diff`` / ``--unsafe-fixes``: apply the ``Fix`` edits findings carry.

ruff's model: ``--fix`` applies safe fixes, ``--unsafe-fixes`` adds the unsafe ones,
``--diff`` prints what ``--fix`` would change as a unified diff and writes nothing. A file
with a read problem (an SL001 warning or error: not UTF-8, malformed, truncated) is never
touched. Writes are atomic (a temporary file in the same folder, then ``os.replace``), keep
the file's mode, and happen only when the text changed. Text edits: ``servelint.fixes.edits``.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from servelint.fixes.edits import apply_fixes
from servelint.model import Finding, Fix, FixSafety, Severity
from servelint.rules.read_error import CODE as READ_ERROR

YAML_SUFFIXES = {".yaml", ".yml"}


@dataclass(slots=True)
class FileFix:
    """One file's text before and after its fixes, and the findings fixed or skipped."""

    path: str
    original: str
    fixed: str
    applied: list[Finding] = field(default_factory=list)
    skipped: list[tuple[Finding, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.fixed != self.original

    def diff(self) -> str:
        lines = difflib.unified_diff(
            self.original.splitlines(keepends=True),
            self.fixed.splitlines(keepends=True),
            fromfile=f"a/{self.path.lstrip('/')}",
            tofile=f"b/{self.path.lstrip('/')}",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in lines
        )


def wanted(fix: Fix | None, unsafe: bool) -> bool:
    return fix is not None and (
        fix.safety is FixSafety.SAFE or (unsafe and fix.safety is FixSafety.UNSAFE)
    )


def unreadable_files(findings: Iterable[Finding]) -> set[str]:
    """Files with a read problem worth a warning: never fixed."""
    return {
        f.span.path for f in findings if f.code == READ_ERROR and f.severity >= Severity.WARNING
    }


def plan(
    findings: list[Finding],
    *,
    unsafe: bool,
    unreadable: set[str] | None = None,
) -> tuple[dict[str, list[Finding]], int]:
    """Findings whose fix applies, per file, in a deterministic order; and how many wanted
    fixes were refused because their file has read problems (``unreadable``: default, the
    files ``findings`` report read problems for)."""
    refused = unreadable_files(findings) if unreadable is None else unreadable
    by_file: dict[str, list[Finding]] = {}
    skipped = 0
    for f in findings:
        fix = f.autofix
        if not wanted(fix, unsafe) or not fix.edits:  # type: ignore[union-attr]
            continue
        if any(e.span.path != fix.path for e in fix.edits) or fix.path in refused:  # type: ignore[union-attr]
            skipped += 1
            continue
        by_file.setdefault(fix.path, []).append(f)  # type: ignore[union-attr]
    for items in by_file.values():
        items.sort(key=lambda f: (_first_edit(f), f.code, f.message))
    return by_file, skipped


def _first_edit(f: Finding) -> tuple[int, int]:
    span = f.autofix.edits[0].span  # type: ignore[union-attr]
    return span.line, span.column


def read_exact(path: str) -> str | None:
    """The file's text as written (strict UTF-8, newlines kept), or None."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def fix_file(path: str, findings: list[Finding], text: str | None = None) -> FileFix | None:
    """The fixes of ``findings`` applied to ``text`` (default: the file's text on disk)."""
    text = read_exact(path) if text is None else text
    if text is None:
        return None
    fixes = [f.autofix for f in findings]
    fixed, applied, skipped = apply_fixes(text, fixes, yaml=Path(path).suffix in YAML_SUFFIXES)  # type: ignore[arg-type]
    applied_ids = {id(fix) for fix in applied}
    why = {id(fix): reason for fix, reason in skipped}
    return FileFix(
        path,
        text,
        fixed,
        applied=[f for f in findings if id(f.autofix) in applied_ids],
        skipped=[(f, why[id(f.autofix)]) for f in findings if id(f.autofix) in why],
    )


def write_atomic(path: str, text: str) -> None:
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.chmod(tmp, target.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def fix_findings(
    findings: list[Finding],
    *,
    unsafe: bool,
    unreadable: set[str] | None = None,
    texts: dict[str, str] | None = None,
) -> tuple[list[FileFix], int]:
    """Compute (not write) the fixed text of every file with applicable fixes; ``texts``
    holds the files' current texts where they differ from the disk (earlier passes)."""
    by_file, refused = plan(findings, unsafe=unsafe, unreadable=unreadable)
    out = []
    for path in sorted(by_file):
        result = fix_file(path, by_file[path], (texts or {}).get(path))
        if result is None:
            refused += len(by_file[path])
        else:
            out.append(result)
    return out, refused
