"""environment variable the release does not know (unknown, removed or too new)

vLLM reads only the ``VLLM_*`` variables it registers. From 0.17 it logs "Unknown vLLM
environment variable detected" and goes on (a hard error with
``--fail-on-environ-validation``); before 0.17 it ignores them without a word. SGLang
ignores unknown ``SGLANG_*`` variables silently. Either way the setting you wrote has
no effect. servelint says whether the variable was removed (and what replaced it, when
the release says so) or only exists in a later release.

Which names are the engine's: those starting with a prefix its own variables share (a
first word that at least a tenth of the release's registered and read names start with:
``VLLM_`` for vLLM, ``SGLANG_``/``SGL_`` for SGLang, or the prefixes the profile names). A
name is known when the release registers it or any of its code reads it by a literal name
(connector, plugin and platform code: ``os.getenv``, ``os.environ[...]``, facts with the
code location in ``profiles/data/<engine>/env_reads.json.gz``).

In a Markdown guide the names it gives outside any launch (an ``export`` after the last
launch, a note or a table of knobs in inline code) are judged too, by name only, against
the release of the nearest launch. On a nightly or a build newer than every profile, a
name the judged release does not read may be one the newer build reads: info only (a name
an earlier release read and the judged one dropped stays a warning).

Bad (``VLLM_USE_FASTOKENS`` first appears in vLLM 0.22.0):

```bash bad engine=vllm==0.21.0
VLLM_USE_FASTOKENS=1 vllm serve Qwen/Qwen3-8B
```

Good:

```bash good engine=vllm==0.21.0
VLLM_USE_DEEP_GEMM=1 vllm serve Qwen/Qwen3-8B
```

Fix: drop it, or use what replaced it.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator

from packaging.version import Version

from servelint.model import Finding, FixSafety, Severity
from servelint.releases import release_facts
from servelint.rules._util import suggest
from servelint.rules.base import CheckContext, Scope, finding
from servelint.sources.markdown.env_mentions import mentions_of

CODE = "SL121"
NAME = "env-unknown"
SEVERITY = Severity.WARNING
MAY_ESCALATE = True  # an error when the launch sets --fail-on-environ-validation
SCOPE = Scope.LAUNCH
FIX = FixSafety.NONE

_PREFIX_SHARE = 10  # a prefix is the engine's when >= 1/10 of its env names start with it


def engine_prefixes(prof) -> tuple[str, ...]:  # noqa: ANN001
    """The prefixes of the release's own env names: the profile's ``env.prefixes``, else the
    first words shared by a tenth of its registered and read names, plus the prefix it
    rewrites (SGLang's ``SGL_`` -> ``SGLANG_``)."""
    return prof.derived("env_unknown.prefixes", lambda p: _prefixes(p.data.get("env", {})))


def _prefixes(env: dict) -> tuple[str, ...]:
    if env.get("prefixes"):
        return tuple(env["prefixes"])
    names = [*env.get("registry", {}), *env.get("read_unregistered", ())]
    words = Counter(n.split("_", 1)[0] + "_" for n in names if "_" in n)
    out = {w for w, n in words.items() if n * _PREFIX_SHARE >= len(names)}
    rewrite = env.get("prefix_rewrite") or {}
    if rewrite.get("from"):
        out.add(rewrite["from"])
    return tuple(sorted(out))


def _read_by_code(prof, name: str) -> bool:  # noqa: ANN001

    return release_facts.env_read_at(prof.engine, prof.version, name) is not None


def check(ctx: CheckContext) -> Iterator[Finding]:
    prof, spec = ctx.profile, ctx.spec
    prefixes = engine_prefixes(prof)
    strict = any(t.text == "--fail-on-environ-validation" for t in spec.argv)
    if ctx.extra.get("custom_image") and prof.data.get("env", {}).get("reads") is not None:
        return  # read-based facts say nothing of the code a custom build adds
    for env in [*spec.env, *mentions_of(spec)]:
        name = env.name
        if (
            not name.startswith(prefixes)
            or name in prof.env_registry
            or name in prof.env_read_unregistered
            or _read_by_code(prof, name)
        ):
            continue
        if _rewritten(prof, name) in prof.env_registry:
            continue  # the release reads it under the prefix it rewrites it to
        effect = _effect(prof)
        msg, fix = _explain(ctx, name, effect)
        # the release validates its environment (the unknown-variable warning) and the
        # launch makes that validation fatal
        sev = Severity.ERROR if strict and prof.env_unknown_warning else None
        partial = prof.data.get("env", {}).get("partial")
        if partial:  # read from part of the release only: a hint, never a warning
            msg += f" (the release's env facts are partial: {partial})"
            sev = Severity.INFO
        yield finding(
            sys.modules[__name__], ctx, env.span or spec.anchor, msg, fix=fix, severity=sev
        )


def _rewritten(prof, name: str) -> str | None:  # noqa: ANN001
    """The name the release reads ``name`` as when it rewrites its prefix (the profile's
    ``env.prefix_rewrite``: SGLang reads ``SGL_X`` as ``SGLANG_X``, with a warning)."""
    rewrite = prof.data.get("env", {}).get("prefix_rewrite") or {}
    old, new = rewrite.get("from"), rewrite.get("to")
    return new + name[len(old):] if old and new and name.startswith(old) else None


def _effect(prof) -> str:
    if prof.data.get("env", {}).get("reads") is not None:
        return "no code of the release reads it"
    if prof.engine == "vllm":
        return (
            "it logs an unknown-variable warning and ignores it"
            if prof.env_unknown_warning
            else "it ignores it without a warning"
        )
    return "it ignores it silently"


def _explain(ctx: CheckContext, name: str, effect: str) -> tuple[str, str]:
    prof, hist = ctx.profile, ctx.history
    hint = prof.env_removed_hints.get(name, "")
    pres = (hist.of("env", name).releases if hist else ()) or release_facts.env_read_releases(
        prof.engine, name
    )
    if pres:
        first, last = pres[0], pres[-1]
        if Version(first) > Version(prof.version):
            return (
                f"{name} is not registered in {prof.label} (it first appears in {first}): {effect}",
                f"pin {prof.engine} >= {first}, or drop it",
            )
        if Version(last) < Version(prof.version):
            return (
                f"{name} was removed after {prof.engine} {last}: {prof.label} no longer reads "
                f"it; {effect}",
                hint or "drop it (or use what replaced it)",
            )
    known = {*prof.env_registry, *prof.env_read_unregistered}
    reads = release_facts.env_reads_in(prof.engine, prof.version)
    guess = suggest(name, known | set(reads), cutoff=0.85)
    msg = f"{name} is not a {prof.engine} environment variable in {prof.label}: {effect}"
    if guess:
        at = (
            ""
            if guess in prof.env_registry
            else release_facts.env_read_at(prof.engine, prof.version, guess)
        )
        msg += f'; did you mean "{guess}"' + (f" (read at {at})" if at else "") + "?"
    return msg, hint or (f"use {guess}" if guess else "drop it")
