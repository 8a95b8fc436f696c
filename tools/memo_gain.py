"""CPU seconds of one in-process check with one process-wide memo bypassed.

    python tools/memo_gain.py MEMO [PATH]

PATH: default ``$SERVELINT_CORPUS/vllm-recipes`` (``../shared/corpus`` when unset).

MEMO is one of ``NAMES`` (``none``: every memo kept). The gain written beside a memo in
docs/architecture.md ("Speed machinery") is this figure minus the ``none`` one, on the same
machine in the same session (the figures swing with load: run ``none`` before and after).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path

from servelint import profiles
from servelint.pipeline import argv_memo
from servelint.releases import resolve
from servelint.rules import _util, registry


def _bypass_lru(lru) -> None:  # noqa: ANN001
    lru.get_or = lambda key, compute: compute()


def _no_listing_memo() -> None:
    def available(engine: str) -> tuple[str, ...]:
        read = profiles._folder_read(engine)
        read.releases = profiles._releases_in(engine)
        read.versions = tuple(profiles.Version(v) for v in read.releases)
        return read.releases

    profiles.available = available


def _bypass(name: str) -> None:
    if name == "argv":
        _bypass_lru(argv_memo._MEMO)
    elif name == "resolved":
        _bypass_lru(resolve._RESOLVED)
    elif name == "parsed":
        _bypass_lru(resolve._PARSED)
    elif name == "load":
        profiles.load = profiles._read_profile
    elif name == "available":
        _no_listing_memo()
    elif name == "suggest":
        _util._suggest = _util._suggest.__wrapped__
    elif name == "table":
        registry._table = registry._table.__wrapped__
    elif name != "none":
        raise SystemExit(f"unknown memo {name!r}; one of {', '.join(NAMES)}")


NAMES = ("none", "argv", "resolved", "parsed", "load", "available", "suggest", "table")


def main() -> int:
    from servelint.check import Options, check_paths

    name = sys.argv[1] if len(sys.argv) > 1 else "none"
    corpus = os.environ.get("SERVELINT_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus"
    default = Path(corpus) / "vllm-recipes"
    path = sys.argv[2] if len(sys.argv) > 2 else str(default)
    _bypass(name)
    gc.set_threshold(100_000, 50, 100)  # as cli.main sets it
    start = time.process_time()
    report = check_paths([path], Options(use_cache=False, jobs=1))
    print(f"{name}: {time.process_time() - start:.2f} s CPU, {len(report.findings)} findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
