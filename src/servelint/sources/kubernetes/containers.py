"""A Kubernetes container -> the command record the launch function reads.

``command``/``args`` items are words; ``$(VAR)`` is expanded as the kubelet does from the
container's ``env`` (``$$`` is a literal ``$``; a reference to a variable the spec does not
set, such as one a controller injects, stays symbolic). ``env`` values are kept;
``valueFrom`` and ``envFrom`` are symbolic. A ConfigMap the pod mounts is a file the launch
may name (``--config``)."""

from __future__ import annotations

import re

from servelint.launches import CommandRecord, Lines, Origin
from servelint.model import EnvVar, Span, Token
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq
from servelint.sources.container.record import ShellText
from servelint.sources.container.scalar_text import placed_text
from servelint.sources.kubernetes.objects import ContainerAt, K8sObject

_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")
PLACEHOLDER = re.compile(r"\$_T_+")  # a template expression (``sources/helm``)


def container_record(obj: K8sObject, at: ContainerAt, lines: list[str], path: str,
                     maps: dict[str, Map], origin: str, problems: list[ReadProblem],
                     unknown_lines: frozenset[int] = frozenset()
                     ) -> tuple[CommandRecord, dict[int, ShellText]]:
    """The container's command record, and its script words' placed texts (by identity)."""
    c = at.container
    env = _env(at)
    known = {e.name: e for e in env}
    # in a template, blanks around a word are where a branch's actions were, not the word's
    trim = origin != "kubernetes"
    entry = _words(c.get("command"), known, "command", path, problems, trim)
    args = _words(c.get("args"), known, "args", path, problems, trim) or []
    hidden = _hidden_words(c, unknown_lines)
    if hidden is not None:  # a template adds words nobody can see here
        if "command" in hidden and entry is not None:
            entry.append(hidden["command"])
        if "args" in hidden:
            args.append(hidden["args"])
    name = c.get("name")
    label = f"{obj.kind} {obj.name}".strip() + f" {at.where}"
    if isinstance(name, Scalar) and name.value is not None:
        label += f" ({name.value})"
    first = next((t.span for t in (entry or []) + args if t.span is not None), None)
    record = CommandRecord(args, first or c.span, Origin(origin, path, label), env,
                           files=_mounted(at, maps, lines), image=_image(c.get("image")),
                           entrypoint=entry)
    if record.image is None:  # a container without an image is refused by the API server
        record.image = Token("<no image>", c.span, True)
    scripts: dict[int, ShellText] = {}
    words = (entry or []) + args
    items = [*_items(c.get("command")), *_items(c.get("args"))]
    for word, item in zip(words, items, strict=False):
        if isinstance(item, Scalar) and isinstance(item.value, str) and (
                " " in item.value or "\n" in item.value):
            placed = placed_text(lines, item)
            if placed is not None:
                scripts[id(word)] = ShellText(_shell_refs(placed.text, known),
                                              placed.line_offset)
    if isinstance(c.get("envFrom"), Seq):
        record.context["env_from"] = "envFrom (values not in the file)"
    return record, scripts


def _hidden_words(c: Map, unknown_lines: frozenset[int]) -> dict[str, Token] | None:
    """A symbolic word for ``command``/``args`` where a template line inside their part of
    the container (from the key to the next key) adds what cannot be seen."""
    if not unknown_lines:
        return None
    out: dict[str, Token] = {}
    keys = [k.span.line for k, _ in c.entries] + [(c.span.end_line or c.span.line) + 1]
    for i, (key, _) in enumerate(c.entries):
        name = str(key.value)
        if name not in ("command", "args"):
            continue
        hit = next((n for n in sorted(unknown_lines) if keys[i] <= n < keys[i + 1]), None)
        if hit is not None:
            out[name] = Token("{{ … }}", Span(key.span.path, hit, 1, hit, 1), True)
    return out or None


def _items(node: Node | None) -> list[Node]:
    return list(node.items) if isinstance(node, Seq) else []


def _image(node: Node | None) -> Token | None:
    if not isinstance(node, Scalar) or node.value is None:
        return None
    text = str(node.value)
    return Token(text, node.span, bool(PLACEHOLDER.search(text)))


def _words(node: Node | None, env: dict[str, EnvVar], key: str, path: str,
           problems: list[ReadProblem], trim: bool = False) -> list[Token] | None:
    if node is None or isinstance(node, Scalar) and node.value is None:
        return None
    if isinstance(node, Scalar) and PLACEHOLDER.search(_text(node.value)):
        return [Token(_text(node.value), node.span, True)]  # a template fills it
    if not isinstance(node, Seq):
        problems.append(ReadProblem(path, node.span, f"container {key} is not a list (the API "
                                    "server rejects it); not read", "parse-error"))
        return None
    out = []
    for item in node.items:
        if not isinstance(item, Scalar):
            out.append(Token("<value>", item.span, True))
            continue
        text, symbolic = expand_refs("" if item.value is None else _text(item.value), env)
        text = text.strip() if trim else text
        out.append(Token(text, item.span, symbolic or bool(PLACEHOLDER.search(text))))
    return out


def _text(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def expand_refs(text: str, env: dict[str, EnvVar]) -> tuple[str, bool]:
    """``$(VAR)`` expanded from ``env`` as the kubelet does -> (text, symbolic)."""
    symbolic = False

    def sub(m: re.Match[str]) -> str:
        nonlocal symbolic
        if m.group(0) == "$$":
            return "$"
        var = env.get(m.group(1))
        if var is None or var.symbolic:
            symbolic = True
            return m.group(0)
        return var.value

    return _REF.sub(sub, text), symbolic


def _shell_refs(text: str, env: dict[str, EnvVar]) -> str:
    """``$(VAR)`` of a variable the container sets -> ``${VAR}`` (same length), so the shell
    reader sees the kubelet's expansion; others stay (the shell's command substitution)."""
    return _REF.sub(lambda m: "${" + m.group(1) + "}" if m.group(1) in env else m.group(0),
                    text)


def _env(at: ContainerAt) -> list[EnvVar]:
    out: list[EnvVar] = []
    for lst in [*at.shared_env, at.container.get("env")]:
        if not isinstance(lst, Seq):
            continue
        for item in lst.items:
            if not isinstance(item, Map):
                continue
            name = item.get("name")
            if not isinstance(name, Scalar) or not isinstance(name.value, str):
                continue
            value = item.get("value")
            if isinstance(value, Scalar):
                text = "" if value.value is None else _text(value.value)
                out.append(EnvVar(name.value, text, value.span,
                                  bool(PLACEHOLDER.search(text))))
            else:  # valueFrom (a secret, a field, a resource): known only at run time
                out.append(EnvVar(name.value, f"${name.value}", name.span, True))
    return out


def _mounted(at: ContainerAt, maps: dict[str, Map], lines: list[str]) -> dict[str, Lines | None]:
    """ConfigMap keys the container mounts, by the path it sees them at."""
    volumes = at.pod.get("volumes") if at.pod is not None else None
    by_volume: dict[str, tuple[Map, dict[str, str]]] = {}
    for vol in _items(volumes):
        cm = vol.get("configMap") if isinstance(vol, Map) else None
        name = vol.get("name") if isinstance(vol, Map) else None
        ref = cm.get("name") if isinstance(cm, Map) else None
        if not (isinstance(name, Scalar) and isinstance(ref, Scalar)):
            continue
        data = maps.get(str(ref.value))
        if data is None:
            continue
        paths = {str(i.get("key").value): str(i.get("path").value)
                 for i in _items(cm.get("items"))
                 if isinstance(i, Map) and isinstance(i.get("key"), Scalar)
                 and isinstance(i.get("path"), Scalar)}
        by_volume[str(name.value)] = (data, paths)
    files: dict[str, Lines | None] = {}
    for mount in _items(at.container.get("volumeMounts")):
        if not isinstance(mount, Map):
            continue
        name, where, sub = (mount.get(k) for k in ("name", "mountPath", "subPath"))
        if not (isinstance(name, Scalar) and isinstance(where, Scalar)):
            continue
        found = by_volume.get(str(name.value))
        if found is None:
            continue
        data, paths = found
        for key, value in data.items():
            if not isinstance(value, Scalar) or not isinstance(value.value, str):
                continue
            rel = paths.get(key, key) if paths else key
            if isinstance(sub, Scalar) and sub.value is not None:
                if str(sub.value) != rel:
                    continue
                target = str(where.value)
            else:
                target = str(where.value).rstrip("/") + "/" + rel
            files[target] = _file_lines(value, lines)
    return files


def _file_lines(value: Scalar, raw: list[str]) -> Lines:
    """A ConfigMap value's lines with their spans (a block scalar's lines are the file's;
    any other value's are the scalar's)."""
    text = str(value.value)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    span = value.span
    out = []
    block = span.line <= len(raw) and raw[span.line - 1][span.column - 1:span.column] in "|>"
    for i, line in enumerate(lines):
        at = span.line + 1 + i  # a block scalar's content starts on the next line
        row = raw[at - 1] if block and at <= len(raw) else ""
        col = row.find(line) + 1 if line and line in row else 0
        where = Span(span.path, at, col, at, col + len(line)) if col else span
        out.append((line, where, bool(PLACEHOLDER.search(line))))
    return tuple(out)
