"""``docker run`` option grammar: the image, the container command and ``-e`` env vars.

``parse_docker_run(tokens)`` reads one command (wrappers such as ``sudo`` already removed)
that starts ``docker run`` / ``docker container run`` / ``podman run`` / ``nvidia-docker run``
and returns the options, the image and the arguments after it. What the container runs
(the image's entrypoint, asked of the engine that owns the image) is
``servelint.launches.containers``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from servelint.model import EnvVar, Span, Token

# long options that take a value (docker run reference); every other long option is a flag
VALUE_OPTIONS = frozenset({
    "--add-host", "--annotation", "--attach", "--blkio-weight", "--blkio-weight-device",
    "--cap-add", "--cap-drop", "--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-count",
    "--cpu-percent", "--cpu-period", "--cpu-quota", "--cpu-rt-period", "--cpu-rt-runtime",
    "--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems", "--detach-keys", "--device",
    "--device-cgroup-rule", "--device-read-bps", "--device-read-iops", "--device-write-bps",
    "--device-write-iops", "--dns", "--dns-option", "--dns-opt", "--dns-search", "--domainname",
    "--entrypoint", "--env", "--env-file", "--expose", "--gpus", "--group-add", "--health-cmd",
    "--health-interval", "--health-retries", "--health-start-interval", "--health-start-period",
    "--health-timeout", "--hostname", "--ip", "--ip6", "--ipc", "--isolation",
    "--kernel-memory", "--label", "--label-file", "--link", "--link-local-ip", "--log-driver",
    "--log-opt", "--mac-address", "--memory", "--memory-reservation", "--memory-swap",
    "--memory-swappiness", "--mount", "--name", "--net", "--net-alias", "--network",
    "--network-alias", "--oom-score-adj", "--pid", "--pids-limit", "--platform", "--publish",
    "--pull", "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal",
    "--stop-timeout", "--storage-opt", "--sysctl", "--tmpfs", "--ulimit", "--user", "--userns",
    "--uts", "--volume", "--volume-driver", "--volumes-from", "--workdir", "--device-requests",
    "--cgroup-conf", "--chroot", "--hooks-dir", "--pod", "--secret", "--uidmap", "--gidmap",
})
SHORT_VALUE = frozenset("acehlmpuvw")  # -e K=V, -v a:b, -p 8000:8000, -w DIR, -u USER, ...
SHORT_FLAGS = frozenset("dit" "P" "q")  # -d, -i, -t, -P, -q (combinable: -itd)
_ENV_OPTIONS = ("--env", "-e")
_RUNNERS = {"docker", "podman", "nvidia-docker"}


@dataclass
class DockerOption:
    """One ``docker run`` option as written."""

    name: str  # as written, without the value ("--env", "-e", "-it")
    value: Token | None
    token: Token  # the option word


@dataclass
class DockerRun:
    """One ``docker run`` command line: its options, image and container arguments."""

    anchor: Token  # the ``docker`` word
    options: list[DockerOption]
    image: Token | None
    args: list[Token]  # container arguments after the image
    env: list[EnvVar] = field(default_factory=list)
    entrypoint: Token | None = None  # --entrypoint value
    env_files: list[Token] = field(default_factory=list)

    def option(self, *names: str) -> DockerOption | None:
        return next((o for o in self.options if o.name in names), None)


def run_start(tokens: list[Token]) -> int | None:
    """Index of the first option after ``docker run`` (or ``docker container run``)."""
    if len(tokens) < 2 or tokens[0].symbolic:
        return None
    if os.path.basename(tokens[0].text) not in _RUNNERS:
        return None
    if tokens[1].text == "run":
        return 2
    if tokens[1].text == "container" and len(tokens) > 2 and tokens[2].text == "run":
        return 3
    return None


def _sub(tok: Token, offset: int, text: str) -> Token:
    span = tok.span
    if span is not None and (span.end_line in (None, span.line)):
        span = Span(span.path, span.line, span.column + offset, span.line,
                    span.column + offset + len(text))
    return Token(text, span, tok.symbolic)


def _long_option(run: DockerRun, tokens: list[Token], i: int) -> int:
    """``--name=value`` / ``--name value`` / ``--flag`` at ``i``; -> the index after it."""
    tok = tokens[i]
    name, eq, value = tok.text.partition("=")
    if eq:
        run.options.append(DockerOption(name, _sub(tok, len(name) + 1, value), tok))
        return i + 1
    if name in VALUE_OPTIONS and i + 1 < len(tokens):
        run.options.append(DockerOption(name, tokens[i + 1], tok))
        return i + 2
    run.options.append(DockerOption(name, None, tok))
    return i + 1


def _short_options(run: DockerRun, tokens: list[Token], i: int) -> int:
    """``-it``, ``-itd``, ``-p8000:8000``, ``-e K=V``, ``-v a:b`` at ``i``; -> the index after."""
    tok = tokens[i]
    text = tok.text
    for k, ch in enumerate(text[1:], start=1):
        if ch not in SHORT_VALUE:
            run.options.append(DockerOption("-" + ch, None, tok))
            continue
        rest = text[k + 1:]
        consumed = 1
        if rest:
            value = _sub(tok, k + 1 + (rest.startswith("=")), rest.removeprefix("="))
        elif i + 1 < len(tokens):
            value, consumed = tokens[i + 1], 2
        else:
            value = None
        run.options.append(DockerOption("-" + ch, value, tok))
        return i + consumed
    return i + 1


def _apply_options(run: DockerRun) -> None:
    for opt in run.options:
        if opt.name in _ENV_OPTIONS and opt.value is not None:
            run.env.append(_env_var(opt.value))
        elif opt.name == "--entrypoint":
            run.entrypoint = opt.value
        elif opt.name == "--env-file" and opt.value is not None:
            run.env_files.append(opt.value)


def parse_docker_run(tokens: list[Token]) -> DockerRun | None:
    """The options, image and arguments of a ``docker run`` command; None if it is not one."""
    i = run_start(tokens)
    if i is None:
        return None
    run = DockerRun(anchor=tokens[0], options=[], image=None, args=[])
    while i < len(tokens):
        text = tokens[i].text
        if text == "--":
            i += 1
            break
        if not text.startswith("-") or text == "-":
            break
        i = _long_option(run, tokens, i) if text.startswith("--") else _short_options(
            run, tokens, i)
    if i < len(tokens):
        run.image = tokens[i]
        run.args = list(tokens[i + 1:])
    _apply_options(run)
    return run


def _env_var(tok: Token) -> EnvVar:
    name, eq, value = tok.text.partition("=")
    if not eq:  # `-e NAME`: the value comes from the caller's environment
        return EnvVar(name, f"${name}", tok.span, True)
    return EnvVar(name, value, tok.span, tok.symbolic)
