"""guide command disagrees with the recipe it documents

A recipe's ``guide:`` Markdown holds hand-written ``vllm serve`` commands; the site
renders the real command from the recipe's YAML. The two drift apart. For every guide
command serving a model id of one of the recipe's variants, servelint takes that
variant's rendering with the fewest differences (default hardware, strategy and features
first; a guide section whose heading names GPUs, "### MI300X / MI355X", or whose block exports
ROCm or TPU variables, only among the renderings for that hardware, and none when the recipe
renders none) and reports each flag the guide sets and the recipe does not, each flag the recipe
sets and the guide omits, and each flag the two set to different values (JSON values are
compared as JSON).

Not reported, to keep noise low: capacity tuning flags (``--max-model-len``,
``--gpu-memory-utilization``, ``--max-num-seqs``, ``--max-num-batched-tokens``: guides size
them for their demo GPU), parallelism and size flags (``--tensor-parallel-size``,
``-pp``, ``-dp``, ``--enable-expert-parallel``, ``--decode-context-parallel-size`` and the
multi-node rendezvous flags: they follow the GPU and strategy), ``--host``, ``--port``,
``--served-model-name``, and every flag that a ``hardware_overrides`` block of the recipe
sets (they change with the GPU). A guide that leaves out every flag of a recipe feature
shows that feature switched off (the site lets users toggle it): not a difference. Guide commands that serve an id none of the variants
serve, or a symbolic ``$MODEL``, are not compared.

The flags one guide command adds are one finding (so are the flags it omits): they are one
choice of the guide's author, answered by one edit of the guide or the recipe.

The site renders one command per rendering: of the guide commands closest to one rendering,
the one with the fewest differences (the earliest on a tie) documents it; the others show
variations of it (a section on audio, thinking, long context, a PD or benchmark set-up) and
their differences are info, naming the line of the command that documents the rendering.

A guide section whose heading names a tuning aim ("### Low latency", "High throughput",
"Long context", "Benchmark") tunes the command on purpose: its differences are a variation,
info. A flag the guide sets to the value the release's own parser defaults to (the default
in the profile of the release judged: the parser's, else its config class field's, as
``--enable-prefix-caching`` on releases whose ``CacheConfig`` defaults it to True) changes nothing the engine does: no difference.

A flag the guide only omits is reported as info, not warning: a guide is a short
hand-written example beside the command the site renders from the recipe, and leaving a
flag out of it is usually deliberate brevity (119 of the 256 guide drifts on the recipes
corpus only omit a flag; the 137 others set a flag or a value the recipe does not, which a
reader copying the guide gets and the site's command does not). ``--show-info`` lists
them, JSON and SARIF always carry them, and ``severity = {guide-drift = "warning"}`` in the
config reports every guide drift as a warning again.

Bad:

```yaml bad
model:
  model_id: org/model
  min_vllm_version: "0.20.0"
  base_args: ["--trust-remote-code"]
variants:
  default: {precision: bf16, vram_minimum_gb: 20}
compatible_strategies: [single_node_tp]
guide: |
  ~~~bash
  vllm serve org/model
  ~~~
```

Good:

```yaml good
model:
  model_id: org/model
  min_vllm_version: "0.20.0"
  base_args: ["--trust-remote-code"]
variants:
  default: {precision: bf16, vram_minimum_gb: 20}
compatible_strategies: [single_node_tp]
guide: |
  ~~~bash
  vllm serve org/model --trust-remote-code --tensor-parallel-size 2 --max-model-len 8192
  ~~~
```

Fix: make the guide command match the recipe (or the recipe match the guide).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from servelint.model import Finding, FixSafety, LaunchSpec, Severity, Span
from servelint.profiles import Profile
from servelint.rules.base import CheckContext, Scope, finding

CODE = "SL191"
NAME = "guide-drift"
SEVERITY = Severity.WARNING
SCOPE = Scope.NOTES
FIX = FixSafety.NONE

Flags = dict[str, tuple[str | None, Span | None]]  # flag key -> (value, span), in order
# a guide section heading that names what the command is tuned for: a deliberate variation
TUNING_SECTION = re.compile(
    r"\b(low[- ]latency|latency|(high[- ]|max(imum)?[- ])?throughput|long[- ](context|texts?)|"
    r"benchmark(ing)?|tuning|performance)\b",
    re.IGNORECASE,
)


@dataclass(slots=True, eq=False)
class Drift:
    """One flag on which a guide launch and the recipe's rendering differ (identity equality)."""

    kind: str  # extra (guide only) | missing (recipe only) | value (both, different)
    flag: str
    guide: str | None
    recipe: str | None
    span: Span | None  # guide token (extra/value) or None (missing: use the launch)
    recipe_span: Span | None


def _same(a: str | None, b: str | None) -> bool:
    if a == b:
        return True
    if a is None or b is None:
        return {a, b} <= {None, "true", "True"}
    if a[:1] in "{[" and b[:1] in "{[":
        try:
            return json.loads(a) == json.loads(b)
        except ValueError:
            return False
    return False


def compare(guide: Flags, recipe: Flags, groups: Iterable[set[str]] = ()) -> list[Drift]:
    """Differences between two flag maps. A recipe flag of a feature (``groups``) the guide
    leaves out entirely is the feature switched off, not a difference."""
    off: set[str] = set()
    for group in groups:
        if not group & set(guide):
            off |= group
    out: list[Drift] = []
    for key, (value, span) in guide.items():
        if key not in recipe:
            out.append(Drift("extra", key, value, None, span, None))
        elif not _same(value, recipe[key][0]):
            out.append(Drift("value", key, value, recipe[key][0], span, recipe[key][1]))
    for key, (value, span) in recipe.items():
        if key not in guide and key not in off:
            out.append(Drift("missing", key, None, value, None, span))
    return out


def _flags(data: list) -> Flags:
    return {key: (value, Span(*span) if span else None) for key, value, span in data}


def drifts(context: dict[str, str]) -> tuple[str, list[Drift]]:
    """(label of the closest rendering, its differences) of a guide launch: the rendering
    with the fewest differences, ties going to the earliest; ("", []) when nothing is
    compared."""
    raw = context.get("guide_compare")
    if not raw:
        return "", []
    data = json.loads(raw)
    guide, groups = _flags(data["guide"]), [set(g) for g in data["groups"]]
    best: tuple[int, int, str, list[Drift]] | None = None
    for order, label, flags in data["renderings"]:
        found = compare(guide, _flags(flags), groups)
        if best is None or (len(found), order) < best[:2]:
            best = (len(found), order, label, found)
    return (best[2], best[3]) if best else ("", [])


# a guide with more commands than this is not searched for variations (each is compared
# with every rendering of the others: quadratic)
VARIATION_LIMIT = 200


def mark_variations(specs: list[LaunchSpec]) -> None:
    """The site renders one command per rendering; a guide's other commands closest to the
    same rendering show variations of it (audio, thinking, long context, a PD or benchmark
    set-up): the command with the fewest differences from a rendering (the earliest on a
    tie) documents it; each other one gets ``context["guide_variation_of"]`` = the line of
    that command, and its differences are reported as info."""
    compared = [(s, json.loads(s.context["guide_compare"])) for s in specs
                if s.context.get("guide_compare")]
    if len(compared) > VARIATION_LIMIT:
        return
    parsed = [(s, _flags(d["guide"]), [set(g) for g in d["groups"]],
               {label: _flags(flags) for _o, label, flags in d["renderings"]})
              for s, d in compared]
    for spec, _guide, _groups, _renderings in parsed:
        label, found = drifts(spec.context)
        if not found:
            continue
        mine = (len(found), spec.anchor.line)
        for other, o_guide, o_groups, o_renderings in parsed:
            if other is spec or label not in o_renderings:
                continue
            theirs = (len(compare(o_guide, o_renderings[label], o_groups)), other.anchor.line)
            if theirs < mine:
                spec.context["guide_variation_of"] = str(other.anchor.line)
                break


def _at_default(d: Drift, profile: Profile | None) -> bool:
    """Whether the guide sets a flag the recipe leaves out to the value the release's parser
    defaults to (``--enable-chunked-prefill false`` where the default is False)."""
    if d.kind != "extra" or profile is None:
        return False
    action = profile.option_index.get(d.flag)
    if action is None:
        return False
    default = action.raw.get("default")
    if default is None:  # the parser leaves it to its config class's field default
        field = profile.configs.get(action.raw.get("field_of") or "", {}).get("fields", {})
        default = {"True": True, "False": False}.get(
            str((field.get(action.dest) or {}).get("default")), None)
    if default is None:
        return False
    value = d.guide
    if isinstance(default, bool):
        if value in (None, "true", "True", "1"):
            return (d.flag not in profile.negative) is default
        if value in ("false", "False", "0"):
            return default is False
        return False
    return value is not None and str(default) == value


def _show(flag: str, value: str | None) -> str:
    return flag if value in (None, "true") else f"{flag} {value}"


def message(d: Drift, label: str) -> str:
    where = f"the recipe's rendering ({label})"
    if d.kind == "extra":
        return f"guide command sets {_show(d.flag, d.guide)}, which {where} does not"
    if d.kind == "missing":
        return f"guide command omits {_show(d.flag, d.recipe)}, which {where} sets"
    return f'guide command sets {d.flag} to "{d.guide}" but {where} sets "{d.recipe}"'


def check(ctx: CheckContext) -> Iterator[Finding]:
    """One finding per guide command and kind of difference (the flags it adds, the flags it
    omits: one choice of the guide's author each), one per flag set to another value."""
    spec = ctx.spec
    label, found = drifts(spec.context)
    found = [d for d in found if not _at_default(d, ctx.profile)]
    mod = sys.modules[__name__]
    variation = spec.context.get("guide_variation_of")
    aside = (f" (a variation: the guide's command at line {variation} is the one closest to "
             "that rendering)") if variation else ""
    tuned = TUNING_SECTION.search(spec.context.get("guide_section") or "")
    if tuned and not variation:
        variation = "tuned"
        aside = (f" (a variation: the guide's section \"{spec.context['guide_section']}\" "
                 "tunes the command on purpose)")
    for kind in ("extra", "missing"):
        same = [d for d in found if d.kind == kind]
        if not same:
            continue
        spans = [d.span or spec.anchor for d in same]
        yield finding(
            mod,
            ctx,
            spans[0],
            _listed(same, label) + aside,
            fix=(
                "remove them from the guide, or add them to the recipe"
                if kind == "extra"
                else "add them to the guide, or remove them from the recipe"
            )
            if len(same) > 1
            else FIXES[kind],
            related=[d.recipe_span for d in same if d.recipe_span is not None] + spans[1:],
            severity=Severity.INFO if kind == "missing" or variation else None,
        )
    for d in found:
        if d.kind == "value":
            related = [d.recipe_span] if d.recipe_span is not None else []
            yield finding(
                mod, ctx, d.span or spec.anchor, message(d, label) + aside,
                fix=FIXES["value"], related=related,
                severity=Severity.INFO if variation else None,
            )


FIXES = {
    "extra": "remove it from the guide, or add it to the recipe",
    "missing": "add it to the guide, or remove it from the recipe",
    "value": "use the same value in the guide and the recipe",
}


def _listed(drifts_: list[Drift], label: str) -> str:
    """``message`` for one difference, else the flags of one kind listed in one sentence."""
    if len(drifts_) == 1:
        return message(drifts_[0], label)
    where = f"the recipe's rendering ({label})"
    if drifts_[0].kind == "extra":
        shown = ", ".join(_show(d.flag, d.guide) for d in drifts_)
        return f"guide command sets {shown}, which {where} does not"
    shown = ", ".join(_show(d.flag, d.recipe) for d in drifts_)
    return f"guide command omits {shown}, which {where} sets"
