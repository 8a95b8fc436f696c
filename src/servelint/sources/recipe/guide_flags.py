"""What the guide-drift rule (SL191) compares: a recipe's guide commands and the recipe's
own renderings, as flag lists.

For each ``vllm serve`` guide launch serving a literal model id M, the reader attaches the
guide's flags and the flags of every rendering that serves M (case-insensitive id match;
renderings whose compared flags equal an earlier one's are left out: the earlier one wins
every tie), in rendering order, plus the recipe's feature groups
(``context["guide_compare"]``, JSON). The rule picks the closest rendering and reports the
differences; the reader compares nothing. Flags are keyed by their long name (``_`` -> ``-``
before the first ``.``; ``--no-X`` is ``--X`` = false; ``--model X`` is the model).

A guide launch whose section heading (or ROCm/TPU env exports) names hardware is compared
only with the renderings for that hardware, and with none when the recipe renders none
(``guide_hardware``). The guide commands closest to one rendering are weighed against each
other by the rule's ``mark_variations`` (one documents it, the others are variations).

Not compared (noise, by policy): capacity flags (``CAPACITY``), parallelism and size flags (TP/PP/DP/EP/DCP and the
multi-node rendezvous flags), ``--host``, ``--port``, ``--served-model-name``, and every
flag a ``hardware_overrides`` block of the recipe sets (it varies by GPU).

"""

from __future__ import annotations

import json
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from servelint.model import LaunchSpec, Span, Token
from servelint.rules import guide_drift
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq, load_yaml
from servelint.sources.recipe.guide_hardware import section_hardware
from servelint.sources.recipe.render import render

# capacity tuning flags: guides size them for their demo GPU
CAPACITY = frozenset(
    {"--max-model-len", "--gpu-memory-utilization", "--max-num-seqs", "--max-num-batched-tokens"}
)
IGNORED = CAPACITY | frozenset(
    {
        "--tensor-parallel-size",
        "-tp",
        "--pipeline-parallel-size",
        "-pp",
        "--data-parallel-size",
        "-dp",
        "--data-parallel-size-local",
        "-dpl",
        "--data-parallel-rank",
        "-dpn",
        "--data-parallel-start-rank",
        "-dpr",
        "--data-parallel-address",
        "-dpa",
        "--data-parallel-rpc-port",
        "-dpp",
        "--data-parallel-backend",
        "-dpb",
        "--data-parallel-hybrid-lb",
        "-dph",
        "--data-parallel-external-lb",
        "-dpe",
        "--enable-expert-parallel",
        "-ep",
        "--decode-context-parallel-size",
        "-dcp",
        "--prefill-context-parallel-size",
        "-pcp",
        "--nnodes",
        "-n",
        "--node-rank",
        "-r",
        "--master-addr",
        "--master-port",
        "--headless",
        "--distributed-executor-backend",
        "--api-server-count",
        "-asc",
        "--host",
        "--port",
        "--served-model-name",
    }
)


@dataclass(slots=True, eq=False)
class Item:
    """One flag of a launch, normalised for comparing a guide with its recipe."""

    key: str  # normalised long flag
    value: str | None  # None for a bare flag ("true"), "false" for --no-X
    written: str  # the flag as written
    span: Span | None


def normalise(flag: str) -> tuple[str, str | None]:
    """Long flag key and implied value (``--no-x`` -> (``--x``, "false"))."""
    head, dot, tail = flag.partition(".")
    if head.startswith("--"):
        head = head.replace("_", "-")
    key = head + dot + tail
    if key.startswith("--no-") and not dot:
        return "--" + key[5:], "false"
    return key, None


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


def _flag_map(items: list[Item], skip: AbstractSet[str]) -> dict[str, Item]:
    """Compared flags by key (last occurrence wins, at its first position)."""
    return {it.key: it for it in items if it.key not in skip}


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
    elif (
        inside
        and isinstance(node, Scalar)
        and isinstance(node.value, str)
        and node.value.startswith("-")
    ):
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
    return (
        None
        if span is None
        else [span.path, span.line, span.column, span.end_line, span.end_column]
    )


def span_from_json(data: list | None) -> Span | None:
    return None if not data else Span(*data)


def _spaced_flag(text: str) -> bool:
    """A recipe token "--flag value" the site prints unquoted (the shell splits it)."""
    return text.startswith("-") and " " in text.strip() and "{" not in text


def _prepared(
    renderings: list, served: set[str], skip: AbstractSet[str] = IGNORED
) -> list[tuple[int, object, str, dict[str, Item]]]:
    """(order, rendering, served id lowercased, compared flags by key) of the non-omni
    renderings that serve one of ``served``. A rendering whose argv or compared flags
    (keys and values, in order) equal an earlier one's for the same hardware is skipped: the
    earlier one wins every tie."""
    out = []
    seen: set[tuple] = set()
    compared: set[tuple] = set()
    for order, r in enumerate(renderings):
        argv = r.argv
        if not r.strategy or len(argv) < 3:
            continue
        low = argv[2].text.lower()
        if low not in served:
            continue
        texts = [t.text for t in argv]
        key = (r.hardware, *texts)
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
        # (per hardware: a guide section for one GPU is compared with its renderings only)
        signature = (low, r.hardware, tuple([(k, it.value) for k, it in flags.items()]))
        if signature in compared:
            continue
        compared.add(signature)
        out.append((order, r, low, flags))
    return out


def _items_json(flags: dict[str, Item]) -> list:
    return [[it.key, it.value, _span_json(it.span)] for it in flags.values()]


def annotate(
    recipe_path: str,
    launches: list[LaunchSpec],
    renderings: list | None = None,
    root: Node | None = None,
) -> None:
    """Attach to each vLLM guide launch what SL191 compares (see the module docstring).

    ``renderings``: the recipe's renderings when the caller has them (else rendered here).
    """
    todo = [s for s in launches if s.engine == "vllm" and s.entrypoint == "vllm serve"]
    if not todo:
        return
    if renderings is None:
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
    groups_json = [sorted(g) for g in groups]
    for spec in todo:
        model, items = split_argv(spec.argv)
        if model is None or model.symbolic:
            continue
        want = model.text.lower()
        section = section_hardware(
            spec.context.get("guide_section"), [e.name for e in spec.env]
        )
        candidates = [
            [order, r.label, _items_json(flags)]
            for order, r, low, flags in prepared
            if low == want and section.covers(r.hardware)
        ]
        if not candidates:
            continue
        guide = _flag_map(fold_dotted(items), IGNORED | ignored)
        spec.context["guide_compare"] = json.dumps(
            {"guide": _items_json(guide), "renderings": candidates, "groups": groups_json}
        )
    guide_drift.mark_variations(todo)
