"""Inline ignores and the config (severity remaps, disabled rules, min severity)."""

from __future__ import annotations

import os
from typing import Any

from servelint.model import Finding
from servelint.pipeline.ignores import apply_ignores
from servelint.pipeline.options import Options
from servelint.pipeline.read import MAX_FILE_BYTES
from servelint.rules import registry
from servelint.sources.common import overlay


def apply_control(findings: list[Finding], options: Options, report: Any) -> list[Finding]:
    """Inline ignores and config (severity remaps, disabled rules, min severity)."""
    if not options.no_ignores:
        kept, ignored, extra = apply_ignores(
            findings, read_text, registry.known_ids, checked_paths=report.files
        )
        report.ignored = list(ignored)
        findings = list(kept) + list(extra)
    if options.config is not None and hasattr(options.config, "apply"):
        findings = options.config.apply(findings)
    return sorted(findings, key=lambda f: (f.span.sort_key(), f.code, f.message))


def read_text(path: str) -> str | None:
    """A checked file's text (the ignores read it once, then the text report's excerpts)."""
    stand_in = overlay.get(path)  # --fix re-checking an edit it has not written yet
    if stand_in is not None:
        return stand_in.decode("utf-8", errors="replace")
    if not os.path.isfile(path):  # a FIFO would block
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(MAX_FILE_BYTES)
    except OSError:
        return None
