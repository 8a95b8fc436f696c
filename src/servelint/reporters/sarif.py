"""SARIF 2.1.0 output (validated in tests against the vendored official schema).

Columns are 1-based Unicode code points (``columnKind: unicodeCodePoints``) and
``endColumn`` is exclusive, as in SARIF itself.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any, TextIO
from urllib.parse import quote

from servelint import __version__
from servelint.model import Finding, FixSafety, Severity, Span
from servelint.rules.base import Scope
from servelint.rules.docs_links import docs_base, is_absolute
from servelint.rules.registry import Rule
from servelint.util.textsafe import valid_unicode

SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def artifact_uri(path: str) -> str:
    """A relative URI for paths under the working directory, a file URI otherwise."""
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            candidate = candidate.relative_to(Path.cwd())
        except ValueError:
            return candidate.as_uri()
    # the file name's own bytes, percent-encoded (a name that is not UTF-8 stays exact)
    return quote(os.fsencode(PurePosixPath(*candidate.parts).as_posix()))


def region(span: Span) -> dict[str, int]:
    out = {"startLine": max(span.line, 1), "startColumn": max(span.column, 1)}
    if span.end_line is not None and span.end_line >= span.line:
        out["endLine"] = span.end_line
    if span.end_column is not None and span.end_column >= 1:
        out["endColumn"] = span.end_column
    return out


def location(span: Span) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": artifact_uri(span.path)},
                                 "region": region(span)}}


def rule_descriptor(meta: Rule) -> dict[str, Any]:
    first_paragraph = meta.doc.split("\n\n", 1)[0].replace("\n", " ").strip() or meta.summary
    url = meta.url
    doc = meta.doc or meta.summary
    if not is_absolute(url):  # no page address declared: the installed package's own page
        url = f"servelint explain {meta.code}"
        doc += f"\n\nmore: {url}"
    out = {
        "id": meta.code,
        "name": meta.name,
        "shortDescription": {"text": meta.summary},
        "fullDescription": {"text": first_paragraph},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": LEVELS[meta.severity]},
        "properties": {"fix_safe": meta.fix_safe, "docs": url},
    }
    if is_absolute(url):
        out["helpUri"] = url
    return out


def _fallback_meta(finding: Finding) -> Rule:
    return Rule(code=finding.code, name=finding.rule, severity=finding.severity,
                scope=Scope.FILE, fix=FixSafety.NONE, summary=finding.rule, doc="")


def result(finding: Finding, rule_index: int) -> dict[str, Any]:
    properties: dict[str, Any] = {"engine": finding.engine, "release": finding.release,
                                  "renderings": list(finding.renderings)}
    if finding.evidence:
        properties["evidence"] = finding.evidence
    if finding.fix:
        properties["fix"] = finding.fix
    out: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": _message(finding)},
        "locations": [location(finding.span)],
        "properties": properties,
    }
    if finding.related:
        out["relatedLocations"] = [{"id": i, **location(span)}
                                   for i, span in enumerate(finding.related)]
    fix = finding.autofix
    if fix is not None and fix.edits:
        out["fixes"] = [{
            "description": {"text": finding.fix or fix.description or "apply the suggested edit"},
            "artifactChanges": [{
                "artifactLocation": {"uri": artifact_uri(fix.path)},
                "replacements": [{"deletedRegion": region(edit.span),
                                  "insertedContent": {"text": edit.replacement}}
                                 for edit in fix.edits],
            }],
        }]
    return out


def _message(finding: Finding) -> str:
    if finding.release:
        return f"{finding.message} (judged against {finding.engine} {finding.release})"
    return finding.message


def sarif_document(findings: Sequence[Finding], metas: Sequence[Rule], *,
                   files_checked: int, profiles_used: Sequence[str],
                   suppressed: Sequence[Finding] = ()) -> dict[str, Any]:
    """``suppressed``: findings an inline ``servelint: ignore[...]`` comment silenced; they
    are listed with an in-source suppression, as code-scanning tools expect."""
    descriptors: list[Rule] = list(metas)
    index = {meta.code: i for i, meta in enumerate(descriptors)}
    for finding in [*findings, *suppressed]:  # a rule outside the catalog still gets one
        if finding.code not in index:
            index[finding.code] = len(descriptors)
            descriptors.append(_fallback_meta(finding))
    driver: dict[str, Any] = {"name": "servelint", "version": __version__,
                              "semanticVersion": __version__}
    if docs_base():  # an absolute URI only: no host is invented
        driver["informationUri"] = docs_base()
    driver["rules"] = [rule_descriptor(meta) for meta in descriptors]
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "invocations": [{"executionSuccessful": True}],
            "columnKind": "unicodeCodePoints",
            "results": [result(f, index[f.code]) for f in findings] +
                       [{**result(f, index[f.code]), "suppressions": [{"kind": "inSource"}]}
                        for f in suppressed],
            "properties": {"files_checked": files_checked,
                           "profiles_used": list(profiles_used)},
        }],
    }


def render_sarif(findings: Sequence[Finding], stream: TextIO, *, metas: Sequence[Rule],
                 files_checked: int, profiles_used: Sequence[str],
                 suppressed: Sequence[Finding] = ()) -> None:
    document = sarif_document(findings, metas, files_checked=files_checked,
                              profiles_used=profiles_used, suppressed=suppressed)
    # compact: the C encoder is ~20x faster than an indented dump on large runs
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    stream.write(valid_unicode(text) + "\n")
