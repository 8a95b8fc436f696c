"""The launches of a checkout that name an option file, and the launch that judges the file
on its own (``sources.option_file``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from servelint.engines import registry
from servelint.model import LaunchSpec, Span, Token
from servelint.sources.base import ReadContext, ReadResult
from servelint.sources.common.deps import note
from servelint.sources.common.option_files import read_lines
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.walk import Skipped, walk
from servelint.sources.dispatch import reader_for
from servelint.sources.shell.script import find_root

LAUNCH_SUFFIXES = (".sh", ".bash", ".md")
MAX_FILES = 5000  # files of the checkout looked at for the name
MAX_READS = 40  # launchers and guides that mention it, read
MAX_BYTES = 1 << 20
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".tox"}


def read_option_file(path: str, ctx: ReadContext) -> ReadResult:
    """The launches that judge ``path``: one per launch of the checkout that names it."""
    at = Span(path, 1, 1)
    found = read_lines(os.path.abspath(path), at)
    if found.lines is None:
        return ReadResult([], [found.problem] if found.problem else [])
    launches, why = naming_launches(path, ctx)
    specs = [judging_spec(path, found.lines, s) for s in launches]
    problems = []
    if not specs:
        problems.append(ReadProblem(path, at, why, "unsupported"))
    return ReadResult(specs, problems)


def naming_launches(path: str, ctx: ReadContext) -> tuple[list[LaunchSpec], str]:
    """The TensorRT-LLM launches of ``path``'s checkout whose option file is ``path``; and
    what to say when there is none."""
    target = os.path.realpath(path)
    root = find_root(path)
    if root not in ctx.mentions:
        ctx.mentions[root] = mention_index(root)
    index, complete = ctx.mentions[root]
    out: list[LaunchSpec] = []
    candidates = index.get(os.path.basename(path), [])
    for item in candidates[:MAX_READS]:
        reader = reader_for(Path(item))
        if reader is None or reader.name not in ("shell", "markdown"):
            continue
        note(item)
        for spec in reader.read(item, ctx).specs:
            named = spec.context.get("config_from", "")
            if _checks_option_files(spec.engine) and named and os.path.realpath(named) == target:
                out.append(spec)
    why = (
        "TensorRT-LLM LLM API option file that no launch of this checkout names by a path "
        "servelint can follow (a literal path, or a variable the script sets): not judged, "
        "the backend and the release it meets are the launch's"
    )
    if not complete or len(candidates) > MAX_READS:
        why += (f"; only the first {MAX_FILES} launchers and guides, and {MAX_READS} that "
                "mention it, were looked at")
    return out, why


def _checks_option_files(engine: str) -> bool:
    """Whether the engine judges an option file a launch names (``Engine.option_file_checks``:
    TensorRT-LLM's LLM API options)."""
    found = registry.find(engine)
    return found is not None and found.option_file_checks


_YAML_NAME = re.compile(rb"[\w.+-]+\.ya?ml\b")


def mention_index(root: str) -> tuple[dict[str, list[str]], bool]:
    """The YAML file names each launcher or guide under ``root`` mentions (by basename);
    built once per checkout and run (``ReadContext.mentions``)."""
    index: dict[str, list[str]] = {}
    seen = 0
    for item in walk(root, _SKIP_DIRS):
        if isinstance(item, Skipped) or not item.endswith(LAUNCH_SUFFIXES):
            continue
        seen += 1
        if seen > MAX_FILES:
            return index, False
        for name in sorted(set(_yaml_names(item))):
            index.setdefault(name, []).append(item)
    return index, True


def _yaml_names(path: str) -> list[str]:
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return []
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return []
    return [m.decode("utf-8", "replace") for m in _YAML_NAME.findall(data)]


def judging_spec(path: str, lines, launch: LaunchSpec) -> LaunchSpec:
    """The naming launch reduced to what the file's verdict depends on: its engine,
    entrypoint, release, image and ``--backend``; the model left symbolic."""
    at = Span(path, 1, 1)
    argv: list[Token] = []
    if launch.entrypoint.startswith("trtllm-serve"):
        argv = [Token("<model>", at, True), *_backend_tokens(launch.argv)]
    named_by = os.path.relpath(launch.anchor.path, os.path.dirname(os.path.abspath(path)))
    where = f"{named_by}:{launch.anchor.line}"
    return LaunchSpec(
        engine=launch.engine,
        entrypoint=launch.entrypoint,
        argv=argv,
        path=path,
        anchor=at,
        image=launch.image,
        image_span=launch.image_span,
        release=launch.release,
        release_span=launch.release_span,
        floor=launch.floor,
        floor_span=launch.floor_span,
        gpu=launch.gpu,
        rendering=f"launched by {where}",
        origin="option-file",
        context=dict(launch.context),
        option_file=lines,
    )


def _backend_tokens(argv: list[Token]) -> list[Token]:
    for i, tok in enumerate(argv):
        if tok.text == "--backend" and i + 1 < len(argv):
            return [tok, argv[i + 1]]
        if tok.text.startswith("--backend="):
            return [tok]
    return []
