"""Read a compose file: one command record per service, through the container-launch
function. ``${VAR}``/``$VAR`` (Compose interpolation from the environment or ``.env``) are
symbolic; ``$$`` is a literal ``$``."""

from __future__ import annotations

import re

from servelint.launches import CommandRecord, Origin
from servelint.model import EnvVar, Token
from servelint.sources.base import ReadResult
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq, load_yaml_stream
from servelint.sources.compose.words import split_words
from servelint.sources.container.launch import container_launches
from servelint.sources.container.scalar_text import placed_text
from servelint.sources.kubernetes.reader import read_text
from servelint.sources.unread import no_launch_note

_INTERPOLATION = re.compile(r"\$(?!\$)(\{[^}]*\}|[A-Za-z_]\w*)")


def read_compose(path: str) -> ReadResult:
    text, failed = read_text(path)
    if text is None:
        return failed
    docs, problems = load_yaml_stream(text, path)
    result = ReadResult(problems=list(problems))
    root = docs[0] if docs else None
    services = root.get("services") if isinstance(root, Map) else None
    if not isinstance(services, Map):
        return result
    lines = text.split("\n")
    for name, service in services.items():
        if not isinstance(service, Map):
            continue
        entry = _words(service.get("entrypoint"), lines, path)
        args = _words(service.get("command"), lines, path) or []
        image = service.get("image")
        image_token = (_token(str(image.value), image) if isinstance(image, Scalar)
                       and image.value is not None else None)
        anchor = (entry or args or [Token("", service.span)])[0].span or service.span
        record = CommandRecord(args, anchor, Origin("compose", path, f"service {name}"),
                               _environment(service.get("environment")), image=image_token,
                               entrypoint=entry)
        if image_token is None and service.get("build") is not None:
            record.context["image"] = "built from the service's build: context"
        specs, found = container_launches(record)
        result.specs.extend(specs)
        result.problems.extend(found)
    return no_launch_note(path, text, result, "compose file")


def _token(text: str, node: Scalar) -> Token:
    symbolic = _INTERPOLATION.search(text) is not None
    return Token(text.replace("$$", "$"), node.span, symbolic)


def _words(node: Node | None, lines: list[str], path: str) -> list[Token] | None:
    if isinstance(node, Seq):
        return [_token("" if i.value is None else str(i.value), i) if isinstance(i, Scalar)
                else Token("<value>", i.span, True) for i in node.items]
    if isinstance(node, Scalar) and isinstance(node.value, str):
        placed = placed_text(lines, node)
        if placed is None:  # escapes: the words as the value splits, spanned at the scalar
            return [Token(w, node.span, _INTERPOLATION.search(w) is not None)
                    for w in node.value.split()]
        return [Token(t.text.replace("$$", "$"), t.span,
                      _INTERPOLATION.search(t.text) is not None)
                for t in split_words(placed, path)]
    return None


def _environment(node: Node | None) -> list[EnvVar]:
    out: list[EnvVar] = []
    if isinstance(node, Map):
        for key, value in node.entries:
            name = str(key.value)
            if isinstance(value, Scalar) and value.value is not None:
                text = str(value.value)
                out.append(EnvVar(name, text, value.span,
                                  _INTERPOLATION.search(text) is not None))
            else:  # `NAME:` with no value: taken from the environment compose runs in
                out.append(EnvVar(name, f"${name}", key.span, True))
    elif isinstance(node, Seq):
        for item in node.items:
            if not isinstance(item, Scalar) or item.value is None:
                continue
            name, eq, value = str(item.value).partition("=")
            symbolic = not eq or _INTERPOLATION.search(value) is not None
            out.append(EnvVar(name, value if eq else f"${name}", item.span, symbolic))
    return out
