"""runtime package install that is not pinned, not hashed or of unknown provenance

A launcher that runs ``pip install`` before starting the server installs whatever the
index serves that day into the serving process. servelint warns when a package is not
pinned to one version, has no hash, is not a well-known package (a bundled list of
widely used distributions: provenance unknown), and especially when the server then runs
with ``--trust-remote-code``.

Bad:

```bash bad engine=vllm==0.21.0
pip install 'fastokens>=0.1.1,<0.2.0'
vllm serve deepseek-ai/DeepSeek-R1 --trust-remote-code --tokenizer-mode fastokens
```

Good:

```bash good engine=vllm==0.21.0
pip install --require-hashes -r requirements.lock
vllm serve deepseek-ai/DeepSeek-R1 --trust-remote-code
```

The engine's own package installed unpinned (a guide's ``uv pip install -U vllm``) is not
reported here: it is how guides install the engine, and which release it gives is what the
release range judges (an option that fails on the release it installs today is an error
there).

Fix: pin ``name==version`` with ``--hash`` (or a hashed lock file), or bake the package
into the image.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from servelint.engines import registry as engines
from servelint.model import Finding, FixSafety, Severity
from servelint.rules._util import canonical_pkg
from servelint.rules.base import CheckContext, Scope, finding
from servelint.sources.common.pip import well_known_packages

CODE = "SL161"
NAME = "runtime-install"
SEVERITY = Severity.WARNING
SCOPE = Scope.NOTES
FIX = FixSafety.NONE


def _pinned(inst) -> bool:
    spec = inst.specifier.replace(" ", "")
    return spec.startswith(("==", "===")) and "," not in spec and "*" not in spec


def _reasons(inst, known: frozenset[str]) -> list[str]:
    """What is wrong with one installed requirement (empty: nothing worth a warning)."""
    if inst.symbolic or (inst.kind in {"requirements-file", "constraints-file"} and inst.hashed):
        return []
    well_known = bool(inst.name) and canonical_pkg(inst.name) in known
    reasons = []
    if inst.kind == "name" and not _pinned(inst):
        reasons.append("range not pinned to one version" if inst.specifier else "no version pinned")
    if inst.kind in {"url", "vcs", "path", "wheel"}:
        reasons.append(f"installed from a {inst.kind}")
    if not inst.hashed:
        reasons.append("no hash")
    if inst.kind == "name" and not well_known:
        reasons.append("not a well-known package (provenance unknown)")
    return reasons


def check(ctx: CheckContext) -> Iterator[Finding]:
    spec = ctx.spec
    trust = any(t.text == "--trust-remote-code" for t in spec.argv)
    by_command: dict[tuple, list] = {}
    engine = engines.find(spec.engine)
    own = canonical_pkg(engine.package) if engine is not None and engine.package else None
    for inst in spec.installs:
        if inst.from_context:
            continue  # a guide's install step for the reader, not a line of this launcher
        if own and inst.kind == "name" and inst.name and canonical_pkg(inst.name) == own:
            continue  # the engine itself: its release range judges what it installs
        line = inst.span.line if inst.span else 0
        by_command.setdefault((inst.command, line), []).append(inst)
    if not by_command:
        return

    known = well_known_packages()
    for insts in by_command.values():
        flagged, minor = [], []
        for inst in insts:
            reasons = _reasons(inst, known)
            if not reasons:
                continue
            if "not a well-known package (provenance unknown)" in reasons or inst.kind in {
                "url",
                "vcs",
                "path",
                "wheel",
            }:
                flagged.append((inst, reasons))
            else:
                minor.append(inst)  # a well-known package, unpinned or unhashed
        if not flagged and not (minor and trust):
            continue
        first = flagged[0][0] if flagged else minor[0]
        parts = [f'"{i.requirement}": ' + ", ".join(r) for i, r in flagged]
        if minor:
            names = ", ".join(i.requirement for i in minor)
            parts.append(f"{'also ' if flagged else ''}unpinned and unhashed: {names}")
        msg = "runtime install of " + "; ".join(parts)
        if trust:
            msg += "; installed before a server started with --trust-remote-code"
        yield finding(
            sys.modules[__name__],
            ctx,
            first.span or spec.anchor,
            msg,
            fix="pin name==version with --hash (or a hashed lock file), or bake the "
            "packages into the image",
        )
