"""The check pipeline's entry points (kept for callers; the stages live in
:mod:`servelint.pipeline`)."""

from __future__ import annotations

from servelint.pipeline import CheckReport, FileResult, LaunchReport, check_paths, check_text
from servelint.pipeline.control import read_text
from servelint.pipeline.options import Options

__all__ = [
    "CheckReport",
    "FileResult",
    "LaunchReport",
    "Options",
    "check_paths",
    "check_text",
    "read_text",
]
