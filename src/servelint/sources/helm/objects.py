"""Values files of public charts that render each entry of a values map into a custom object
whose controller builds the engine container (kubeai's ``models`` chart: ``catalog.<name>``
-> a kubeai ``Model``).

The maps under ``data/helm_objects/`` are made by ``tools/gen_helm_object_maps.py`` from the
chart's template (which ``spec`` key each entry field fills, and the template line). An entry
becomes that object with every field node of the user's file in place (spans kept), and is
read as the object's controller map says (``sources/kubernetes/controllers.py``). An entry
that sets no ``engine`` here takes it from the chart's own values (its catalog): a note."""

from __future__ import annotations

import re

from servelint.launches import Origin
from servelint.sources.base import ReadResult
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, Scalar, at
from servelint.sources.container.launch import container_launches
from servelint.sources.helm.values import values_root
from servelint.sources.kubernetes.controllers import controller_record, map_for
from servelint.sources.kubernetes.objects import K8sObject
from servelint.sources.kubernetes.schema import group_of
from servelint.sources.unread import no_launch_note
from servelint.util.data_files import json_folder

OBJECT_CHARTS = json_folder("helm_objects")  # bundled with the package: read once, at import



def object_charts_of(text: str) -> list[dict]:
    """The charts whose values map ``text`` sets at its top level, with an entry whose
    ``engine`` is one the object's CRD allows."""
    out = []
    for chart in OBJECT_CHARTS:
        top = chart["values_path"].split(".")[0]
        engines = "|".join(re.escape(e) for e in chart["engines"]["values"])
        if re.search(rf"^{re.escape(top)}:", text, re.M) and \
                re.search(rf"^\s+engine:\s*[\"']?({engines})[\"']?\s*$", text, re.M):
            out.append(chart)
    return out


def read_object_values(path: str, text: str) -> ReadResult:
    result, root = values_root(path, text)
    if root is None:
        return result
    for chart in object_charts_of(text):
        entries = at(root, *chart["values_path"].split("."))
        if not isinstance(entries, Map):
            continue
        every = at(root, "all", "enabled")
        for key, entry in entries.entries:
            if isinstance(entry, Map):
                _read_entry(path, chart, key, entry, every, result)
    return no_launch_note(path, text, result, "Helm values file")


def _read_entry(path: str, chart: dict, key: Scalar, entry: Map, every: object,
                result: ReadResult) -> None:
    name = str(key.value)
    where = f"{chart['chart']} chart {chart['version']} {chart['values_path']}.{name}"
    if entry.get("engine") is None:
        result.problems.append(ReadProblem(
            path, key.span, f"{where}: sets no engine here; the chart's own values "
            f"(its {chart['values_path']}) give the rest of the entry; not read",
            "unsupported"))
        return
    obj = _as_object(chart, key, entry)
    enabled = entry.get("enabled")
    on = (isinstance(enabled, Scalar) and enabled.value is True) or (
        isinstance(every, Scalar) and every.value is True)
    label = where + ("" if on else " (not enabled in this file)")
    for cmap in map_for(group_of(chart["api_version"]), chart["kind"]):
        record, notes = controller_record(obj, cmap, path, "helm")
        result.problems.extend(notes)
        if record is None:
            continue
        record.origin = Origin("helm", path, f"{label}: {record.origin.rendering}")
        record.context["helm_chart"] = f"{chart['chart']} {chart['version']} " \
            f"({chart['repo']}@{chart['commit'][:12]} {chart['source']})"
        specs, found = container_launches(record)
        result.specs.extend(specs)
        result.problems.extend(found)
        return
    engine = entry.get("engine")
    result.problems.append(ReadProblem(
        path, engine.span if engine is not None else key.span, f"{where}: engine "
        f"{getattr(engine, 'value', '?')} is not one servelint judges; not read", "unsupported"))


def _as_object(chart: dict, key: Scalar, entry: Map) -> K8sObject:
    """The object the chart's template renders from ``entry`` (its nodes, so their spans)."""
    span = key.span
    spec = [(Scalar(target.split(".", 1)[1], span), entry.get(field["from"]))
            for target, field in chart["fields"].items()
            if entry.get(field["from"]) is not None]
    root = Map([
        (Scalar("apiVersion", span), Scalar(chart["api_version"], span)),
        (Scalar("kind", span), Scalar(chart["kind"], span)),
        (Scalar("metadata", span), Map([(Scalar("name", span), Scalar(key.value, span))],
                                       span)),
        (Scalar("spec", span), Map(spec, entry.span)),
    ], entry.span)
    return K8sObject(chart["api_version"], chart["kind"], str(key.value), root)
