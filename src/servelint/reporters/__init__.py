"""Reporters: render findings as text, JSON, SARIF or GitHub annotations.

``render(findings, fmt, stream=..., files_checked=..., profiles_used=...)`` is the one
entry point; ``default_format(env)`` picks ``github`` inside GitHub Actions.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO

from servelint.model import Finding
from servelint.rules.registry import Rule, catalogue
from servelint.util import budget

# format -> its module under servelint.reporters, imported (in ``render``) for the format
# asked only: a text report never imports the SARIF or GitHub writers
_MODULES = {"text": "text", "json": "json_out", "sarif": "sarif", "github": "github"}
FORMATS = tuple(_MODULES)


def default_format(env: Mapping[str, str] | None = None) -> str:
    """``github`` when running in GitHub Actions, else ``text``."""
    env = os.environ if env is None else env
    return "github" if env.get("GITHUB_ACTIONS") == "true" else "text"


def read_file(path: str) -> str | None:
    """The text of ``path``, or None when it cannot be read."""
    try:
        if not os.path.isfile(path):  # a FIFO would block
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def profile_label(profile: str | tuple[str, str]) -> str:
    """``"vllm 0.27.1"`` from ``("vllm", "0.27.1")``, ``"vllm==0.27.1"`` or itself."""
    if isinstance(profile, tuple):
        return " ".join(profile)
    return profile.replace("==", " ")


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (*f.span.sort_key(), f.code, f.message))


def capped(finding: Finding) -> Finding:
    """``finding`` with its message and fix text cut to the report cap (a 7 MB value quoted
    in a message is not repeated whole)."""
    limit = budget.MAX_MESSAGE_CHARS
    if len(finding.message) <= limit and len(finding.fix) <= limit:
        return finding
    return dataclasses.replace(finding, message=budget.capped_text(finding.message),
                               fix=budget.capped_text(finding.fix))


def render(
    findings: Iterable[Finding],
    fmt: str,
    *,
    stream: TextIO,
    files_checked: int | Sequence[str] = 0,
    ignored: int | Sequence[Finding] = 0,
    profiles_used: Iterable[str | tuple[str, str]] = (),
    extra: Mapping[str, Any] | None = None,
    rules: Sequence[Rule] | None = None,
    read_source: Callable[[str], str | None] = read_file,
    color: bool | None = None,
    view: Any = None,
) -> None:
    """Write ``findings`` to ``stream`` in format ``fmt`` (one of ``FORMATS``).

    ``ignored`` (findings suppressed by inline comments, or their count) is
    counted in the text and JSON summaries; ``extra`` adds top-level keys to JSON output (e.g. ``launches``); ``rules`` is
    the SARIF rule catalog (default: every registered rule); ``color=None`` decides
    from the stream and NO_COLOR/FORCE_COLOR; ``view`` (``text.TextView``) says what the text
    report hides, and how it shows the rest.
    """
    if not isinstance(files_checked, int):  # the list of files checked
        files_checked = len(files_checked)
    suppressed: Sequence[Finding] = () if isinstance(ignored, int) else list(ignored)
    if not isinstance(ignored, int):
        ignored = len(ignored)
    ordered = [capped(f) for f in sort_findings(findings)]
    labels = list(dict.fromkeys(profile_label(p) for p in profiles_used))
    if fmt not in _MODULES:
        raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")
    writer = importlib.import_module(f"servelint.reporters.{_MODULES[fmt]}")
    if fmt == "text":
        writer.render_text(ordered, stream, files_checked=files_checked, profiles_used=labels,
                           read_source=read_source, ignored=ignored, view=view,
                           color=writer.use_color(stream) if color is None else color)
    elif fmt == "json":
        writer.render_json(ordered, stream, files_checked=files_checked, profiles_used=labels,
                           extra=extra, ignored=ignored)
    elif fmt == "sarif":
        writer.render_sarif(ordered, stream, metas=catalogue() if rules is None else rules,
                            files_checked=files_checked, profiles_used=labels,
                            suppressed=sort_findings(suppressed))
    else:
        writer.render_github(ordered, stream, files_checked=files_checked, profiles_used=labels)
