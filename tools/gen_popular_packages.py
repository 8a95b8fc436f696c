#!/usr/bin/env python3
"""Regenerate src/servelint/data/popular_packages.txt from the offline PyPI listing.

"Well-known" here means: among the TOP_N most downloaded PyPI projects (column
``rank_among_15000_most_downloaded``) AND publishing a non-empty summary. Download rank
alone is a weak provenance signal in the long tail: a project ranked in the thousands
can owe its downloads to one CI pipeline or one parent package pulling it in (the
incident's ``fastokens`` is ranked 9612 and its metadata names no author, licence or
summary). The top 5,000 (ranks 1..5000) is the band where a name is broadly used across
unrelated projects; a missing summary excludes projects that publish no metadata.
Being listed says "widely used", never "safe"; being absent says "provenance unknown to
servelint offline", which a rule may report as such.

Usage: python tools/gen_popular_packages.py [PYPI_TSV] [OUT]
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

TOP_N = 5000
DEFAULT_TSV = "/work/.library/env/packages/pypi.tsv"
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src/servelint/data/popular_packages.txt"


def canonical(name: str) -> str:
    import re

    return re.sub(r"[-_.]+", "-", name).lower()


def select(rows: list[dict[str, str]], top_n: int = TOP_N) -> list[tuple[int, str]]:
    out: dict[str, int] = {}
    for row in rows:
        rank = (row.get("rank_among_15000_most_downloaded") or "").strip()
        if not rank.isdigit() or int(rank) > top_n:
            continue
        if not (row.get("summary") or "").strip():
            continue
        name = canonical(row["name"])
        out[name] = min(int(rank), out.get(name, int(rank)))
    return sorted((r, n) for n, r in out.items())


def main(argv: list[str]) -> int:
    tsv = argv[1] if len(argv) > 1 else DEFAULT_TSV
    dest = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUT
    csv.field_size_limit(1 << 24)
    with open(tsv, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    chosen = select(rows)
    header = [
        "# Well-known PyPI projects (canonical names), most downloaded first.",
        f"# Rule: download rank <= {TOP_N} and a non-empty summary; see "
        "tools/gen_popular_packages.py.",
        f"# Source: pypi.tsv listing ({len(rows)} rows). {len(chosen)} names.",
    ]
    dest.write_text("\n".join(header + [n for _, n in chosen]) + "\n", encoding="utf-8")
    print(f"wrote {len(chosen)} names to {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
