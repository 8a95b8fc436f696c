"""The one way a deployment file's container (or task) becomes launch specs.

``container_launches(record, scripts)`` hands the record to the launch assembler
(``servelint.launches.assemble``: the image's entrypoint per release, the engine the words
start, config files, pins). A container whose own command is a shell (``sh -c SCRIPT``,
``bash -ec SCRIPT``) is interpreted by the shell reader with the container's env as its
environment and the files the container mounts as files it may name (``--config``); the
script's spans are the file's where the reader placed its text (``scripts``, by the
script word's identity), else the script word's. Every launch gets the record's origin."""

from __future__ import annotations

import os

from servelint.launches import Assembly, CommandRecord, assemble, in_container
from servelint.model import LaunchSpec, Token
from servelint.sources.common.problems import ReadProblem
from servelint.sources.container.record import ShellText
from servelint.sources.shell.interpreter import Interpreter
from servelint.sources.shell.script import dedupe_launches
from servelint.sources.shell.syntax import PARSER, FixedSpanSource, parse_source
from servelint.sources.shell.values import Source, State, VFile

_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh"})
# `vllm serve … --omni` is served by vLLM-Omni, as a Markdown launch is
# (sources/markdown/reader.py OMNI_FLAG)
_OMNI_FLAG = "--omni"


class _ContainerShell(Interpreter):
    """The shell reader's interpreter, starting with the container's mounted files."""

    def __init__(self, record: CommandRecord, time_limit: float) -> None:
        env = {e.name: (None if e.symbolic else e.value) for e in record.env}
        super().__init__(record.origin.path, os.path.dirname(os.path.abspath(record.origin.path)),
                         env, max_states=8, max_steps=100_000, time_limit=time_limit)
        self.env_complete = False  # the image's own ENV lines are not known
        self.mounted = {k: VFile(v) if v is not None else VFile(unknown=True)
                        for k, v in record.files.items()}

    def initial_state(self) -> State:
        st = super().initial_state()
        st.files.update(self.mounted)
        return st


def container_launches(record: CommandRecord, scripts: dict[int, ShellText] | None = None,
                       time_limit: float = 3.0) -> tuple[list[LaunchSpec], list[ReadProblem]]:
    """The launches a container (or task) makes, and the problems met reading it."""
    out = assemble(record)
    problems = list(out.problems)
    specs = list(out.specs)
    shell = out.shell or ([] if out.container is not None or specs
                          else (record.entrypoint or []) + record.words)
    at = _shell_script(shell)
    if at is not None:
        specs += _script_launches(record, shell[at], (scripts or {}).get(id(shell[at])),
                                  out, problems, time_limit)
    for spec in specs:
        spec.origin = record.origin.kind
        if record.origin.rendering and not spec.rendering.startswith(record.origin.rendering):
            spec.rendering = "; ".join(x for x in (record.origin.rendering, spec.rendering) if x)
        if spec.engine == "vllm" and any(t.text == _OMNI_FLAG for t in spec.argv):
            spec.engine = "vllm-omni"
    return specs, problems


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
            j = i + 1
            if j < len(words) and words[j].text == "--":  # `bash -lc -- SCRIPT`
                j += 1
            return j if j < len(words) else None
        i += 1
    return None


def _script_launches(record: CommandRecord, word: Token, placed: ShellText | None,
                     out: Assembly, problems: list[ReadProblem],
                     time_limit: float) -> list[LaunchSpec]:
    """The launches of a container's shell script. A symbolic script still runs: what is
    unknown in it (a ``$(VAR)`` the kubelet left, a template placeholder) is unknown to the
    shell reader too."""
    interp = _ContainerShell(record, time_limit)
    src: Source
    if placed is not None:
        src = parse_source(record.origin.path, placed.text.encode("utf-8", "replace"),
                           placed.line_offset)
    else:
        data = word.text.encode("utf-8", "replace")
        src = FixedSpanSource(record.origin.path, data, PARSER.parse(data),
                              word.span or record.anchor)
    try:
        interp.run(src)
    except Exception as exc:  # a reader must never take the run down
        problems.append(ReadProblem(record.origin.path, word.span or record.anchor,
                                    f"internal reader error: {exc!r}", "read-error"))
    problems.extend(interp.problems)
    specs = dedupe_launches(interp.launches)
    for spec in specs:
        if out.container is not None:
            # the script runs inside the container: its own installs, pins and words stay
            kept = (spec.anchor, spec.installs, spec.release, spec.release_span)
            in_container(spec, out.container)
            spec.anchor, spec.installs, spec.release, spec.release_span = kept
    return specs
