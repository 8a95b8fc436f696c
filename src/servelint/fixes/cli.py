"""The ``--fix`` / ``--diff`` / ``--unsafe-fixes`` front of ``servelint check``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from servelint.fixes.session import print_diff, run_fixes, summary
from servelint.model import Finding

Check = Callable[[list[str]], list[Finding]]


def forget_file_contents() -> None:
    """Drop what this process remembers of file contents (texts, digests, recipe repos)."""
    from servelint import cache
    from servelint.pipeline import control
    from servelint.sources.recipe import load

    control._TEXT_CACHE.clear()
    cache._file_digest.cache_clear()
    load._load_repo.cache_clear()


def fix_command(
    check: Check, shown: Callable[[list[Finding]], list[Finding]], args: argparse.Namespace
) -> tuple[int | None, list[Finding]]:
    """Run the fixes of the findings ``shown`` keeps (``--min-severity``); read problems
    of every severity still refuse a file. Returns (exit code, []) for ``--diff`` (nothing
    else to print), or (None, findings shown after the fixes) for ``--fix``."""

    def fresh(paths: list[str]) -> list[Finding]:
        forget_file_contents()  # the files may have just been rewritten
        return check(paths)

    write = args.fix and not args.diff
    run, findings = run_fixes(
        fresh, list(args.paths), unsafe=args.unsafe_fixes, write=write, select=shown
    )
    print(summary(run, shown(findings), unsafe=args.unsafe_fixes, write=write), file=sys.stderr)
    if not write:
        print_diff(run, sys.stdout)
        return (1 if any(f.changed for f in run.files.values()) else 0), []
    return None, shown(findings)
