"""Recognise an engine server launch in an expanded command (after wrappers).

Entrypoints are the engines' launchers (``engines.registry``: ``vllm serve``, ``python[3] -m
sglang.launch_server``, ...): command words, or an interpreter's ``-m MODULE``. Wrappers skipped in front of them:
``VAR=x`` words, ``exec``, ``nohup``, ``env``, ``timeout``, ``time``, ``sudo``,
``setsid``, ``stdbuf``, ``nice``, ``numactl``, ``taskset``, ``mpirun``/``mpiexec``,
``srun``, ``command``. After a wrapper the first entrypoint word is the launch.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from servelint.engines import registry
from servelint.model import EnvVar, Token

WRAPPERS = frozenset({
    "exec", "nohup", "env", "timeout", "time", "sudo", "setsid", "stdbuf", "nice", "ionice",
    "numactl", "taskset", "mpirun", "mpiexec", "srun", "command", "unbuffer", "chrt",
})
_PY_OPTS_WITH_VALUE = frozenset({"-W", "-X", "-c", "-Q"})
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
@dataclass
class LaunchMatch:
    """An engine launch found in a shell command line."""

    engine: str
    entrypoint: str
    anchor: Token  # the entrypoint's first word
    argv: list[Token]
    env: list[EnvVar]  # VAR=x words found among the wrappers


def is_python(word: str) -> bool:
    return re.fullmatch(r"python(\d+(\.\d+)?)?", os.path.basename(word)) is not None


def config_flags(engine: str) -> tuple[str, ...]:
    """Options that name a file the engine reads its options from."""
    found = registry.find(engine)
    return found.config_flags if found else ()


def _module_at(tokens: list[Token], k: int) -> tuple[str, str, int] | None:
    """-> (engine, entrypoint, first argv index) for the ``-m MODULE`` at ``tokens[k]``."""
    if not (k + 1 < len(tokens) and tokens[k].text == "-m"):
        return None
    for engine, launcher in registry.modules().get(tokens[k + 1].text, ()):
        start = k + 2
        then = [t.text for t in tokens[start:start + len(launcher.then)]]
        if then == list(launcher.then):
            return registry.starts(engine, launcher), launcher.name, start + len(launcher.then)
    return None


def launcher_at(tokens: list[Token], j: int) -> tuple[str, str, int] | None:
    """-> (engine, entrypoint, index of first argv token) if an engine launcher starts at j."""
    return _entry_at(tokens, j) if j < len(tokens) else None


def _entry_at(tokens: list[Token], j: int) -> tuple[str, str, int] | None:
    """-> (engine, entrypoint, index of first argv token) if an entrypoint starts at j."""
    tok = tokens[j]
    word = os.path.basename(tok.text)
    if tok.symbolic:
        # an interpreter the script does not fix ("$PYTHON" -m sglang.launch_server)
        return _module_at(tokens, j + 1)
    for engine, command in registry.commands():
        n = len(command.words)
        if word == command.words[0] and \
                [t.text for t in tokens[j + 1:j + n]] == list(command.words[1:]):
            return registry.starts(engine, command), command.name, j + n
    if is_python(word):
        k = j + 1
        while k < len(tokens) and tokens[k].text.startswith("-") and tokens[k].text != "-m":
            if tokens[k].text in ("-c",):
                return None
            k += 2 if tokens[k].text in _PY_OPTS_WITH_VALUE else 1
        return _module_at(tokens, k)
    return None


def strip_wrappers(tokens: list[Token]) -> tuple[list[Token], list[EnvVar], bool]:
    """Leading ``VAR=x`` words and plain wrappers -> (rest, env, saw_wrapper)."""
    env: list[EnvVar] = []
    i = 0
    saw = False
    while i < len(tokens):
        t = tokens[i]
        if not t.symbolic and _ASSIGN.match(t.text):
            name, _, value = t.text.partition("=")
            env.append(EnvVar(name, value, t.span, "$" in value and t.symbolic))
            i += 1
            continue
        base = os.path.basename(t.text)
        if base in ("exec", "nohup", "time", "setsid", "command"):
            saw = True
            i += 1
            while i < len(tokens) and tokens[i].text.startswith("-") and base in ("exec", "time"):
                i += 1
            continue
        if base == "env":
            saw = True
            i += 1
            while i < len(tokens) and tokens[i].text.startswith("-"):
                i += 2 if tokens[i].text in ("-u", "-C", "-S") else 1
            continue
        if base == "sudo":
            saw = True
            i += 1
            while i < len(tokens) and tokens[i].text.startswith("-"):
                i += 2 if tokens[i].text in ("-u", "-g", "-C", "-D", "-h", "-p") else 1
            continue
        break
    return tokens[i:], env, saw


def match_launch(tokens: list[Token]) -> LaunchMatch | None:
    rest, env, _ = strip_wrappers(tokens)
    if not rest:
        return None
    hit = _entry_at(rest, 0)
    j = 0
    if hit is None and os.path.basename(rest[0].text) in WRAPPERS:
        # timeout/mpirun/srun/numactl/...: their own options, then the command
        for j in range(1, len(rest)):
            hit = _entry_at(rest, j)
            if hit is not None:
                break
            if not rest[j].symbolic and _ASSIGN.match(rest[j].text) and j > 0 and \
                    rest[j - 1].text in ("-x", "--export"):
                continue
    if hit is None:
        return None
    engine, entry, start = hit
    return LaunchMatch(engine, entry, rest[j], list(rest[start:]), env)


def config_value(tokens: list[Token], flags: tuple[str, ...]) -> tuple[int, Token] | None:
    """Index and value token of the first ``--flag X`` / ``--flag=X`` among flags."""
    for i, t in enumerate(tokens):
        if t.symbolic and "=" not in t.text:
            continue
        name, eq, value = t.text.partition("=")
        if name in flags:
            if eq:
                return i, Token(value, t.span, t.symbolic)
            if i + 1 < len(tokens):
                return i + 1, tokens[i + 1]
    return None
