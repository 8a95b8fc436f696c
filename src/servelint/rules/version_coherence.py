"""version floor disagrees with the image or with what the launch uses

A recipe states ``min_vllm_version``; its image pins a release; its flags, values and
env vars each exist from some release on. servelint reports a floor above the image's
release, and every flag, value or env var that first appears after the floor (so
"needs >= 0.27.0" when the floor says 0.26.0). For every output format, a floor whose
release the history index proves failing (a flag it lacks, a value it rejects) is reported
once per launch too, naming the first release the index does not rule out
(``release_floor.floor_below``). Each is placed at the floor the fix raises (the recipe's
``min_vllm_version``, also for a flag a shared strategy file adds, which is named as
related), and the findings of a file that the same edit answers ("raise the floor to X")
are joined into one naming every cause (``one_per_fix``); the findings of one floor that
ask for different releases, into the one asking for the highest (``_one_per_floor``).

Bad (``--mamba-backend`` first appears in vLLM 0.20.0):

```yaml bad
model:
  model_id: org/model
  min_vllm_version: "0.17.0"
  base_args: ["--mamba-backend", "flashinfer"]
variants:
  default: {precision: bf16, vram_minimum_gb: 20}
compatible_strategies: [single_node_tp]
```

Good:

```yaml good
model:
  model_id: org/model
  min_vllm_version: "0.20.0"
  base_args: ["--mamba-backend", "flashinfer"]
variants:
  default: {precision: bf16, vram_minimum_gb: 20}
compatible_strategies: [single_node_tp]
```

Fix: raise the floor to the release named, or pin an image that matches it.

Autofix (safe): ``min_vllm_version`` raised to the newest first release the launch needs,
unless that is above the image's release. Unsafe: a floor above the image's release bumps the
engine's own image tag (``vllm/vllm-openai:v0.26.0`` -> ``v0.27.1``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

from packaging.version import InvalidVersion, Version

from servelint.model import Finding, Fix, FixSafety, Severity
from servelint.releases.resolve import is_engines_own_image, release_version
from servelint.rules._fixes import set_value
from servelint.rules._util import argv_fact, is_symbolic, normalise_flag, token_span
from servelint.rules.base import CheckContext, Scope, finding
from servelint.rules.value_late import values_to_check

CODE = "SL141"
NAME = "version-coherence"
SEVERITY = Severity.WARNING
SCOPE = Scope.LAUNCH
FIX = FixSafety.SAFE


def _first_after(hist: Any, floor_pos: int, kind: str, key: str) -> str | None:
    """The release that first has ``key`` (of ``kind``) when that is newer than the floor."""
    first = hist.of(kind, key).first
    if kind == "late" and first == hist.of(kind, key.split("=", 1)[0]).first:
        first = None  # the set is first recorded there too: older releases may
        # have taken the value another way (argparse choices), so nothing is known
    return first if first and first != hist.releases[0] and hist._pos(first) > floor_pos else None


def _argv_late(ctx: CheckContext, floor_pos: int) -> list[tuple[int, str, str]]:
    """(argv index, what, first release) of each flag and value newer than the floor."""
    spec, hist = ctx.spec, ctx.history
    out: list[tuple[int, str, str]] = []
    seen: set[tuple[str, int]] = set()
    for opt in ctx.parsed.options:
        if opt.action is None or is_symbolic(spec, opt.index):
            continue
        name = opt.canonical if opt.abbreviated else \
            normalise_flag(opt.written).split(".", 1)[0]
        first = _first_after(hist, floor_pos, "option", name)
        if first and (name, opt.index) not in seen:
            seen.add((name, opt.index))
            out.append((opt.index, f'flag "{name}"', first))
    for target, value, index in values_to_check(ctx):
        entry = ctx.profile.late_for(target)
        if entry is None:
            continue
        first = _first_after(hist, floor_pos, "late", f"{entry[0]}={value}")
        if first:
            out.append((index, f'{entry[0].replace("_", " ")} "{value}"', first))
    return out


def _image_floor_finding(ctx: CheckContext, floor: Any) -> Finding | None:
    """The recipe's floor above the release its image pins."""
    spec, prof = ctx.spec, ctx.profile
    image_release = release_version(ctx.extra.get("image_release"))
    if image_release is None or floor <= image_release:
        return None
    f = finding(sys.modules[__name__], ctx, spec.floor_span or spec.anchor,
                f"min_vllm_version {spec.floor} is above the release the image pins "
                f"({image_release}): the recipe claims a release its image does not have",
                fix=f"pin an image with {prof.engine} >= {spec.floor}, or lower the floor")
    f.autofix = _image_bump(ctx, str(image_release), str(floor))
    return f


def check(ctx: CheckContext) -> Iterator[Finding]:
    spec, prof, hist = ctx.spec, ctx.profile, ctx.history
    floor = release_version(spec.floor)
    if floor is None or hist is None or not hist.releases:
        return
    image_finding = _image_floor_finding(ctx, floor)
    if image_finding is not None:
        yield image_finding
    floor_pos = hist._pos(str(floor))
    floor_label = f"{spec.context.get('floor_key') or 'the floor'} {spec.floor}"
    # the argv part depends only on the parse and the floor: computed once per parse
    found = []
    argv = argv_fact(ctx.parsed, ("version-coherence", floor_pos),
                     lambda: _argv_late(ctx, floor_pos))
    for index, what, first in argv:
        found.append((first, _at_floor(ctx, token_span(spec, index),
                      f"{what} first appears in {prof.engine} {first}, but {floor_label}",
                      f"raise the floor to {first}")))
    for env in spec.env:
        first = _first_after(hist, floor_pos, "env", env.name) \
            if env.name in prof.env_registry else None
        if first:
            found.append((first, _at_floor(ctx, env.span or spec.anchor,
                          f"{env.name} first appears in {prof.engine} {first}, but "
                          f"{floor_label}", f"raise the floor to {first}")))
    yield from _with_floor_fix(ctx, found)


def _at_floor(ctx: CheckContext, where: Any, message: str, fix: str) -> Finding:
    """A finding at the floor the fix raises (the recipe's ``min_vllm_version``, even for a
    flag a shared strategy file adds), the flag or env var that needs more as related."""
    floor_span = ctx.spec.floor_span
    if floor_span is None or where is None:
        return finding(sys.modules[__name__], ctx, where or ctx.spec.anchor, message, fix=fix)
    return finding(sys.modules[__name__], ctx, floor_span, message, fix=fix, related=[where])


def _image_bump(ctx: CheckContext, have: str, want: str) -> Fix | None:
    """Unsafe (another release runs): the engine's own image tag ``v<have>`` bumped to
    ``v<want>``, when servelint knows release ``want``."""
    spec, hist = ctx.spec, ctx.history
    image = spec.image or ""
    repo, _, tag = image.rpartition(":")
    if tag != f"v{have}" or not is_engines_own_image(ctx.profile.engine, image) or \
            hist is None or want not in hist.releases:
        return None
    return set_value(spec.image_span, f"{repo}:{tag}", f"{repo}:v{want}", FixSafety.UNSAFE,
                     f"bump the image to {repo}:v{want}")


def _with_floor_fix(ctx: CheckContext, found: list[tuple[str, Finding]]) -> Iterator[Finding]:
    """Each finding offers the same safe edit: the recipe floor raised to the newest first
    release the launch needs (a floor only states the oldest release it works on)."""

    spec = ctx.spec
    needed = max((first for first, _ in found), key=release_version, default=None)
    image = release_version(ctx.extra.get("image_release"))
    fix = None
    floor_key = spec.context.get("floor_key")  # the document's own floor key: editable
    if needed and floor_key and spec.floor and \
            (image is None or release_version(needed) <= image):
        fix = set_value(spec.floor_span, spec.floor, needed, FixSafety.SAFE,
                        f"raise {floor_key} to {needed}")
    for _, f in found:
        f.autofix = fix
        yield f


# ------------------------------------------------------------------ one finding per fix

_CAUSE = re.compile(r"^(?P<what>.+) first appears in \S+ \S+, but (?P<floor>.+)$")
_RAISE = re.compile(r"^raise the floor to (?P<to>\S+)(?: \(on (?P<on>[^:]+): (?P<why>.+)\))?$")
_BELOW = re.compile(r"^(?P<floor>.+?) is below ")
_SHOWN = 6  # causes named in a joined message


def one_per_fix(findings: list[Finding]) -> list[Finding]:
    """Findings of this rule at one floor that the same edit answers ("raise the floor to
    X": a flag of a strategy file every multi-node rendering adds, the same flag on every
    GPU, the floor's own failure) joined into one, naming every cause; others as they are."""
    out: list[Finding] = []
    groups: dict[tuple, list[Finding]] = {}
    for f in findings:
        m = _RAISE.match(f.fix) if f.code == CODE else None
        if m is None:
            out.append(f)
            continue
        key = (f.span.path, f.span.line, f.span.column, m.group("to"), f.severity)
        if key not in groups:
            groups[key] = []
            out.append(f)  # its place in the order; replaced below when joined
        groups[key].append(f)
    joined = {id(fs[0]): _joined(fs, key[3]) for key, fs in groups.items() if len(fs) > 1}
    return _one_per_floor([joined.get(id(f), f) for f in out])


_FIRST_WITH = re.compile(r"^.+? is below \S+ (?P<to>\S+), the first release with (?P<what>.+?)"
                          r"(?: \(it fails on .+\))?$")


def _one_per_floor(findings: list[Finding]) -> list[Finding]:
    """The findings of one floor that ask for different releases joined into the one asking
    for the highest: raising the floor to it answers every one (each lower release and its
    causes are named, so a cause can be dropped instead)."""
    places: dict[tuple, list[Finding]] = {}
    for f in findings:
        m = _RAISE.match(f.fix) if f.code == CODE else None
        if m is not None:
            places.setdefault((f.span.path, f.span.line, f.span.column), []).append(f)
    replaced: dict[int, Finding | None] = {}
    for group in places.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda f: _release_key(_RAISE.match(f.fix).group("to")), reverse=True)
        top = group[0]
        top_to = _RAISE.match(top.fix).group("to")
        lower: list[str] = []
        for f in group[1:]:
            to = _RAISE.match(f.fix).group("to")
            named = _FIRST_WITH.match(f.message) or _CAUSE.match(f.message)
            said = f"{to} ({named.group('what')})" if named else f.message
            if to != top_to and said not in lower:
                lower.append(said)
            top.severity = max(top.severity, f.severity)
            top.related += [s for s in (f.span, *f.related)
                            if s not in top.related and s != top.span]
            top.renderings += [r for r in f.renderings if r not in top.renderings]
            replaced[id(f)] = None
        if lower:
            top.message += f"; it is also below {', '.join(lower)}, which raising it answers too"
    return [f for f in findings if replaced.get(id(f), f) is not None]


def _release_key(release: str) -> tuple:
    try:
        return (1, Version(release))
    except InvalidVersion:
        return (0, Version("0"))


def _joined(group: list[Finding], to: str) -> Finding:
    first = group[0]
    causes: list[str] = []
    floor, fails = "", ""
    for f in group:
        cause, below = _CAUSE.match(f.message), _BELOW.match(f.message)
        if cause is not None:
            floor = floor or cause.group("floor")
            if cause.group("what") not in causes:
                causes.append(cause.group("what"))
        elif below is not None:
            floor = floor or below.group("floor")
        raise_m = _RAISE.match(f.fix)
        if raise_m is not None and raise_m.group("on") and not fails:
            fails = f"it fails on {raise_m.group('on')}: {raise_m.group('why')}"
    if not causes or not floor:
        return first
    named = ", ".join(causes[:_SHOWN]) + (
        f" and {len(causes) - _SHOWN} more" if len(causes) > _SHOWN else ""
    )
    renderings = list(dict.fromkeys(r for f in group for r in f.renderings))
    related = list(dict.fromkeys(s for f in group for s in f.related))
    message = f"{floor} is below {first.engine} {to}, the first release with {named}"
    return Finding(
        rule=first.rule, code=first.code, severity=first.severity,
        message=message + (f" ({fails})" if fails else ""), span=first.span,
        engine=first.engine, release=first.release, renderings=renderings,
        fix=f"raise the floor to {to}", related=related, autofix=first.autofix,
        evidence=first.evidence,
    )
