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

Fix: pin ``name==version`` with ``--hash`` (or a hashed lock file), or bake the package
into the image.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from functools import cache
from importlib import resources

from servelint.model import Finding, Severity
from servelint.rules._util import canonical_pkg
from servelint.rules.base import CheckContext, finding

CODE = "SL161"
NAME = "runtime-install"
SEVERITY = Severity.WARNING
FIX_SAFE = False
ROLES = ("notes",)  # independent of the release: once per launch


@cache
def popular() -> frozenset[str]:
    try:
        text = (resources.files("servelint") / "data" / "popular_packages.txt").read_text()
    except (FileNotFoundError, OSError):
        return frozenset()
    return frozenset(canonical_pkg(line.split()[0]) for line in text.splitlines()
                     if line.strip() and not line.startswith("#"))


def _pinned(inst) -> bool:
    spec = inst.specifier.replace(" ", "")
    return spec.startswith(("==", "===")) and "," not in spec and "*" not in spec


def check(ctx: CheckContext) -> Iterator[Finding]:
    spec = ctx.spec
    trust = any(t.text == "--trust-remote-code" for t in spec.argv)
    known = popular()
    for inst in spec.installs:
        if inst.kind in {"requirements-file", "constraints-file"} and inst.hashed:
            continue
        reasons = []
        if inst.symbolic:
            continue
        well_known = bool(inst.name) and canonical_pkg(inst.name) in known
        if not _pinned(inst) and inst.kind == "name":
            reasons.append("range not pinned to one version" if inst.specifier
                           else "no version pinned")
        if inst.kind in {"url", "vcs", "path", "wheel"}:
            reasons.append(f"installed from a {inst.kind}")
        if not inst.hashed:
            reasons.append("no hash")
        if not well_known and inst.kind == "name":
            reasons.append("not a well-known package (provenance unknown)")
        if well_known and inst.kind == "name" and not trust:
            continue  # a pinned-or-not well-known package alone is not worth a warning
        if not reasons:
            continue
        if trust:
            reasons.append("installed before a server started with --trust-remote-code")
        yield finding(sys.modules[__name__], ctx, inst.span or spec.anchor,
                      f'runtime install of "{inst.requirement}": ' + ", ".join(reasons),
                      fix=f"pin {inst.name or 'it'}==<version> with --hash (or a hashed lock "
                          "file), or bake it into the image")
