"""Read a file of Kubernetes objects (one or many documents, ``helm template`` output
included): every container of every object, as launches."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import ReadResult
from servelint.sources.common.deps import note
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import load_yaml_stream
from servelint.sources.container.launch import container_launches
from servelint.sources.kubernetes.containers import container_record
from servelint.sources.kubernetes.objects import config_maps, containers_of, objects_of
from servelint.sources.kubernetes.schema import CONTROLLER_BUILT, group_of

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
        built = CONTROLLER_BUILT.get(f"{group_of(obj.api_version)}/{obj.kind}")
        if built is not None:
            result.problems.append(ReadProblem(
                path, obj.root.span, f"{obj.kind} {obj.name}: {built}; its launch is not "
                "read", "unsupported"))
            continue
        for at in containers_of(obj):
            record, scripts = container_record(obj, at, lines, path, maps, origin,
                                               result.problems, unknown_lines)
            specs, found = container_launches(record, scripts)
            result.specs.extend(specs)
            result.problems.extend(found)
    return result
