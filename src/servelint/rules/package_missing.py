"""flag, value or env var needs a package the pinned image does not contain

Some settings switch on a code path that imports an optional package. When the image
(or the wheel, for a pip install) does not ship it, the server raises ImportError at
startup and a container restarts forever. servelint takes the trigger, the package and
its version from the release's own code, the image's package set from the release's
requirements plus what the official image adds, and counts packages the launch
installs itself before starting the server.

Bad (vLLM 0.27.1: ``VLLM_USE_FASTOKENS=1`` needs ``fastokens>=0.2.0``, which the image lacks):

```bash bad engine=vllm==0.27.1 image=vllm/vllm-openai:v0.27.1
VLLM_USE_FASTOKENS=1 vllm serve nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16
```

Good:

```bash good engine=vllm==0.27.1 image=vllm/vllm-openai:v0.27.1
vllm serve nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16
```

Fixes: (1) drop the setting; (2) make it an opt-in feature that declares the dependency
(``pip install "fastokens>=0.2.0"``); (3) pin an image that ships the package (servelint
says whether any release's image does).

Autofix (unsafe, ``--unsafe-fixes``): fix (1), the env var or flag dropped.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from servelint.model import Finding, Fix, FixSafety, ReleaseFrom, Severity, Span, release_kind
from servelint.releases import image_contents
from servelint.rules._fixes import drop_env, drop_tokens, option_tokens
from servelint.rules._util import (
    canonical_pkg,
    env_truthy,
    is_symbolic,
    option_dests,
    shell_quote,
    token_span,
    written_options,
)
from servelint.rules.base import CheckContext, Scope, finding
from servelint.util import hardware

PLATFORM_VENDOR = {"rocm": "amd", "xpu": "intel", "cuda": "nvidia", "tpu": "google", "cpu": "cpu"}

CODE = "SL131"
NAME = "package-missing"
SEVERITY = Severity.ERROR
SCOPE = Scope.LAUNCH
FIX = FixSafety.UNSAFE


def _matches_value(want: Any, got: str | None) -> bool:
    if want is None:
        return True
    if got is None:
        return False
    if want == "truthy":
        return env_truthy(got)
    return str(want) == got or str(want).lower() == got.lower()


def _env_trigger(ctx: CheckContext, trigger: dict[str, Any]) -> tuple[Span, str] | None:
    spec = ctx.spec
    for env in spec.env:
        if env.name == trigger.get("name") and not env.symbolic and \
                _matches_value(trigger.get("value"), env.value):
            return env.span or spec.anchor, f"{env.name}={env.value}"
    return None


def _option_trigger(ctx: CheckContext, trigger: dict[str, Any], opt: Any, value: str | None,
                    ) -> tuple[Span, str] | None:
    """``opt`` (its value ``value``) sets the option the trigger names."""
    act, spec = opt.action, ctx.spec
    if act.dest != (trigger.get("dest") or trigger.get("name")) or opt.config_path:
        return None
    vi = opt.value_index if opt.value_index is not None else opt.index
    want = trigger.get("value")
    if is_symbolic(spec, vi) and want is not None:
        return None
    if act.takes_value:
        if not _matches_value(want, value):
            return None
    elif want not in (None, "truthy") or (
            act.raw.get("negative") and opt.written.split("=", 1)[0] in act.raw["negative"]):
        return None  # a flag with a value to match, or --no-grpc turning it off
    shown = f"{act.primary} {value}" if value is not None else act.primary
    return token_span(spec, opt.index), shown


def _config_trigger(ctx: CheckContext, trigger: dict[str, Any], opt: Any, value: str | None,
                    ) -> tuple[Span, str] | None:
    """``opt`` sets the nested config key the trigger names (dotted or inside its JSON)."""
    act, spec = opt.action, ctx.spec
    path = trigger.get("path") or ""
    dest, _, key = path.partition(".")
    if opt.config_path == path and _matches_value(trigger.get("value"), value):
        return token_span(spec, opt.index), f"{opt.written} {value}"
    vi = opt.value_index if opt.value_index is not None else opt.index
    if act.dest != dest or not value or opt.config_path or is_symbolic(spec, vi):
        return None
    try:
        obj = json.loads(value)
    except ValueError:
        return None
    if isinstance(obj, dict) and key in obj and \
            _matches_value(trigger.get("value"), str(obj[key])):
        return token_span(spec, vi), f'{act.primary} {{"{key}": "{obj[key]}"}}'
    return None


def options_by_dest(ctx: CheckContext) -> dict[str, list[Any]]:
    """The launch's parsed options that have an action, by the action's dest (argv order)."""
    out: dict[str, list[Any]] = {}
    for opt in ctx.parsed.options:
        if opt.action is not None:
            out.setdefault(opt.action.dest, []).append(opt)
    return out


def triggered(ctx: CheckContext, trigger: dict[str, Any],
              by_dest: dict[str, list[Any]]) -> tuple[Span, str] | None:
    """Where the launch sets the gate's trigger, with a human description. ``by_dest``
    (``options_by_dest``, built once per launch) narrows an option trigger to the options
    of its dest: ``_option_trigger`` matches no other."""
    kind = trigger.get("kind")
    if kind == "env":
        return _env_trigger(ctx, trigger)
    if kind == "option":
        options = by_dest.get(trigger.get("dest") or trigger.get("name"), ())
    else:
        options = ctx.parsed.options
    for opt in options:
        if opt.action is None:
            continue
        value = opt.value if isinstance(opt.value, str) else None
        hit = None
        if kind == "option":
            hit = _option_trigger(ctx, trigger, opt, value)
        elif kind == "config":
            hit = _config_trigger(ctx, trigger, opt, value)
        if hit is not None:
            return hit
    return None


def _satisfies(available: str, needed: str) -> bool:
    """Could an install constrained by ``available`` satisfy ``needed``? (both specifiers)"""
    try:
        a, n = SpecifierSet(available or ""), SpecifierSet(needed or "")
    except InvalidSpecifier:
        return True  # cannot tell: do not claim a conflict
    candidates = set()
    for spec in list(a) + list(n):
        try:
            v = Version(spec.version.replace("*", "0"))
        except InvalidVersion:
            continue
        candidates.update({v, Version(f"{v.base_version}.post1"),
                           Version(f"{v.major}.{v.minor}.{v.micro + 1}"),
                           Version(f"{v.major}.{v.minor + 1}.0"), Version(f"{v.major + 1}.0.0")})
    if not candidates:
        return True
    return any(a.contains(c, prereleases=True) and n.contains(c, prereleases=True)
               for c in candidates)


def image_has(ctx: CheckContext, package: str, needed: str) -> tuple[bool, bool, str]:
    """(present and compatible, absence known from the build files, the set's basis and
    any caveat, for the message)."""
    if ctx.spec.image is None:  # a pip-installed engine: only the wheel's requirements count
        entry = {canonical_pkg(k): v for k, v in ctx.profile.image_packages().items()}.get(
            canonical_pkg(package))
        if entry and entry.get("source") != "requires-dist":
            entry = None
        known, basis = True, "the wheel's Requires-Dist"
    else:
        got = image_contents.lookup(ctx.profile.image, image_contents.flavour(
            ctx.spec.image, ctx.spec.gpu), package)
        entry, known = got.entry, got.known
        basis = got.basis + (f"; {got.caveat}" if got.caveat else "")
    if entry is None:
        return False, known, basis
    return _satisfies(entry.get("specifier", ""), needed), known, basis


def installed_by_launch(ctx: CheckContext, package: str, needed: str) -> tuple[bool, Any]:
    for inst in ctx.spec.installs:
        if inst.name and canonical_pkg(inst.name) == canonical_pkg(package):
            if inst.symbolic:
                return True, inst
            return _satisfies(inst.specifier, needed), inst
    return False, None


def installed_set_unknown(ctx: CheckContext) -> str:
    """Why the packages where the launch runs are inferred, not known ("" when known: an
    image, or an install of the engine's wheel without extras, plus what the launch installs)."""
    spec = ctx.spec
    if spec.image:
        return ""
    own = [i for i in spec.installs if i.name and canonical_pkg(i.name) == spec.engine]
    if not own and release_kind(spec) != ReleaseFrom.PIP_PIN:
        return (f"the document installs no {spec.engine} and names no image: the packages "
                f"where it runs are inferred from the {spec.engine} wheel")
    extras = [i.requirement for i in own if "[" in i.requirement]
    if extras:
        return f"{extras[0]} adds extras whose packages servelint does not list"
    return ""


def images_shipping(ctx: CheckContext, package: str) -> list[str]:
    hist = ctx.history
    if not hist:
        return []
    return list(hist.of("image_package", canonical_pkg(package)).releases)


def _gate_index(prof) -> tuple[dict[str, list[dict[str, Any]]], dict[int, int]]:
    """The release's tied gates by what can trigger them (env name or option dest), and each
    gate's position in the profile."""
    return prof.derived("package_missing.gates", _build_gate_index)


def _build_gate_index(prof) -> tuple[dict[str, list[dict[str, Any]]], dict[int, int]]:  # noqa: ANN001
    index: dict[str, list[dict[str, Any]]] = {}
    for gate in prof.gates:
        trig = gate.get("trigger") or {}
        if trig.get("kind") == "env":
            name = "env:" + str(trig.get("name"))
        elif trig.get("kind") == "option":
            name = "dest:" + str(trig.get("dest") or trig.get("name"))
        elif trig.get("kind") == "config":
            name = "dest:" + str(trig.get("path", "")).split(".", 1)[0]
        else:
            continue
        index.setdefault(name, []).append(gate)
    return index, {id(g): i for i, g in enumerate(prof.gates)}


def may_trigger(prof, env: dict[str, str | None], option_texts: list[str | None]) -> bool:  # noqa: ANN001
    """A cheap test before a full check: could one of the release's tied gates fire for these
    env settings and (exactly written) options? Abbreviated options are not looked up."""
    index, _ = _gate_index(prof)
    for name, value in env.items():
        for gate in index.get("env:" + name, ()):
            if value is None or _matches_value(gate["trigger"].get("value"), value):
                return True
    for dest, value in written_options(prof, option_texts):
        for gate in index.get("dest:" + dest, ()):
            want = gate["trigger"].get("value")
            if want in (None, "truthy") or value is None:
                return True
            if gate["trigger"].get("kind") == "config":  # a JSON value or a dotted key's
                if str(want).lower() in value.lower():
                    return True
            elif _matches_value(want, value):
                return True
    return False


def _candidates(ctx: CheckContext) -> list[dict[str, Any]]:
    """Only the gates this launch could trigger (an env var it sets, an option it uses), in
    the profile's order."""
    index, order = _gate_index(ctx.profile)
    keys = {"env:" + e.name for e in ctx.spec.env} | {"dest:" + d for d in option_dests(ctx)}
    seen = [g for k in keys for g in index.get(k, ())]
    return sorted(seen, key=lambda g: order[id(g)]) if len(seen) > 1 else seen


def check(ctx: CheckContext) -> Iterator[Finding]:
    prof = ctx.profile
    if "installed" not in prof.image and (
        ctx.extra.get("custom_image") or not prof.image.get("packages")
    ):
        return  # the image's package set is unknown: cannot check (unless it was read)

    gpu = hardware.lookup(ctx.spec.gpu)
    reported: set[tuple] = set()  # one finding per setting and requirement (several gates of
    # one import, e.g. the import and its version check, are one failure)
    by_dest = options_by_dest(ctx)
    for gate in _candidates(ctx):
        trigger = gate.get("trigger")
        package = gate.get("package")
        if not trigger or not package:
            continue  # a gate the builder could not tie to a trigger is never a verdict
        platform = gate.get("platform")
        if platform and (gpu is None or PLATFORM_VENDOR.get(platform) != gpu.vendor):
            continue  # a ROCm/XPU-only code path: only judged on that hardware
        hit = triggered(ctx, trigger, by_dest)
        if hit is None:
            continue
        span, shown = hit
        needed = gate.get("specifier") or ""
        requirement = f"{package}{needed}"
        if (shown, requirement) in reported:
            continue
        ok, set_known, basis = image_has(ctx, package, needed)
        if ok:
            continue
        inst_ok, inst = installed_by_launch(ctx, package, needed)
        if inst_ok:
            continue
        msg, weak = _message(ctx, gate, shown, requirement, inst, set_known, basis)
        fix = _fix_text(ctx, package, shown, requirement)
        f = finding(sys.modules[__name__], ctx, span, msg, fix=fix,
                    evidence=gate.get("source", ""),
                    severity=Severity.WARNING if weak else None)
        f.autofix = _drop_trigger(ctx, trigger, span, shown)
        reported.add((shown, requirement))
        yield f


def _message(ctx: CheckContext, gate: dict[str, Any], shown: str, requirement: str,
             inst: Any, set_known: bool, basis: str) -> tuple[str, bool]:
    """The finding's text and whether it is only a warning (an inferred link or set)."""
    prof = ctx.profile
    where = f"image {ctx.spec.image}" if ctx.spec.image else f"the {prof.engine} {prof.version} wheel"
    if ctx.spec.image and ctx.extra.get("bumped"):
        where = f"the {prof.label} image (its image {ctx.spec.image}, bumped)"
    if inst is not None:
        msg = (f'{shown} makes {prof.label} import "{requirement}", but the launch installs '
               f'"{inst.requirement}", which cannot satisfy it')
    else:
        msg = (f'{shown} makes {prof.label} import "{requirement}", which {where} does not '
               "contain: the server fails at startup")
    if gate.get("message"):
        msg += f" ({gate['message']})"
    weak = gate.get("via") == "registry-import" or gate.get("package_named_by") == "module"
    if weak:
        msg += " (the link from this setting to the import is inferred, not stated by the code)"
    unknown = installed_set_unknown(ctx)
    if unknown:
        return msg + f" ({unknown})", True
    if not set_known:
        return msg + f" (judged against {basis}, so only a warning)", True
    if ctx.spec.image:
        msg += f" ({basis})"
    return msg, weak


def _fix_text(ctx: CheckContext, package: str, shown: str, requirement: str) -> str:
    prof = ctx.profile
    shipping = list(images_shipping(ctx, package))
    if shipping:
        third = (f"pin an image that ships {package}: {prof.engine} "
                 f"{', '.join(shipping[-3:])} images do")
    else:
        known = ctx.history.releases if ctx.history else []
        span_txt = f" ({known[0]}–{known[-1]})" if known else ""
        third = (f"pin an image that ships {package}: none of the {prof.engine} images "
                 f"servelint knows{span_txt} does")
    return "; ".join([
        f"(1) drop {shown}",
        "(2) make it an opt-in feature that declares its dependency "
        f"(pip install {shell_quote(requirement)})",
        f"(3) {third}",
    ])


def _drop_trigger(ctx: CheckContext, trigger: dict[str, Any], span: Span, shown: str,
                  ) -> Fix | None:
    """Fix (1), unsafe: drop the env var or the flag (with its values) that sets the gate."""
    spec = ctx.spec
    if trigger.get("kind") == "env":
        env = next((e for e in spec.env if e.span == span), None)
        return drop_env(env, f"drop {shown}") if env is not None else None
    if trigger.get("kind") != "option":
        return None
    opt = next((o for o in ctx.parsed.options if token_span(spec, o.index) == span), None)
    return drop_tokens(spec, option_tokens(opt), f"drop {shown}") if opt is not None else None
