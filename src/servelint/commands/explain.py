"""``servelint explain [RULE]``: a rule's documentation, or the list of rules."""

from __future__ import annotations

import argparse
import sys

from servelint.rules import registry
from servelint.rules.docs_links import is_absolute
from servelint.rules.registry import Rule


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("rule", nargs="?", help="rule code (SL101) or name (flag-unknown); "
                                           "omit to list every rule")
    p.set_defaults(func=run)


def header(meta: Rule) -> str:
    fix = {"safe": "safe autofix", "unsafe": "unsafe autofix (--unsafe-fixes)"}.get(
        meta.fix, "no autofix")
    return f"{meta.code} {meta.name} (default severity {meta.severity.label}, {fix})"


def explain_text(meta: Rule) -> str:
    """The rule's page as the package holds it; its https address when one is declared
    (``docs_links``: the repository path alone is no page a user of the package has)."""
    page = f"\n\ndocs: {meta.url}" if is_absolute(meta.url) else ""
    return f"{header(meta)}\n\n{meta.doc or meta.summary}{page}\n"


def list_text(metas: list[Rule]) -> str:
    width = max((len(m.name) for m in metas), default=0)
    rows = [f"{m.code}  {m.name:<{width}}  {m.severity.label:<7}  {m.summary}" for m in metas]
    return "\n".join(rows) + "\n"


def run(args: argparse.Namespace) -> int:
    if not args.rule:
        sys.stdout.write(list_text(registry.catalogue()))
        return 0
    meta = registry.get(args.rule)
    if meta is None:
        close = registry.suggest(args.rule)
        hint = f'did you mean "{close}"?' if close else 'run "servelint explain" to list the rules'
        print(f'servelint: unknown rule "{args.rule}". {hint}', file=sys.stderr)
        return 2
    sys.stdout.write(explain_text(meta))
    return 0
