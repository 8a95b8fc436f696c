"""``docker run`` option grammar: the image, the container command and ``-e`` env vars.

``parse_docker_run(tokens)`` reads one command (wrappers such as ``sudo`` already removed)
that starts ``docker run`` / ``docker container run`` / ``podman run`` / ``nvidia-docker run``
and returns the options, the image and the arguments after it. ``container_command`` then
applies the image's entrypoint shape:

* ``--entrypoint X`` replaces the image entrypoint: the command is ``X ARGS…``.
* ``vllm/vllm-openai`` runs ``vllm serve`` itself (``ENTRYPOINT ["vllm", "serve"]``), so the
  arguments are ``<model> --flags``. Arguments that start by repeating an entrypoint
  (``vllm serve m`` or ``python3 -m vllm.entrypoints.openai.api_server``) are the
  entrypoint-shape mistake of engine-churn.md section 4: the server would receive
  ``vllm serve vllm serve m`` and stop on the extra positionals (the real 0.21.0 parser:
  ``vllm: error: unrecognized arguments: serve org/m``). The repeated words are
  dropped (so the flags are still checked) and the mistake is returned as ``shape_error``.
  The same holds for an image whose entrypoint is the older ``api_server`` module.
* Other vLLM images (ROCm, CPU, TPU builds) have entrypoints servelint cannot see: arguments
  that start with a flag are taken as ``vllm serve`` arguments (``assumed`` says so);
  arguments that start with a command are that command.
* Any other image: the arguments are the command (``python3 -m sglang.launch_server …``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from servelint.engines.images import resolve_image
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
# images whose entrypoint is `vllm serve` (vllm-project Dockerfile, target vllm-openai)
SERVE_REPOSITORIES = frozenset({"vllm/vllm-openai"})
_RUNNERS = {"docker", "podman", "nvidia-docker"}
_API_SERVER = "vllm.entrypoints.openai.api_server"


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


@dataclass
class ContainerCommand:
    """The command a container runs, and whether its entrypoint is assumed or misshapen."""

    words: list[Token]  # the command the container runs (entrypoint + arguments)
    assumed: str = ""  # why the entrypoint is an assumption, when it is
    shape_error: str = ""  # the entrypoint-shape mistake, when there is one
    shape_span: Span | None = None


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


def _repeats_entrypoint(args: list[Token]) -> int:
    """How many leading words repeat a vLLM server entrypoint (0 when none)."""
    words = [t.text for t in args[:4]]
    if len(words) >= 2 and os.path.basename(words[0]) == "vllm" and words[1] == "serve":
        return 2
    if len(words) >= 3 and os.path.basename(words[0]).startswith("python") and \
            words[1] == "-m" and words[2] == _API_SERVER:
        return 3
    return 0


def _word(text: str, at: Token) -> Token:
    return Token(text, at.span)


def container_command(run: DockerRun) -> ContainerCommand | None:
    """What the container runs, with the entrypoint shape applied (None: nothing to judge)."""
    if run.image is None:
        return None
    if run.entrypoint is not None:
        return ContainerCommand([run.entrypoint, *run.args])
    if run.image.symbolic:
        return ContainerCommand(list(run.args)) if _repeats_entrypoint(run.args) else None
    ref = resolve_image(run.image.text)
    if ref.repository in SERVE_REPOSITORIES:
        entry = [_word("vllm", run.image), _word("serve", run.image)]
        skip = _repeats_entrypoint(run.args)
        if skip:
            written = " ".join(t.text for t in run.args[:skip])
            first = run.args[0].span
            return ContainerCommand(
                entry + run.args[skip:],
                shape_error=(f"docker run: the image {run.image.text} already runs `vllm serve` "
                             f"(its entrypoint); the arguments repeat `{written}`, so the "
                             f"server receives `vllm serve {written} …` and stops at parse time "
                             "(\"unrecognized arguments\"). Pass only `<model> --flags` after "
                             "the image, or set --entrypoint"),
                shape_span=first)
        return ContainerCommand(entry + run.args)
    if ref.engine == "vllm":
        if not run.args:
            return None  # an interactive container: the command comes later
        if run.args[0].text.startswith("-") or _looks_like_model(run.args[0].text):
            return ContainerCommand(
                [_word("vllm", run.image), _word("serve", run.image), *run.args],
                assumed=f"the entrypoint of {ref.repository} is taken to be `vllm serve`")
    return ContainerCommand(list(run.args))


def _looks_like_model(text: str) -> bool:
    """``org/name`` (a Hugging Face id) rather than a command word."""
    return text.count("/") == 1 and not text.startswith(("/", ".")) and " " not in text
