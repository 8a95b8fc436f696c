"""Per-file notes: findings that say one thing about a whole file are reported once.

``release-unresolved`` (SL142) says a launch's release could not be pinned down; a
Markdown guide with twelve ``vllm serve`` blocks and no image, or a recipe rendered for
many GPUs, used to repeat it per launch. It now comes once per file, at the first launch,
with the other launches as related spans and every distinct reason in the message: the
same facts, in one note. Applied after inline ignores, so an ignore still covers one
launch.

A warning about one name (a deprecated or abbreviated flag, an environment variable a
release does not read) with one remedy is one cause, however many launcher scripts or
recipes repeat it: InferenceX gave 368 flag-deprecated warnings from 9 flags, one per
script. ``one_finding_per_cause`` reports it once, at its first place, with every other
place as a related span and the count in the message (``--fix`` sees each place: the
fix session does not join). So are the flags one launch's parser rejects with one remedy
(a benchmark client's arguments written after the server command): one error.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from packaging.version import InvalidVersion, Version

from servelint.model import Finding, Severity

PER_FILE_CODES = frozenset({"SL142"})
# warnings whose cause is one name and whose remedy (``fix``) is the same wherever it is
# written, whichever release judged it: flag-unknown, flag-abbreviated, flag-deprecated
# (the flag's name), env-unknown, env-deprecated (the variable's)
BY_NAME = {"SL101": "flag", "SL103": "flag", "SL104": "flag", "SL121": "env", "SL123": "env"}
# warnings whose message up to its first parenthesis is the cause (the release, the option
# and the value it rejects): flag-ambiguous, dynamo-worker-flag, value-invalid,
# value-rejected-later, config-invalid, validator-rejects
BY_MESSAGE = frozenset({"SL102", "SL109", "SL111", "SL112", "SL113", "SL114"})
_QUOTED = re.compile(r'"([^"]+)"')
_QUOTED_WORD = re.compile(r'"[^"]*"')
_FIRST_WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\b")


def one_note_per_file(findings: Iterable[Finding]) -> list[Finding]:
    out: list[Finding] = []
    firsts: dict[tuple[str, str], Finding] = {}
    reasons: dict[tuple[str, str], list[str]] = {}
    seen: dict[tuple[str, str], tuple[set, set]] = {}  # (spans, renderings) of each first
    for f in findings:
        if f.code not in PER_FILE_CODES:
            out.append(f)
            continue
        key = (f.code, f.span.path)
        first = firsts.get(key)
        if first is None:
            firsts[key] = f
            reasons[key] = [f.message]
            seen[key] = ({f.span, *f.related}, set(f.renderings))
            out.append(f)
            continue
        spans, renderings = seen[key]
        if f.span not in spans:
            spans.add(f.span)
            first.related.append(f.span)
        if f.message not in reasons[key]:
            reasons[key].append(f.message)
        first.severity = max(first.severity, f.severity)
        for r in f.renderings:
            if r not in renderings:
                renderings.add(r)
                first.renderings.append(r)
    for key, first in firsts.items():
        launches = len({first.span, *first.related})
        if launches > 1 or len(reasons[key]) > 1:
            first.message = (
                f"{launches} launches in this file: " if launches > 1 else ""
            ) + "; ".join(reasons[key])
    return out


def _cause(f: Finding) -> tuple | None:
    """(rule, engine, name, remedy) of a warning that names one cause, else None."""
    if f.severity != Severity.WARNING or not f.fix:
        return None
    if f.code in BY_MESSAGE:
        return (f.code, f.engine, f.message.split(" (", 1)[0], f.fix)
    by = BY_NAME.get(f.code)
    m = (_FIRST_WORD if by == "env" else _QUOTED).search(f.message) if by else None
    return (f.code, f.engine, m.group(1), f.fix) if m else None


def _one_launch(f: Finding) -> tuple | None:
    """(path, launches, release, remedy) of an unknown-flag error with no suggestion: the
    flags one launch's parser rejects with one remedy are one cause (a benchmark client's
    ``--dataset-name --random-input-len --num-prompts`` written after ``sglang serve``)."""
    if f.code != "SL101" or f.severity < Severity.WARNING or not f.renderings:
        return None
    if not f.message.startswith("unknown flag ") or "did you mean" in f.message:
        return None
    return ("launch", f.span.path, tuple(f.renderings), f.release, f.fix, f.severity)


def one_finding_per_cause(findings: Iterable[Finding]) -> list[Finding]:
    """Warnings of one cause (``_cause``) in many places joined into the first, which lists
    the others as related spans and says how many places and files repeat it; the unknown
    flags of one launch with one remedy (``_one_launch``), into its first."""
    findings = list(findings)
    launches = Counter(k for f in findings if (k := _one_launch(f)) is not None)
    out: list[Finding] = []
    groups: dict[tuple, list[Finding]] = {}
    for f in findings:
        launch = _one_launch(f)
        key = launch if launch is not None and launches[launch] > 1 else _cause(f)
        if key is None:
            out.append(f)
            continue
        if key not in groups:
            groups[key] = []
            out.append(f)
        groups[key].append(f)
    for key, group in groups.items():
        if len(group) > 1:
            (_join_flags if key[0] == "launch" else _join)(group)
    return out


def _join_flags(group: list[Finding]) -> None:
    """``unknown flag "--a" (also "--b", "--c") for …``, the other flags as related."""
    first = group[0]
    names = [m.group(0) for f in group[1:] if (m := _QUOTED_WORD.search(f.message))]
    quoted = _QUOTED_WORD.search(first.message)
    if quoted is None:
        return
    first.message = (f"{first.message[:quoted.end()]} (also {', '.join(names)})"
                     f"{first.message[quoted.end():]}")
    first.related += [s for f in group[1:] for s in (f.span, *f.related)
                      if s not in first.related]


def _join(group: list[Finding]) -> None:
    first = group[0]
    spans = {first.span, *first.related}
    renderings = set(first.renderings)
    for f in group[1:]:
        for span in (f.span, *f.related):
            if span not in spans:
                spans.add(span)
                first.related.append(span)
        for r in f.renderings:
            if r not in renderings:
                renderings.add(r)
                first.renderings.append(r)
    files = {s.path for s in spans}
    releases = sorted({f.release for f in group if f.release}, key=_release_order)
    judged = f"judged on {first.engine} {', '.join(releases)}" if len(releases) > 1 else ""
    if len(spans) == 1:  # one place judged on several releases
        if judged:
            first.message += f" [{judged}]"
        return
    where = f"{len(spans)} places" + (f" in {len(files)} files" if len(files) > 1 else "")
    first.message += (f" [one cause: {where}{', ' + judged if judged else ''}; the others "
                      "are listed as related]")


def _release_order(release: str) -> tuple:
    try:
        return (0, Version(release), "")
    except InvalidVersion:
        return (1, Version("0"), release)
