"""Values files of public charts, mapped to the engine command the chart's own template
writes.

Which charts: one JSON per chart under ``data/helm_charts/`` (``tools/gen_helm_chart_maps.py``
copies, from the chart at a version, the template lines that gate each item of the values
list and the container's ``image:`` line and ``command:`` block). A values file is that
chart's when it sets the list (``servingEngineSpec.modelSpec`` for production-stack's
``vllm-stack``). Each item is rendered through the template (``gotemplate.Renderer``):
every word keeps the span of the values entry it comes from (a literal flag: the entry whose
condition put it there), so findings point into the user's file. The container's env is the
chart's ``servingEngineSpec.env`` and the item's ``env``."""

from __future__ import annotations

import re

import yaml

from servelint.launches import CommandRecord, Origin
from servelint.model import EnvVar, Token
from servelint.sources.base import ReadResult
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yaml_bounded import safe_load_bounded
from servelint.sources.common.yamlpos import Map, Scalar, Seq, at, load_yaml_stream
from servelint.sources.container.launch import container_launches
from servelint.sources.helm.gotemplate import Line, Piece, Renderer
from servelint.sources.kubernetes.containers import PLACEHOLDER
from servelint.sources.unread import no_launch_note
from servelint.util.data_files import json_folder

CHART_MAPS = json_folder("helm_charts")  # bundled with the package: read once, at import

_MARK = re.compile(r"__P(\d+)__")



def charts_of(text: str) -> list[dict]:
    """The charts whose values list ``text`` sets at its top level."""
    return [c for c in CHART_MAPS
            if re.search(rf"^{re.escape(c['values_path'].split('.')[0])}:", text, re.M)]


def values_root(path: str, text: str) -> tuple[ReadResult, Map | None]:
    """A values file's result so far (its YAML problems) and its top mapping, if it has one."""
    docs, problems = load_yaml_stream(text, path)
    root = docs[0] if docs else None
    return ReadResult(problems=list(problems)), root if isinstance(root, Map) else None


def read_values(path: str, text: str) -> ReadResult:
    result, root = values_root(path, text)
    if root is None:
        return result
    for chart in charts_of(text):
        items = at(root, *chart["values_path"].split("."))
        if not isinstance(items, Seq):
            continue
        for i, item in enumerate(items.items):
            if isinstance(item, Map):
                _read_item(path, chart, root, item, i, result)
    return no_launch_note(path, text, result, "Helm values file")


def _read_item(path: str, chart: dict, root: Map, item: Map, index: int,
               result: ReadResult) -> None:
    top = Map([(Scalar("Values", root.span), root)], root.span)
    variables = {"$": top, chart["item_var"]: item}
    rendered = Renderer(top, variables, item.span).render(
        chart["preamble"] + "\n" + chart["command"]["template"])
    name = item.get("name")
    label = (f"{chart['chart']} {chart['version']} {chart['values_path']}[{index}]"
             + (f" ({name.value})" if isinstance(name, Scalar) else ""))
    words = [w for line in rendered.lines if (w := _item_word(line)) is not None]
    for cond in rendered.unknown:
        result.problems.append(ReadProblem(path, item.span, f"{label}: the chart's condition "
                                           f"`{cond}` cannot be decided from this file; "
                                           "read as false", "unsupported"))
    if not words:
        result.problems.append(ReadProblem(
            path, item.span, f"{label}: the chart's template ({chart['source']}) starts no "
            "engine container for this item (disabled, or run by another template)",
            "unsupported"))
        return
    record = CommandRecord([], words[0].span or item.span, Origin("helm", path, label),
                           _env(root, item), image=_image(chart, top, variables, item),
                           entrypoint=words,
                           context={"helm_chart": f"{chart['chart']} {chart['version']}"})
    specs, problems = container_launches(record)
    result.specs.extend(specs)
    result.problems.extend(problems)


def _pieces_text(parts: list[str | Piece], table: list[Piece]) -> str:
    out = []
    for part in parts:
        if isinstance(part, Piece):
            out.append(f"__P{len(table)}__")
            table.append(part)
        else:
            out.append(part)
    return "".join(out)


def _item_word(line: Line) -> Token | None:
    """The word a ``- ITEM`` line of the command block adds (None: not an item line)."""
    table: list[Piece] = []
    text = _pieces_text(line.parts, table).strip()
    if not text.startswith("- "):
        return None
    try:
        value = safe_load_bounded(text[2:])
    except (yaml.YAMLError, ValueError, RecursionError):
        return Token(text[2:], line.context, True)
    word = "" if value is None else str(value)
    used = [table[int(m.group(1))] for m in _MARK.finditer(word)]
    whole = len(used) == 1 and _MARK.fullmatch(word) is not None  # YAML took its quotes
    final = used[0].text if whole else _MARK.sub(lambda m: _printed(table[int(m.group(1))]), word)
    templated = PLACEHOLDER.search(final) is not None  # a template file's own expression
    if not used:
        return Token(final, line.context, templated)
    span = next((p.span for p in used if p.span is not None), line.context)
    return Token(final, span, templated or any(p.symbolic for p in used))


def _printed(piece: Piece) -> str:
    return '"' + piece.text.replace("\\", "\\\\").replace('"', '\\"') + '"' \
        if piece.quoted else piece.text


def _image(chart: dict, top: Map, variables: dict, item: Map) -> Token:
    rendered = Renderer(top, variables, item.span).render(chart["image"]["template"])
    table: list[Piece] = []
    text = "".join(_pieces_text(line.parts, table) for line in rendered.lines).strip()
    try:
        value = str(safe_load_bounded(text) or "")
    except (yaml.YAMLError, ValueError, RecursionError):
        value = text
    used = [table[int(m.group(1))] for m in _MARK.finditer(value)]
    final = _MARK.sub(lambda m: table[int(m.group(1))].text, value)
    tag = item.get("tag")
    span = tag.span if isinstance(tag, Scalar) else (used[-1].span if used else item.span)
    return Token(final, span, any(p.symbolic for p in used) or not final or ":" not in final
                 or PLACEHOLDER.search(final) is not None)


def _env(root: Map, item: Map) -> list[EnvVar]:
    out: list[EnvVar] = []
    for lst in (at(root, "servingEngineSpec", "env"), item.get("env")):
        for entry in lst.items if isinstance(lst, Seq) else []:
            name = entry.get("name") if isinstance(entry, Map) else None
            if not isinstance(name, Scalar):
                continue
            value = entry.get("value")
            if isinstance(value, Scalar):
                out.append(EnvVar(str(name.value), "" if value.value is None
                                  else str(value.value), value.span))
            else:
                out.append(EnvVar(str(name.value), f"${name.value}", name.span, True))
    return out



