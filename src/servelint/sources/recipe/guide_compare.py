"""Compare a recipe's hand-written guide commands with the recipe's own renderings.

A guide launch serving model id M is compared with the renderings of the variant that
serves M (case-insensitive id match): the rendering with the fewest differences wins, ties
going to the earliest one (default hardware/strategy/features come first). Flags are keyed
by their long name (``_`` -> ``-`` before the first ``.``; ``--no-X`` is ``--X`` = false;
``--model X`` is the model). Values are compared as text, JSON values as JSON.

Not compared (noise, by policy): capacity flags (``CAPACITY``), parallelism and size flags (TP/PP/DP/EP/DCP and the
multi-node rendezvous flags), ``--host``, ``--port``, ``--served-model-name``, and every
flag a ``hardware_overrides`` block of the recipe sets (it varies by GPU).

The result is stored on the guide launch (``context["guide_drift"]``, JSON) for the
``guide-drift`` rule (SL191) to report.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass
from functools import lru_cache

from servelint.model import LaunchSpec, Span, Token
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq, load_yaml

# capacity tuning flags: guides size them for their demo GPU
CAPACITY = frozenset({"--max-model-len", "--gpu-memory-utilization", "--max-num-seqs",
                      "--max-num-batched-tokens"})
IGNORED = CAPACITY | frozenset({
    "--tensor-parallel-size", "-tp", "--pipeline-parallel-size", "-pp",
    "--data-parallel-size", "-dp", "--data-parallel-size-local", "-dpl",
    "--data-parallel-rank", "-dpn", "--data-parallel-start-rank", "-dpr",
    "--data-parallel-address", "-dpa", "--data-parallel-rpc-port", "-dpp",
    "--data-parallel-backend", "-dpb", "--data-parallel-hybrid-lb", "-dph",
    "--data-parallel-external-lb", "-dpe", "--enable-expert-parallel", "-ep",
    "--decode-context-parallel-size", "-dcp", "--prefill-context-parallel-size", "-pcp",
    "--nnodes", "-n", "--node-rank", "-r", "--master-addr", "--master-port", "--headless",
    "--distributed-executor-backend", "--api-server-count", "-asc",
    "--host", "--port", "--served-model-name",
})


@dataclass
class Item:
    key: str  # normalised long flag
    value: str | None  # None for a bare flag ("true"), "false" for --no-X
    written: str  # the flag as written
    span: Span | None


@dataclass
class Drift:
    kind: str  # extra (guide only) | missing (recipe only) | value (both, different)
    flag: str
    guide: str | None
    recipe: str | None
    span: Span | None  # guide token (extra/value) or None (missing: use the launch)
    recipe_span: Span | None


@lru_cache(maxsize=4096)
def normalise(flag: str) -> tuple[str, str | None]:
    """Long flag key and implied value (``--no-x`` -> (``--x``, "false"))."""
    head, dot, tail = flag.partition(".")
    if head.startswith("--"):
        head = head.replace("_", "-")
    key = head + dot + tail
    if key.startswith("--no-") and not dot:
        return "--" + key[5:], "false"
    return key, None


@lru_cache(maxsize=8192)
def _is_value(text: str) -> bool:
    return not text.startswith("-") or text[1:2].isdigit() or text == "-"


def split_argv(argv: list[Token]) -> tuple[Token | None, list[Item]]:
    """(model token, flag items) of ``vllm serve`` arguments."""
    model: Token | None = None
    items: list[Item] = []
    texts = [t.text for t in argv]
    values = [_is_value(t) for t in texts]
    n = len(texts)
    i = 0
    while i < n:
        if values[i]:
            if model is None and not items:
                model = argv[i]
            i += 1
            continue
        tok = argv[i]
        name, eq, value = texts[i].partition("=")
        val: str | None = value if eq else None
        if not eq and i + 1 < n and values[i + 1]:
            val = texts[i + 1]
            i += 1
        i += 1
        if name == "--model" and val is not None:
            model = Token(val, tok.span, tok.symbolic)
            continue
        key, implied = normalise(name)
        items.append(Item(key, val if val is not None else implied, name, tok.span))
    return model, items


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


def compare(guide: list[Item], recipe: list[Item], ignored: Iterable[str] = (),
            groups: Iterable[set[str]] = ()) -> list[Drift]:
    """Differences between two flag lists (last occurrence of a flag wins).

    A recipe flag of a feature (``groups``) the guide leaves out entirely is the feature
    switched off, not a difference.
    """
    skip = IGNORED | set(ignored)
    return _compare_maps(_flag_map(guide, skip), _flag_map(recipe, skip), groups)


def _flag_map(items: list[Item], skip: AbstractSet[str]) -> dict[str, Item]:
    """Compared flags by key (last occurrence wins, at its first position)."""
    return {it.key: it for it in items if it.key not in skip}


def _compare_maps(g: dict[str, Item], r: dict[str, Item],
                  groups: Iterable[set[str]] = ()) -> list[Drift]:
    off: set[str] = set()
    for group in groups:
        if not group & set(g):
            off |= group
    out: list[Drift] = []
    for key, it in g.items():
        if key not in r:
            out.append(Drift("extra", key, it.value, None, it.span, None))
        elif not _same(it.value, r[key].value):
            out.append(Drift("value", key, it.value, r[key].value, it.span, r[key].span))
    for key, it in r.items():
        if key not in g and key not in off:
            out.append(Drift("missing", key, None, it.value, None, it.span))
    return out


def _json_or_text(text: str | None) -> object:
    if text is None:
        return True
    try:
        return json.loads(text)
    except ValueError:
        return text


def fold_dotted(items: list[Item]) -> list[Item]:
    """``--x-config.a.b v`` items folded into the JSON value of ``--x-config`` (vLLM's rule)."""
    if not any("." in it.key for it in items):
        return list(items)  # nothing to fold (the common case)
    out: list[Item] = []
    merged: dict[str, tuple[dict, Item]] = {}
    for it in items:
        head, dot, path = it.key.partition(".")
        if not dot or not head.startswith("--"):
            out.append(it)
            continue
        if head not in merged:
            base = next((o for o in out if o.key == head), None)
            data = _json_or_text(base.value) if base is not None else {}
            if not isinstance(data, dict):
                out.append(it)
                continue
            target = base or Item(head, None, head, it.span)
            if base is None:
                out.append(target)
            merged[head] = (data, target)
        data, target = merged[head]
        node = data
        *parents, leaf = path.split(".")
        for p in parents:
            node = node.setdefault(p, {}) if isinstance(node.get(p, {}), dict) else {}
        node[leaf] = _json_or_text(it.value)
        target.value = json.dumps(data, sort_keys=True)
    return out


def override_flags(node: Node | None, inside: bool = False) -> set[str]:
    """Flags written anywhere under a ``hardware_overrides`` key of the recipe."""
    out: set[str] = set()
    if isinstance(node, Map):
        for key, value in node.items():
            out |= override_flags(value, inside or key == "hardware_overrides")
    elif isinstance(node, Seq):
        for item in node:
            out |= override_flags(item, inside)
    elif inside and isinstance(node, Scalar) and isinstance(node.value, str) and \
            node.value.startswith("-"):
        out.add(normalise(node.value.split()[0].split("=", 1)[0])[0])
    return out


def feature_groups(root: Node | None) -> list[set[str]]:
    """Flag keys of each feature (its args, modes and overrides together)."""
    features = root.get("features") if isinstance(root, Map) else None
    if not isinstance(features, Map):
        return []
    return [g for _, node in features.items() if (g := _flags_under(node))]


def _flags_under(node: Node | None) -> set[str]:
    if isinstance(node, Map):
        return set().union(*(_flags_under(v) for _, v in node.items())) if len(node) else set()
    if isinstance(node, Seq):
        return set().union(*(_flags_under(v) for v in node)) if len(node) else set()
    if isinstance(node, Scalar) and isinstance(node.value, str) and node.value.startswith("--"):
        return {normalise(node.value.split()[0].split("=", 1)[0])[0]}
    return set()


def _span_json(span: Span | None) -> list | None:
    return None if span is None else [span.path, span.line, span.column, span.end_line,
                                      span.end_column]


def span_from_json(data: list | None) -> Span | None:
    return None if not data else Span(*data)


def _spaced_flag(text: str) -> bool:
    """A recipe token "--flag value" the site prints unquoted (the shell splits it)."""
    return text.startswith("-") and " " in text.strip() and "{" not in text


def _prepared(renderings: list, served: set[str],
              skip: AbstractSet[str] = IGNORED) -> list[tuple[int, object, str, dict[str, Item]]]:
    """(order, rendering, served id lowercased, compared flags by key) of the non-omni
    renderings that serve one of ``served``. A rendering whose argv or compared flags
    (keys and values, in order) equal an earlier one's is skipped: the earlier one wins
    every tie."""
    out = []
    seen: set[tuple[str, ...]] = set()
    compared: set[tuple] = set()
    for order, r in enumerate(renderings):
        argv = r.argv
        if not r.strategy or len(argv) < 3:
            continue
        low = argv[2].text.lower()
        if low not in served:
            continue
        texts = [t.text for t in argv]
        key = tuple(texts)
        if key in seen:
            continue
        seen.add(key)
        words = argv[2:]
        if " " in "\0".join(texts):  # split the spaced flags (rare)
            words = []
            for t in argv[2:]:
                if _spaced_flag(t.text):
                    words += [Token(w, t.span, t.symbolic) for w in t.text.split()]
                else:
                    words.append(t)
        flags = _flag_map(fold_dotted(split_argv(words)[1]), skip)
        signature = (low, tuple([(k, it.value) for k, it in flags.items()]))
        if signature in compared:
            continue
        compared.add(signature)
        out.append((order, r, low, flags))
    return out


def closest(spec: LaunchSpec, prepared: list, ignored: set[str],
            groups: list[set[str]]) -> tuple[object, list[Drift]]:
    """The rendering of the same served model with the fewest differences (None if none).
    ``prepared`` comes from :func:`_prepared` with the same ``ignored`` flags."""
    model, items = split_argv(spec.argv)
    if model is None or model.symbolic:
        return None, []
    g = _flag_map(fold_dotted(items), IGNORED | ignored)
    want = model.text.lower()
    best: tuple[int, int, object, list[Drift]] | None = None
    for order, r, served, r_flags in prepared:
        if served != want:
            continue
        drifts = _compare_maps(g, r_flags, groups)
        if best is None or (len(drifts), order) < best[:2]:
            best = (len(drifts), order, r, drifts)
    return (best[2], best[3]) if best else (None, [])


def annotate(recipe_path: str, launches: list[LaunchSpec], renderings: list | None = None,
             root: Node | None = None) -> None:
    """Attach the comparison with the closest recipe rendering to each vLLM guide launch.

    ``renderings``: the recipe's renderings when the caller has them (else rendered here).
    """
    todo = [s for s in launches if s.engine == "vllm" and s.entrypoint == "vllm serve"]
    if not todo:
        return
    if renderings is None:
        from servelint.sources.recipe.render import render

        renderings = render(recipe_path).renderings
    if root is None:
        root = load_yaml(recipe_path).root
    served = set()
    for spec in todo:
        model = split_argv(spec.argv)[0]
        if model is not None and not model.symbolic:
            served.add(model.text.lower())
    ignored, groups = override_flags(root), feature_groups(root)
    prepared = _prepared(renderings, served, IGNORED | ignored)
    for spec in todo:
        rendering, drifts = closest(spec, prepared, ignored, groups)
        if rendering is None:
            continue
        spec.context["guide_rendering"] = rendering.label
        spec.context["guide_drift"] = json.dumps([
            {**asdict(d), "span": _span_json(d.span), "recipe_span": _span_json(d.recipe_span)}
            for d in drifts])


def drifts_of(spec: LaunchSpec) -> list[Drift]:
    """The differences stored on a guide launch by :func:`annotate`."""
    raw = spec.context.get("guide_drift")
    if not raw:
        return []
    out = []
    for d in json.loads(raw):
        out.append(Drift(d["kind"], d["flag"], d["guide"], d["recipe"],
                         span_from_json(d["span"]), span_from_json(d["recipe_span"])))
    return out
