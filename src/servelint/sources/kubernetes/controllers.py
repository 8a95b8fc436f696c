"""Objects whose engine container a controller writes from their fields (kubeai ``Model``,
production-stack ``VLLMRuntime``): the container as the controller's own Go builds it.

The maps under ``data/controller_maps/`` are made by ``tools/gen_controller_maps.py`` from
the controller's source at a commit (each step with its file:line and the condition that
gates it). Here a map is evaluated against one object: a field's value is the object's, else
its ``+kubebuilder:default``, else Go's zero value; every word keeps the span of the field it
comes from (a literal flag: the field its condition tests), so findings point into the
user's file. A value the controller computes from something else than the object (kubeai's
model path from the URL scheme, an image its install configures) is a symbolic word; words
gated by a condition that cannot be decided here are left out, each with one note."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from servelint.launches import CommandRecord, Origin
from servelint.model import EnvVar, Span, Token
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq, at
from servelint.sources.kubernetes.containers import PLACEHOLDER
from servelint.sources.kubernetes.objects import K8sObject
from servelint.util.data_files import json_folder

CONTROLLER_MAPS = json_folder("controller_maps")  # bundled with the package: read once, at import

_ZERO = {"bool": False, "string": "", "int32": 0, "int64": 0, "int": 0}



def map_for(group: str, kind: str) -> list[dict]:
    return [m for m in CONTROLLER_MAPS if m["group"] == group and m["kind"] == kind]


@dataclass(slots=True)
class _Value:
    """A value the controller uses: text (None: a list or map), the node it came from,
    and whether it is known here."""

    text: str | None
    span: Span | None
    known: bool = True
    node: Node | None = None


@dataclass(slots=True)
class _Eval:
    obj: K8sObject
    cmap: dict
    notes: list[str] = field(default_factory=list)

    def where(self) -> str:
        return f"{self.cmap['repo']}@{self.cmap['commit'][:12]} {self.cmap['source'].split(':')[0]}"

    def field(self, spec: dict) -> _Value:
        keys = spec["field"].split(".")
        node = at(self.obj.root, *keys)
        span = self._nearest(keys)
        if isinstance(node, Scalar) and node.value is not None:
            value = node.value
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            # a template's expression (a chart rendering the object): known only once rendered
            return _Value(text, node.span, not PLACEHOLDER.search(text), node)
        if node is not None and not isinstance(node, Scalar):
            return _Value(None, node.span, True, node)
        if node is None and not self._reachable(keys):  # a parent of the wrong type
            return _Value(None, span, False)
        if spec.get("default") is not None:
            return _Value(str(spec["default"]), span)
        zero = _ZERO.get(spec.get("type", ""))
        if zero is None:  # a list, map or struct not set: nil
            return _Value(None, span)
        return _Value(str(zero).lower() if isinstance(zero, bool) else str(zero), span)

    def _reachable(self, keys: list[str]) -> bool:
        """Every parent of the field that the object sets is a mapping (the API server
        rejects the object otherwise, so nothing is known of the field)."""
        return all(isinstance(node, Map) for n in range(1, len(keys))
                   if (node := at(self.obj.root, *keys[:n])) is not None)

    def _nearest(self, keys: list[str]) -> Span:
        for n in range(len(keys), 0, -1):
            node = at(self.obj.root, *keys[:n])
            if node is not None:
                return node.span
        return self.obj.root.span

    def expr(self, spec: dict) -> _Value:
        if "text" in spec:
            return _Value(spec["text"], None)
        if "int" in spec:
            return _Value(str(spec["int"]), None)
        if "field" in spec:
            if "else" in spec:  # the object's field when set, else what the install sets
                value = self.field(spec)
                return value if value.text else self.installed(spec)
            return self.field(spec)
        if "concat" in spec:
            parts = [self.expr(p) for p in spec["concat"]]
            return _Value("".join(p.text or "" for p in parts),  # the last field: a tag, a name
                          next((p.span for p in reversed(parts) if p.span is not None), None),
                          all(p.known and p.text is not None for p in parts))
        if "local" in spec:
            return self.local(spec["local"])
        if "derived" in spec:
            return self.derived(spec["derived"], spec["part"])
        return _Value(f"<{spec.get('unknown', '?')}>", None, False)

    def installed(self, spec: dict) -> _Value:
        """The image the controller's own chart configures at the mapped commit, for the
        object's resource profile (its ``imageName``, else ``default``)."""
        install = spec.get("install")
        if install is None:
            return _Value(f"<{spec['else']}>", self.field(spec).span, False)
        profile = self.field({"field": install["profile_field"], "type": "string"})
        name = install["profiles"].get((profile.text or "").split(":")[0])
        image = install["images"].get(name or "default") or install["images"].get("default")
        if image is None:
            return _Value(f"<{spec['else']}>", profile.span, False)
        self.notes.append(f"no spec.image: the image is the one its install configures; "
                          f"{self.cmap['repo']} chart {install['chart_version']} "
                          f"({install['source']}) gives {image}")
        return _Value(image, profile.span, True)

    def derived(self, expr: str, part: str) -> _Value:
        """A part of a field the controller parses with its own regexp (kubeai's model URL:
        scheme, ref); unknown when the field is not a plain string it matches."""
        how = self.cmap["derived"][expr]
        value = self.field({"field": how["field"], "type": "string"})
        m = re.match(how["regex"], value.text or "") if value.known and value.text and \
            not PLACEHOLDER.search(value.text) else None
        if m is None:
            return _Value(f"<{expr}.{part}>", value.span, False)
        return _Value(m.group(how["parts"][part]), value.span, True)

    def local(self, name: str) -> _Value:
        """The last assignment whose condition holds (unknown if an undecided one could)."""
        result = _Value(f"<{name}>", None, False)
        for step in self.cmap["locals"].get(name, []):
            holds = self.cond(step["when"])
            if holds is True:
                result = self.expr(step["value"])
            elif holds is None:
                result = _Value(f"<{name}>", None, False)
        return result

    def cond(self, spec: dict | None) -> bool | None:
        """True, False, or None (cannot be decided from the object)."""
        if spec is None:
            return True
        if "all" in spec:
            found = [self.cond(c) for c in spec["all"]]
            return False if False in found else (None if None in found else True)
        if "any" in spec:
            found = [self.cond(c) for c in spec["any"]]
            return True if True in found else (None if None in found else False)
        if "not" in spec:
            inner = self.cond(spec["not"])
            return None if inner is None else not inner
        left = self.expr(spec["left"])
        if not left.known:
            return None
        op = spec["op"]
        if op == "true":
            return left.text == "true"
        right = spec["right"]
        if "nil" in right:
            is_nil = left.text is None and left.node is None
            return is_nil if op == "==" else not is_nil
        value = self.expr(right)
        if op == ">":
            try:
                return float(left.text or 0) > float(value.text or 0)
            except ValueError:
                return None
        same = (left.text or "") == (value.text or "")
        return same if op == "==" else not same

    def span_of(self, when: dict | None) -> Span:
        """Where a literal word is: the first field its condition tests, else the spec."""
        stack = [when] if when else []
        while stack:
            c = stack.pop(0)
            if "left" in c and "field" in c["left"]:
                return self.field(c["left"]).span or self.obj.root.span
            stack.extend(c.get("all", []) + c.get("any", []) + ([c["not"]] if "not" in c else []))
        spec = self.obj.root.key_node("spec")
        return spec.span if spec is not None else self.obj.root.span


def controller_record(obj: K8sObject, cmap: dict, path: str, origin: str
                      ) -> tuple[CommandRecord | None, list[ReadProblem]]:
    """The engine container ``cmap``'s controller builds for ``obj`` (None: the object
    selects another engine), and the notes for what cannot be decided from the file."""
    ev = _Eval(obj, cmap)
    label = f"{obj.kind} {obj.name}".strip()
    problems: list[ReadProblem] = []
    when = cmap.get("when")
    if when is not None:
        chosen = ev.field({"field": when["field"], "type": "string"})
        if chosen.text and PLACEHOLDER.search(chosen.text):
            problems.append(_note(path, chosen.span or obj.root.span, f"{label}: "
                                  f"{when['field']} is a template expression, so which engine "
                                  "its controller starts is known only once rendered; not read"))
            return None, problems
        if chosen.text != when["value"]:
            return None, problems
    words: list[Token] = []
    for step in cmap["args"]:
        holds = ev.cond(step["when"])
        if holds is None:
            problems.append(_note(path, ev.span_of(step["when"]), f"{label}: the controller "
                                  f"adds {_show(step['words'])} under a condition not decided "
                                  f"from this object ({ev.where()}:{step['line']}); read as "
                                  "absent"))
        if holds is not True:
            continue
        for word in step["words"]:
            words.extend(_words(ev, word, step["when"]))
    env = _env(ev, path, label, problems)
    command = [Token(w["text"], obj.root.span) for w in cmap["command"]["words"]]
    image = ev.expr(cmap["image"]["value"])
    context = {"controller": f"{ev.where()}:{cmap['command']['line']}"}
    if ev.notes:
        context["controller_image"] = "; ".join(ev.notes)
    record = CommandRecord(words, words[0].span if words and words[0].span else obj.root.span,
                           Origin(origin, path, f"{label} (as {ev.where()} builds it)"), env,
                           image=Token(image.text or "<image>", image.span or obj.root.span,
                                       not image.known or not image.text),
                           entrypoint=command,
                           context=context)
    return record, problems


def _words(ev: _Eval, word: dict, when: dict | None) -> list[Token]:
    if "spread" in word:
        node = at(ev.obj.root, *word["spread"].split("."))
        if not isinstance(node, Seq):
            return []
        return [Token(str(i.value), i.span) if isinstance(i, Scalar) and i.value is not None
                else Token("<value>", i.span, True) for i in node.items]
    value = ev.expr(word)
    span = value.span or ev.span_of(when)
    return [Token(value.text or "", span, not value.known)]


def _env(ev: _Eval, path: str, label: str, problems: list[ReadProblem]) -> list[EnvVar]:
    out: list[EnvVar] = []
    for step in ev.cmap["env"]:
        holds = ev.cond(step["when"])
        if holds is None:
            problems.append(_note(path, ev.span_of(step["when"]), f"{label}: the controller "
                                  "sets an environment variable under a condition not decided "
                                  f"from this object ({ev.where()}:{step['line']}); read as unset"))
        if holds is not True:
            continue
        if "from_map" in step or "from_list" in step:
            out.extend(_env_entries(at(ev.obj.root, *(step.get("from_map")
                                                      or step.get("from_list") or "").split("."))))
            continue
        name, value = ev.expr(step["name"]), ev.expr(step["value"])
        if not name.known or name.text is None:
            continue
        out.append(EnvVar(name.text, value.text or f"${name.text}",
                          value.span or ev.span_of(step["when"]), not value.known))
    return out


def _env_entries(node: Node | None) -> list[EnvVar]:
    """``env`` as a map (kubeai: sorted by name, as the controller sorts them) or a list of
    name/value entries (production-stack)."""
    if isinstance(node, Map):
        pairs = sorted(((str(k.value), v) for k, v in node.entries), key=lambda p: p[0])
        return [EnvVar(k, "" if not isinstance(v, Scalar) or v.value is None else str(v.value),
                       v.span, not isinstance(v, Scalar)) for k, v in pairs]
    out = []
    for item in node.items if isinstance(node, Seq) else []:
        name, value = (item.get("name"), item.get("value")) if isinstance(item, Map) else (None,
                                                                                          None)
        if isinstance(name, Scalar) and name.value is not None:
            text = "" if not isinstance(value, Scalar) or value.value is None else str(value.value)
            out.append(EnvVar(str(name.value), text, (value or name).span))
    return out


def _show(words: list[dict]) -> str:
    return "`" + " ".join(w.get("text") or f"<{w.get('field') or w.get('spread') or '…'}>"
                          for w in words) + "`"


def _note(path: str, span: Span, message: str) -> ReadProblem:
    return ReadProblem(path, span, message, "unsupported")
