"""The ``--fix`` / ``--diff`` / ``--unsafe-fixes`` front of ``servelint check``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from servelint.fixes.session import forget_file_contents, print_diff, run_fixes, summary
from servelint.fixes.verify import Checker
from servelint.model import Finding

__all__ = ["fix_command", "forget_file_contents"]


def fix_command(
    check: Checker, shown: Callable[[list[Finding]], list[Finding]], args: argparse.Namespace
) -> tuple[int | None, Any]:
    """Run the fixes of the findings ``shown`` keeps (``--min-severity``); read problems
    of every severity still refuse a file. ``--diff`` and ``--fix`` compute the same run;
    ``--diff`` prints it and returns (exit code, None), ``--fix`` writes it and returns
    (None, the report of the files as written)."""
    write = args.fix and not args.diff
    run, report = run_fixes(
        check, list(args.paths), unsafe=args.unsafe_fixes, write=write, select=shown
    )
    print(summary(run, shown(report.findings), unsafe=args.unsafe_fixes, write=write),
          file=sys.stderr)
    if not write:
        print_diff(run, sys.stdout)
        return (1 if any(f.changed for f in run.files.values()) else 0), None
    return None, report
