"""The rule catalog every reporter and doc tool reads: rule modules plus built-in rules.

Rule modules come from ``servelint.rules.registry()``; the ignore-comment rules
(SL901, SL902) are built in (``servelint.ignores``).
"""

from __future__ import annotations

import difflib

import servelint.rules as rules_pkg
from servelint.ignores import BUILTIN_RULES
from servelint.rules.base import RuleMeta, meta_of


def rule_modules() -> list:
    """The registered rule modules ([] until the registry exists)."""
    registry = getattr(rules_pkg, "registry", None)
    return list(registry()) if registry else []


def rule_metas() -> list[RuleMeta]:
    """Metadata of every rule, ordered by code."""
    metas = [meta_of(module) for module in rule_modules()] + list(BUILTIN_RULES)
    return sorted(metas, key=lambda meta: meta.code)


def known_rule_ids(metas: list[RuleMeta] | None = None) -> set[str]:
    """Every accepted spelling of a rule id: kebab names and codes."""
    metas = rule_metas() if metas is None else metas
    return {meta.name for meta in metas} | {meta.code for meta in metas}


def find_rule(ident: str, metas: list[RuleMeta] | None = None) -> RuleMeta | None:
    """The rule named ``ident`` (kebab name or code, code case-insensitive)."""
    metas = rule_metas() if metas is None else metas
    wanted = ident.strip()
    for meta in metas:
        if wanted == meta.name or wanted.upper() == meta.code:
            return meta
    return None


def suggest_rule(ident: str, metas: list[RuleMeta] | None = None) -> str | None:
    """A close rule id for a misspelt ``ident``, or None."""
    close = difflib.get_close_matches(ident, sorted(known_rule_ids(metas)), n=1, cutoff=0.75)
    return close[0] if close else None
