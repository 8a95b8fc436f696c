"""Shared by the engines' conformance doc writers: one section of docs/conformance.md between
its own begin/end markers, and the disagreement lines grouped by reason."""

from __future__ import annotations

from pathlib import Path


def reason_lines(cases: list[dict], reason_of: dict[str, str]) -> list[str]:
    """The cases grouped by their listed reason ("NOT LISTED" when none), as Markdown."""
    grouped: dict[str, list[dict]] = {}
    for c in cases:
        grouped.setdefault(reason_of.get(c["id"], "NOT LISTED"), []).append(c)
    lines = []
    for why, group in grouped.items():
        lines.append(f"  * reason: {why}")
        lines.append(f"    * real, e.g.: {group[0]['real'][:200]}")
        lines += [f"    * `{c['id']}`: `{' '.join(c['argv'][2:])[:100]}`" for c in group]
    return lines


def write_section(doc: Path, begin: str, end: str, block: str) -> None:
    """Replace the text between ``begin`` and ``end`` in ``doc`` by ``block`` (which carries
    both markers), or append ``block`` when the markers are not there yet."""
    text = doc.read_text() if doc.exists() else ""
    if begin in text and end in text:
        head, _, rest = text.partition(begin)
        _, _, tail = rest.partition(end)
        text = head + block.rstrip("\n") + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block
    doc.write_text(text)
    print("wrote", doc)
