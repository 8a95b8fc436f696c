"""Read a SkyPilot task: ``setup`` then ``run`` as one script whose every word is at its place
in the file, through the container-launch function. ``envs`` entries without a value must
be given at launch (``--env``): symbolic. ``resources.image_id: docker:IMAGE`` (also inside
``any_of``/``ordered`` candidates: the first) is the container the script runs in."""

from __future__ import annotations

from servelint.launches import CommandRecord, Origin
from servelint.model import EnvVar, Token
from servelint.sources.base import ReadResult
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq, load_yaml_stream
from servelint.sources.container.launch import container_launches
from servelint.sources.container.record import ShellText
from servelint.sources.container.scalar_text import placed_text
from servelint.sources.kubernetes.reader import read_text
from servelint.sources.unread import no_launch_note


def read_task(path: str) -> ReadResult:
    text, failed = read_text(path)
    if text is None:
        return failed
    docs, problems = load_yaml_stream(text, path)
    result = ReadResult(problems=list(problems))
    lines = text.split("\n")
    for k, task in enumerate(docs):  # a pipeline: one task per document
        if isinstance(task, Map) and isinstance(task.get("run"), Scalar):
            _read_one(path, task, lines, k, len(docs), result)
    return no_launch_note(path, text, result, "SkyPilot task")


def _read_one(path: str, task: Map, lines: list[str], index: int, count: int,
              result: ReadResult) -> None:
    parts = [n for n in (task.get("setup"), task.get("run")) if isinstance(n, Scalar)
             and isinstance(n.value, str)]
    script = _script(parts, lines)
    word = Token("\n".join(str(n.value) for n in parts), parts[-1].span)
    name = task.get("name")
    label = "task" + (f" {name.value}" if isinstance(name, Scalar) else "") + \
        (f" [{index}]" if count > 1 else "")
    image = _image(task.get("resources"))
    record = CommandRecord([word], parts[-1].span, Origin("skypilot", path, label),
                           _envs(task.get("envs")), image=image,
                           entrypoint=[Token("bash", parts[-1].span),
                                       Token("-c", parts[-1].span)])
    specs, problems = container_launches(record, {id(word): script} if script else None)
    result.specs.extend(specs)
    result.problems.extend(problems)


def _script(parts: list[Scalar], lines: list[str]) -> ShellText | None:
    """``setup`` and ``run`` placed in one text at their own lines (setup runs first)."""
    placed = [placed_text(lines, n) for n in parts]
    if any(p is None for p in placed):
        return None
    out = [""] * len(lines)
    for p in placed:
        for k, line in enumerate(p.text.split("\n")):
            out[p.line_offset + k] = line
    return ShellText("\n".join(out), 0)


def _image(resources: Node | None) -> Token | None:
    candidates = [resources]
    if isinstance(resources, Map):
        for key in ("any_of", "ordered"):
            group = resources.get(key)
            if isinstance(group, Seq):
                candidates += list(group.items)
    for res in candidates:
        image = res.get("image_id") if isinstance(res, Map) else None
        if isinstance(image, Scalar) and isinstance(image.value, str) and \
                image.value.startswith("docker:"):
            span = image.span
            return Token(image.value[len("docker:"):], span)
    return None


def _envs(node: Node | None) -> list[EnvVar]:
    out: list[EnvVar] = []
    if isinstance(node, Map):
        for key, value in node.entries:
            name = str(key.value)
            if isinstance(value, Scalar) and value.value is not None:
                out.append(EnvVar(name, str(value.value), value.span))
            else:  # given at launch: sky launch --env NAME=…
                out.append(EnvVar(name, f"${name}", key.span, True))
    return out
