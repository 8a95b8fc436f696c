"""``--select`` / ``--ignore``: which rules a run reports, by code, code prefix or name.

``--select SL1,flag-deprecated`` keeps the rules whose code starts with ``SL1`` and
``flag-deprecated``; ``--ignore`` then drops rules the same way. An id that names no
rule is a usage error (did-you-mean), never a silent no-op.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from servelint.model import Finding
from servelint.rules.registry import Rule
from servelint.util.cli_values import did_you_mean


def split_ids(values: Iterable[str] | None) -> list[str]:
    """Ids from repeated and comma-separated option values."""
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


def rule_codes(ids: Sequence[str], metas: Sequence[Rule], option: str) -> frozenset[str]:
    """The codes of the rules ``ids`` name; ValueError (one line) for an unknown id."""
    codes: set[str] = set()
    for ident in ids:
        upper = ident.upper()
        hits = {
            m.code
            for m in metas
            if ident == m.name or (upper.startswith("SL") and m.code.startswith(upper))
        }
        if not hits:
            choices = sorted({m.name for m in metas} | {m.code for m in metas})
            raise ValueError(
                f'{option}: unknown rule "{ident}"{did_you_mean(ident, choices, cutoff=0.75)}'
            )
        codes |= hits
    return frozenset(codes)


@dataclass(slots=True, eq=False)
class Selection:
    """The rules ``--select`` and ``--ignore`` keep, as rule codes."""

    select: frozenset[str] | None = None  # None: every rule
    ignore: frozenset[str] = frozenset()

    @classmethod
    def from_options(
        cls, select: Iterable[str] | None, ignore: Iterable[str] | None, metas: Sequence[Rule]
    ) -> Selection:
        chosen = split_ids(select)
        return cls(
            select=rule_codes(chosen, metas, "--select") if chosen else None,
            ignore=rule_codes(split_ids(ignore), metas, "--ignore"),
        )

    def keeps(self, finding: Finding) -> bool:
        code = finding.code.upper()
        return (self.select is None or code in self.select) and code not in self.ignore

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        return [f for f in findings if self.keeps(f)]
