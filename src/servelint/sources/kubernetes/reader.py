"""Read a file of Kubernetes objects (one or many documents, ``helm template`` output
included): every container of every object, as launches."""

from __future__ import annotations

from pathlib import Path

from servelint.launches import CommandRecord, Origin
from servelint.model import Token
from servelint.sources.base import ReadResult
from servelint.sources.common.deps import note
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Scalar, at, load_yaml_stream
from servelint.sources.container.launch import container_launches
from servelint.sources.container.scalar_text import placed_text
from servelint.sources.kubernetes.containers import PLACEHOLDER, container_record
from servelint.sources.kubernetes.controllers import controller_record, map_for
from servelint.sources.kubernetes.objects import config_maps, containers_of, objects_of
from servelint.sources.kubernetes.schema import (
    CONTROLLER_BUILT,
    MERGED_FROM,
    SHELL_FIELDS,
    ShellField,
    group_of,
)
from servelint.sources.unread import no_launch_note

MAX_BYTES = 4_000_000


def read_text(path: str) -> tuple[str | None, ReadResult]:
    """The file's text, or a result holding why it cannot be read."""
    note(path)
    try:
        raw = Path(path).read_bytes() if Path(path).is_file() else None
    except OSError as exc:
        raw, why = None, f"cannot read file: {exc.strerror or exc}"
    else:
        why = "not a regular file"
    if raw is not None and len(raw) > MAX_BYTES:
        raw, why = None, f"file larger than {MAX_BYTES} bytes; not read"
    if raw is None:
        return None, ReadResult(problems=[ReadProblem(path, None, why, "read-error")])
    try:
        return raw.decode("utf-8-sig"), ReadResult()
    except UnicodeDecodeError:
        return None, ReadResult(problems=[ReadProblem(path, None, "file is not valid UTF-8",
                                                      "read-error")])


def read_manifests(path: str, text: str | None = None, origin: str = "kubernetes",
                   unknown_lines: frozenset[int] = frozenset()) -> ReadResult:
    """Every launch of the objects in ``path`` (or in ``text``, the file's prepared text;
    ``unknown_lines``: lines a template fills with what cannot be seen, see
    ``sources/templates/text.py``)."""
    if text is None:
        text, failed = read_text(path)
        if text is None:
            return failed
    docs, problems = load_yaml_stream(text, path)
    result = ReadResult(problems=list(problems))
    objs = [o for d in docs for o in objects_of(d)]
    maps = config_maps(objs)
    lines = text.split("\n")
    for obj in objs:
        if _controller_built(path, obj, origin, result):
            continue
        built = CONTROLLER_BUILT.get(f"{group_of(obj.api_version)}/{obj.kind}")
        if built is not None:
            result.problems.append(ReadProblem(
                path, obj.root.span, f"{obj.kind} {obj.name}: {built}; its launch is not "
                "read", "unsupported"))
            continue
        for field in SHELL_FIELDS:
            if field.kind == obj.kind and field.group == group_of(obj.api_version):
                _shell_field(path, obj, field, lines, origin, result)
        for found_at in containers_of(obj):
            record, scripts = container_record(obj, found_at, lines, path, maps, origin,
                                               result.problems, unknown_lines)
            specs, found = container_launches(record, scripts)
            result.specs.extend(specs)
            result.problems.extend(found)
    kinds = ", ".join(dict.fromkeys(o.kind for o in objs)) or "no object"
    merged = [MERGED_FROM[k] for k in dict.fromkeys(f"{group_of(o.api_version)}/{o.kind}"
                                                     for o in objs) if k in MERGED_FROM]
    what = f"{origin} file ({kinds})" + "".join(f"; {m}" for m in merged)
    return no_launch_note(path, text, result, what, always=bool(merged))


def _controller_built(path: str, obj, origin: str, result: ReadResult) -> bool:  # noqa: ANN001
    """The engine container a controller map says the object's controller builds (True:
    the object was read, or noted as starting no engine servelint judges)."""
    maps = map_for(group_of(obj.api_version), obj.kind)
    if not maps:
        return False
    for cmap in maps:
        record, notes = controller_record(obj, cmap, path, origin)
        if record is None and notes:
            result.problems.extend(notes)
            return True
        if record is None:
            continue
        result.problems.extend(notes)
        specs, found = container_launches(record)
        result.specs.extend(specs)
        result.problems.extend(found)
        return True
    chosen = [f"{m['when']['field']} is not {m['when']['value']}" for m in maps if "when" in m]
    result.problems.append(ReadProblem(
        path, obj.root.span, f"{obj.kind} {obj.name}: its controller starts an engine "
        f"servelint does not judge ({'; '.join(chosen)}); not read", "unsupported"))
    return True


def _shell_field(path: str, obj, field: ShellField, lines: list[str], origin: str,  # noqa: ANN001
                 result: ReadResult) -> None:
    """A command string the object's controller runs in one of its containers (RayJob)."""
    node = at(obj.root, *_keys(field.command))
    image = at(obj.root, *_keys(field.image))
    if not isinstance(node, Scalar) or not isinstance(node.value, str):
        return
    word = Token(node.value, node.span, bool(PLACEHOLDER.search(node.value)))
    image_token = Token(str(image.value), image.span, bool(PLACEHOLDER.search(
        str(image.value)))) if isinstance(image, Scalar) and image.value is not None else None
    shell = [Token("bash", node.span), Token("-c", node.span)]
    record = CommandRecord([word], node.span,
                           Origin(origin, path, f"{obj.kind} {obj.name} {field.command}"),
                           image=image_token, entrypoint=shell)
    placed = placed_text(lines, node)
    specs, found = container_launches(record, {id(word): placed} if placed else None)
    result.specs.extend(specs)
    result.problems.extend(found)


def _keys(dotted: str) -> list[str | int]:
    return [int(k) if k.isdigit() else k for k in dotted.split(".")]
