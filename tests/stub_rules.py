"""Stub rules for tests of the reporters, config and docs (independent of real rules)."""

from __future__ import annotations

import types

from servelint.model import Finding, FixSafety, Severity, Span
from servelint.rules.base import Scope
from servelint.rules.registry import Rule, rule_of


def stub_rule(code: str, name: str, severity: Severity, doc: str,
              fix: FixSafety = FixSafety.NONE) -> Rule:
    module = types.ModuleType(f"stub_{name.replace('-', '_')}", doc)
    module.CODE, module.NAME, module.SEVERITY = code, name, severity
    module.SCOPE, module.FIX = Scope.LAUNCH, fix
    module.check = lambda ctx: iter(())
    return rule_of(module)


FLAG = stub_rule("SL101", "flag-unknown", Severity.ERROR, """flag not accepted by the release

Longer explanation.

```bash bad engine=vllm==0.21.0
vllm serve m --bogus
```

```bash good
vllm serve m
```
""")
ENV = stub_rule("SL301", "env-deprecated", Severity.WARNING, "env var deprecated\n\nMore.",
                fix=FixSafety.SAFE)
STUBS = [FLAG, ENV]


def make_finding(path: str = "r.sh", line: int = 1, column: int = 1, *, code: str = "SL101",
                 rule: str = "flag-unknown", severity: Severity = Severity.ERROR,
                 end_line: int | None = None, end_column: int | None = None,
                 message: str = 'unknown flag "--bogus"', **kw) -> Finding:
    span = Span(path, line, column, end_line if end_line is not None else line, end_column)
    kw.setdefault("engine", "vllm")
    kw.setdefault("release", "0.27.1")
    return Finding(rule=rule, code=code, severity=severity, message=message, span=span, **kw)
