"""The one way a deployment file's container becomes launch specs.

``container_launches(record)`` applies the image's entrypoint (``docker_run.container_command``:
the same knowledge a ``docker run`` line gets), then reads the command the container runs
with the shell reader: a ``sh -c``/``bash -c`` script is interpreted as a script whose spans
are the file's (``ShellText``), any other command is one command line. The container's env
is the script's environment (``valueFrom`` and the like stay symbolic), the files it mounts
are files the script may name (``--config``). Every launch found carries the record's
image, env, origin and label."""

from __future__ import annotations

import os

from servelint.model import LaunchSpec, Token
from servelint.sources.common.problems import ReadProblem
from servelint.sources.container.record import CommandRecord, ShellText
from servelint.sources.docker_run.parse import DockerRun, container_command
from servelint.sources.markdown.reader import OMNI_FLAG
from servelint.sources.shell.interpreter import Interpreter
from servelint.sources.shell.script import dedupe_launches
from servelint.sources.shell.syntax import PARSER, FixedSpanSource, parse_source
from servelint.sources.shell.values import Field, Piece, Source, State

_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh"})


class _ContainerInterpreter(Interpreter):
    """The shell reader's interpreter, starting with the container's mounted files."""

    def __init__(self, record: CommandRecord, time_limit: float) -> None:
        env = {e.name: (None if e.symbolic else e.value) for e in record.env}
        super().__init__(record.path, os.path.dirname(os.path.abspath(record.path)), env,
                         max_states=8, max_steps=100_000, time_limit=time_limit)
        self.env_complete = False  # the image's own ENV lines are not known
        self.mounted = record.files

    def initial_state(self) -> State:
        st = super().initial_state()
        st.files.update(self.mounted)
        return st


def container_launches(record: CommandRecord, time_limit: float = 3.0
                       ) -> tuple[list[LaunchSpec], list[ReadProblem]]:
    """The launches a container (or task) makes, and the problems met reading it."""
    problems: list[ReadProblem] = []
    words, scripts = _command_words(record, problems)
    if not words:
        return [], problems
    interp = _ContainerInterpreter(record, time_limit)
    script_at = _shell_script(words)
    try:
        if script_at is not None:
            _run_script(interp, record, words[script_at], scripts.get(script_at))
        else:
            empty = parse_source(record.path, b"")
            interp.script_assigned = frozenset()
            interp.on_command([_field(t) for t in words], [], empty,
                              interp.initial_state(), empty.tree.root_node)
    except Exception as exc:  # a reader must never take the run down
        problems.append(ReadProblem(record.path, record.anchor,
                                    f"internal reader error: {exc!r}", "read-error"))
    problems.extend(interp.problems)
    specs = dedupe_launches(interp.launches)
    for spec in specs:
        _dress(spec, record)
    return specs, problems


def _command_words(record: CommandRecord, problems: list[ReadProblem]
                   ) -> tuple[list[Token], dict[int, ShellText]]:
    """The words the container runs (entrypoint applied) and their placed scripts, by
    index in those words."""
    given = (record.entrypoint or []) + record.args
    if record.image is None:
        return given, dict(record.scripts)
    entry = record.entrypoint or []
    run = DockerRun(anchor=record.image, options=[], image=record.image,
                    args=entry[1:] + record.args, env=list(record.env),
                    entrypoint=entry[0] if entry else None)
    cmd = container_command(run)
    if cmd is None:
        return [], {}
    if cmd.shape_error:
        problems.append(ReadProblem(record.path, cmd.shape_span or record.anchor,
                                    cmd.shape_error.replace("docker run:", f"{record.origin}:"),
                                    "entrypoint-shape"))
    if cmd.assumed:
        record.context["entrypoint_assumed"] = cmd.assumed
    # the words the image adds come first; the record's words keep their order after them
    shift = len(cmd.words) - len(given) + _dropped(given, cmd.words)
    scripts = {i + shift: s for i, s in record.scripts.items() if 0 <= i + shift}
    return list(cmd.words), scripts


def _dropped(given: list[Token], words: list[Token]) -> int:
    """Words of ``given`` the entrypoint shape dropped (repeated entrypoint words)."""
    ids = {id(t) for t in words}
    return sum(1 for t in given if id(t) not in ids)


def _shell_script(words: list[Token]) -> int | None:
    """Index of the script of ``sh -c SCRIPT`` / ``bash -ec SCRIPT`` (None: not one)."""
    if not words or words[0].symbolic or os.path.basename(words[0].text) not in _SHELLS:
        return None
    i = 1
    while i < len(words) and words[i].text.startswith("-"):
        flag = words[i].text
        if flag in ("-o", "+o"):
            i += 2
            continue
        if not flag.startswith("--") and "c" in flag[1:]:
            return i + 1 if i + 1 < len(words) else None
        i += 1
    return None


def _run_script(interp: _ContainerInterpreter, record: CommandRecord, word: Token,
                placed: ShellText | None) -> None:
    # a symbolic script still runs: what is unknown in it (a ``$(VAR)`` the kubelet left,
    # a template's placeholder) is unknown to the shell reader too
    src: Source
    if placed is not None:
        src = parse_source(record.path, placed.text.encode("utf-8", "replace"),
                           placed.line_offset)
    else:
        data = word.text.encode("utf-8", "replace")
        src = FixedSpanSource(record.path, data, PARSER.parse(data), word.span or record.anchor)
    interp.run(src)


def _field(tok: Token) -> Field:
    return Field((Piece(tok.text, tok.symbolic, tok.span),), tok.span)


def _dress(spec: LaunchSpec, record: CommandRecord) -> None:
    """The record's image, env, origin and label on a launch found in it."""
    if record.image is not None and not record.image.symbolic:
        spec.image, spec.image_span = record.image.text, record.image.span
    names = {e.name for e in spec.env}
    spec.env = [e for e in record.env if e.name not in names] + spec.env
    spec.origin = record.origin
    if spec.engine == "vllm" and any(t.text == OMNI_FLAG for t in spec.argv):
        spec.engine = "vllm-omni"  # as a Markdown launch is (sources/markdown/reader.py)
    spec.rendering = "; ".join(x for x in (record.label, spec.rendering) if x)
    spec.context.update(record.context)

