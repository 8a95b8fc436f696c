"""Values files of llm-d's ``llm-d-modelservice`` chart: each ``decode``/``prefill``
container's command as the chart's helper for its ``modelCommand`` writes it.

The map (``data/helm_llmd/``, made by ``tools/gen_llmd_chart_map.py`` from the chart's
``_helpers.tpl``) gives, per ``modelCommand``, the literal command (``vllmServe``: ``vllm
serve``; ``imageDefault``: the image's own; ``custom``: the container's ``command``), whether
the model comes first (and with ``--model``), the chart's own flags with the line that writes
each, and that the user's ``args`` come last. The model (from ``modelArtifacts.uri``) and
values the helpers compute (the port) are symbolic words; a flag the chart adds under a
condition (parallelism above 1) is left out with a note; every user word keeps its span."""

from __future__ import annotations

import re

from servelint.launches import CommandRecord, Origin
from servelint.model import EnvVar, Span, Token
from servelint.sources.base import ReadResult
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq, at
from servelint.sources.container.launch import container_launches
from servelint.sources.helm.values import values_root
from servelint.sources.unread import no_launch_note
from servelint.util.data_files import json_folder

LLMD_CHARTS = json_folder("helm_llmd")  # bundled with the package: read once, at import

_VALUE = re.compile(r"\.Values\.([\w.]+) \| quote")



def llmd_charts_of(text: str) -> list[dict]:
    """The charts whose values ``text`` holds: their top-level keys, and a role with
    ``containers`` that names a ``modelCommand`` the chart knows."""
    out = []
    for chart in LLMD_CHARTS:
        commands = "|".join(re.escape(c) for c in chart["commands"])
        if all(re.search(rf"^{re.escape(k)}:", text, re.M) for k in chart["values_keys"]) \
                and re.search(rf"^({'|'.join(chart['roles'])}):", text, re.M) \
                and re.search(rf"^\s+modelCommand:\s*[\"']?({commands})[\"']?\s*$", text, re.M):
            out.append(chart)
    return out


def read_llmd_values(path: str, text: str) -> ReadResult:
    result, root = values_root(path, text)
    if root is None:
        return result
    for chart in llmd_charts_of(text):
        for role in chart["roles"]:
            spec = root.get(role)
            create = spec.get("create") if isinstance(spec, Map) else None
            if not isinstance(spec, Map) or isinstance(create, Scalar) and create.value is False:
                continue
            containers = spec.get("containers")
            for i, c in enumerate(containers.items if isinstance(containers, Seq) else []):
                if isinstance(c, Map):
                    _container(path, chart, root, spec, role, i, c, result)
    return no_launch_note(path, text, result, "llm-d-modelservice values file")


def _container(path: str, chart: dict, root: Map, spec: Map, role: str, index: int, c: Map,
               result: ReadResult) -> None:
    name = c.get("name")
    label = (f"{chart['chart']} {chart['version']} {role}.containers[{index}]"
             + (f" ({name.value})" if isinstance(name, Scalar) else ""))
    node = c.get("modelCommand")
    value = str(node.value) if isinstance(node, Scalar) else chart["default"]
    shape = chart["commands"].get(value)
    where = f"{chart['repo']}@{chart['commit'][:12]} {chart['source']}"
    span = node.span if node is not None else c.span
    if shape is None:
        result.problems.append(ReadProblem(path, span, f"{label}: modelCommand {value} is none "
                                           f"the chart accepts ({where}:"
                                           f"{chart['dispatcher_lines'][0]}); not read",
                                           "unsupported"))
        return
    entry = None
    if shape["command"]:
        entry = [Token(w, span) for w in shape["command"]]
    elif shape["command_from_container"]:
        entry = _list(c.get("command"))
        if not entry:  # customModelCommand fails the render without one
            result.problems.append(ReadProblem(
                path, span, f"{label}: modelCommand {value} with no command: the chart fails "
                f"to render it ({where}:{shape['lines'][0]}); not read", "unsupported"))
            return
    words = _chart_words(root, spec, shape, span, label, where, path, result)
    words += _list(c.get("args"))
    image = c.get("image")
    image_token = Token(str(image.value), image.span, "{{" in str(image.value)) \
        if isinstance(image, Scalar) and image.value is not None \
        else Token("<no image>", c.span, True)  # the chart requires one (`required`)
    record = CommandRecord(words, (words[0].span if words else None) or span,
                           Origin("helm", path, f"{label} (as {where}:{shape['lines'][0]} "
                                  "writes it)"),
                           _env(c.get("env")), image=image_token, entrypoint=entry,
                           context={"helm_chart": f"{chart['chart']} {chart['version']}"})
    specs, found = container_launches(record)
    result.specs.extend(specs)
    result.problems.extend(found)


def _chart_words(root: Map, spec: Map, shape: dict, span: Span, label: str, where: str,
                 path: str, result: ReadResult) -> list[Token]:
    """The model and the chart's own flags, before the user's args."""
    out: list[Token] = []
    if shape["model_first"]:
        uri = at(root, "modelArtifacts", "uri")
        uri_span = uri.span if uri is not None else span
        if shape["model_flag"]:
            out.append(Token("--model", uri_span))
        out.append(Token("<model of modelArtifacts.uri>", uri_span, True))
    skipped = []
    for w in shape["chart_words"]:
        if w["when"] is not None:
            skipped.append(f"{w['word']} ({w['line']})")
            continue
        out.append(Token(w["word"], span))
        if w["value"] is not None:
            out.append(_value(root, w["value"], span))
    if skipped and spec.get("parallelism") is not None:
        result.problems.append(ReadProblem(
            path, spec.get("parallelism").span, f"{label}: the chart adds "
            f"{', '.join(skipped)} from the parallelism values through its helpers ({where}); "
            "not read here", "unsupported"))
    return out


def _value(root: Map, expr: str, span: Span) -> Token:
    """A chart flag's value: a plain ``.Values.X | quote`` from the file, else symbolic."""
    m = _VALUE.fullmatch(expr)
    node = at(root, *m.group(1).split(".")) if m else None
    if isinstance(node, Scalar) and node.value is not None and "{{" not in str(node.value):
        return Token(str(node.value), node.span)
    return Token("{{ " + expr + " }}", node.span if node is not None else span, True)


def _list(node: Node | None) -> list[Token]:
    out = []
    for item in node.items if isinstance(node, Seq) else []:
        if isinstance(item, Scalar) and item.value is not None:
            text = str(item.value)
            out.append(Token(text, item.span, "{{" in text))
        else:
            out.append(Token("<value>", item.span, True))
    return out


def _env(node: Node | None) -> list[EnvVar]:
    out = []
    for item in node.items if isinstance(node, Seq) else []:
        name = item.get("name") if isinstance(item, Map) else None
        if not isinstance(name, Scalar) or name.value is None:
            continue
        value = item.get("value")
        if isinstance(value, Scalar):
            text = "" if value.value is None else str(value.value)
            out.append(EnvVar(str(name.value), text, value.span, "{{" in text))
        else:  # valueFrom: known only at run time
            out.append(EnvVar(str(name.value), f"${name.value}", name.span, True))
    return out
