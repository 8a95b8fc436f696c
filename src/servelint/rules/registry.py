"""The rule registry: the only catalogue of servelint's rules.

Every rule is one module in this package declaring ``CODE`` (``SL101``), ``NAME``
(``flag-unknown``), ``SEVERITY`` (its default), ``SCOPE`` (what it reads: ``Scope``),
``FIX`` (the safest edit it offers: ``FixSafety``), optionally ``MAY_ESCALATE = True`` (it
can report an error above its default severity), a docstring that is its documentation,
and ``check(ctx)`` unless its scope is ``Scope.FILE`` (findings the pipeline emits from
reader problems or ignore comments). Adding a rule = a module plus a line in ``_MODULES``.

Reporters, ``servelint explain``, the config, ignore comments and the docs generator all
read the catalogue from here.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from types import ModuleType

from servelint.model import Finding, FixSafety, Severity
from servelint.rules.base import CheckContext, Scope
from servelint.rules.docs_links import rule_doc_url

# The order rules run in (findings of one span are reported in this order).
_MODULES = (
    "read_error",
    "flag_unknown",
    "flag_ambiguous",
    "flag_abbreviated",
    "flag_deprecated",
    "value_invalid",
    "value_late",
    "config_invalid",
    "validator_condition",
    "env_unknown",
    "env_value",
    "env_deprecated",
    "package_missing",
    "version_coherence",
    "image_unresolved",
    "backend_hardware",
    "runtime_install",
    "upgrade_notice",
    "entrypoint_shape",
    "argv_shape",
    "guide_drift",
    "dynamo_worker",
    "unused_ignore",
    "unknown_rule_in_ignore",
)


@dataclass(slots=True, eq=False)
class Rule:
    """One rule's catalogue entry (and, for rules the pipeline runs, its ``check``) (identity
    equality)."""

    code: str
    name: str
    severity: Severity
    scope: Scope
    fix: FixSafety
    summary: str
    doc: str
    may_escalate: bool = False
    module: ModuleType | None = None

    @property
    def url(self) -> str:
        """The rule's page, docs/rules/<CODE>.md (``servelint.rules.docs_links``)."""
        return rule_doc_url(self.code)

    @property
    def fix_safe(self) -> bool:
        """``--fix`` applies some of its edits without ``--unsafe-fixes``."""
        return self.fix is FixSafety.SAFE

    @property
    def runs(self) -> bool:
        """The pipeline calls its ``check`` (a ``Scope.FILE`` rule is emitted, not run)."""
        return self.scope is not Scope.FILE

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        if self.module is None or not self.runs:
            return iter(())
        return self.module.check(ctx)


def rule_of(module: ModuleType) -> Rule:
    """The catalogue entry a rule module declares (a missing declaration is an error)."""
    doc = inspect.getdoc(module) or ""
    scope, fix = Scope(module.SCOPE), FixSafety(module.FIX)
    if scope is not Scope.FILE and not callable(getattr(module, "check", None)):
        raise TypeError(f"rule module {module.__name__} of scope {scope} has no check()")
    return Rule(
        code=module.CODE,
        name=module.NAME,
        severity=module.SEVERITY,
        scope=scope,
        fix=fix,
        summary=doc.splitlines()[0] if doc else module.NAME,
        doc=doc,
        may_escalate=vars(module).get("MAY_ESCALATE", False),
        module=module,
    )


@dataclass(frozen=True, slots=True)
class _Table:
    """Every rule in run order, and the rules the pipeline runs per scope set: built once
    (a rule's entry reads its module's docstring; the judge asks for a run list per launch)."""

    rules: tuple[Rule, ...]
    runnable: dict[tuple[tuple[Scope, ...], bool], tuple[Rule, ...]]


@cache
def _table() -> _Table:
    every = tuple(rule_of(import_module(f"servelint.rules.{name}")) for name in _MODULES)
    lists = {}
    for scopes in ((Scope.NOTES,), (Scope.ARGV, Scope.LAUNCH)):
        for errors_only in (False, True):
            lists[scopes, errors_only] = _runnable(every, scopes, errors_only)
    return _Table(every, lists)


def rules() -> tuple[Rule, ...]:
    """Every rule, in the order they run."""
    return _table().rules


def catalogue() -> list[Rule]:
    """Every rule ordered by code (what reporters and docs list)."""
    return sorted(rules(), key=lambda rule: rule.code)


def get(ident: str) -> Rule | None:
    """The rule named ``ident``: kebab name, or code in any case."""
    wanted = ident.strip()
    for rule in rules():
        if wanted == rule.name or wanted.upper() == rule.code:
            return rule
    return None


def known_ids() -> set[str]:
    """Every accepted spelling of a rule id: kebab names and codes."""
    return {x for rule in rules() for x in (rule.code, rule.name)}


def suggest(ident: str) -> str | None:
    """A close rule id for a misspelt ``ident``, or None."""
    close = difflib.get_close_matches(ident, sorted(known_ids()), n=1, cutoff=0.75)
    return close[0] if close else None


def runnable(*scopes: Scope, errors_only: bool = False) -> tuple[Rule, ...]:
    """The rules of ``scopes`` the pipeline runs, in run order; with ``errors_only``, just
    those that can report an error."""
    found = _table().runnable.get((scopes, errors_only))
    return found if found is not None else _runnable(rules(), scopes, errors_only)


def _runnable(every: tuple[Rule, ...], scopes: tuple[Scope, ...], errors_only: bool
              ) -> tuple[Rule, ...]:
    return tuple(
        r
        for r in every
        if r.scope in scopes
        and r.runs
        and (not errors_only or r.severity == Severity.ERROR or r.may_escalate)
    )
