"""Versioned JSON output (``"version": 1``). Positions are 1-based; end_column is exclusive."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from servelint import __version__
from servelint.model import Finding, Severity, Span
from servelint.rules.docs_links import rule_doc_url
from servelint.util.textsafe import valid_unicode

JSON_VERSION = 1
RESERVED_KEYS = {"version", "tool", "findings", "summary"}


def span_dict(span: Span) -> dict[str, Any]:
    return {
        "path": span.path,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
    }


def finding_dict(finding: Finding) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rule": finding.rule,
        "code": finding.code,
        "severity": finding.severity.label,
        **span_dict(finding.span),
        "message": finding.message,
        "engine": finding.engine,
        "release": finding.release,
        "renderings": list(finding.renderings),
        "fix": finding.fix,
        "evidence": finding.evidence,
        "related": [span_dict(span) for span in finding.related],
        "url": rule_doc_url(finding.code),
        "patch": None,
    }
    fix = finding.autofix
    if fix is not None and len(fix.edits) == 1:  # kept from the first format: one edit
        edit = fix.edits[0]
        out["patch"] = {**span_dict(edit.span), "replacement": edit.replacement}
    if fix is not None:  # what --fix applies: every edit, "old" narrowing its span
        out["autofix"] = {
            "safety": str(fix.safety),
            "description": fix.description,
            "edits": [
                {**span_dict(e.span), "replacement": e.replacement, "old": e.old} for e in fix.edits
            ],
        }
    return out


def summary_dict(
    findings: Sequence[Finding], files_checked: int, profiles_used: Sequence[str], ignored: int = 0
) -> dict[str, Any]:
    return {
        "findings": len(findings),
        "errors": sum(f.severity == Severity.ERROR for f in findings),
        "warnings": sum(f.severity == Severity.WARNING for f in findings),
        "info": sum(f.severity == Severity.INFO for f in findings),
        "ignored": ignored,
        "files_checked": files_checked,
        "profiles_used": list(profiles_used),
    }


def render_json(
    findings: Sequence[Finding],
    stream: TextIO,
    *,
    files_checked: int,
    profiles_used: Sequence[str],
    extra: Mapping[str, Any] | None = None,
    ignored: int = 0,
) -> None:
    clash = RESERVED_KEYS & set(extra or {})
    if clash:
        raise ValueError(f"extra JSON keys clash with reserved keys: {sorted(clash)}")
    document = {
        "version": JSON_VERSION,
        "tool": {"name": "servelint", "version": __version__},
        "findings": [finding_dict(f) for f in findings],
        "summary": summary_dict(findings, files_checked, profiles_used, ignored),
        **(extra or {}),
    }
    write_document(document, stream)


class Encoded(str):
    """A list item already encoded by ``encode_item`` (a cached launch summary): written as
    it is."""


def item_value(item: Any) -> Any:
    """A list item as a value: an ``Encoded`` one (a cached launch summary) decoded."""
    return json.loads(str(item)) if isinstance(item, Encoded) else item


def encode_item(value: Any) -> str:
    """A value as the writer writes it: compact; file names that are not UTF-8 get U+FFFD."""
    return valid_unicode(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def write_document(document: Mapping[str, Any], stream: TextIO) -> None:
    """Compact JSON, written list item by list item: a corpus report (tens of MB) is never one
    string in memory, and each piece goes through json's C encoder (``json.dump`` would use
    the pure-Python one)."""

    def dumps(value: Any) -> str:
        return value if isinstance(value, Encoded) else encode_item(value)

    stream.write("{")
    for n, (key, value) in enumerate(document.items()):
        stream.write(("," if n else "") + dumps(key) + ":")
        if isinstance(value, list):
            stream.write("[")
            for i, item in enumerate(value):
                stream.write(("," if i else "") + dumps(item))
            stream.write("]")
        else:
            stream.write(dumps(value))
    stream.write("}\n")
