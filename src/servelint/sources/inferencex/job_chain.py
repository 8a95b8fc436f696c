"""The scripts a multi-node wrapper's Slurm job runs, in the order they hand over.

AMD ``*-disagg``, llm-d and TileRT wrappers do not start an engine themselves: they ``cd``
into a utilities folder and run ``submit.sh``, which ``sbatch``es ``job.slurm``, which
starts a container running the server script (``server.sh``, ``run_node.sh``) that
composes the engine command. The shell reader does not follow job submission, containers
or a working directory, so this module reads the hand-over from the scripts' text: a word
naming an existing ``*.sh``/``*.slurm`` file under ``benchmarks/multi_node`` on a line that
is no comment, ``echo`` or ``source`` (sourced files are the shell reader's to follow),
resolved against the script's folder, the folders it ``cd``s into, and for a path that
spells ``…/benchmarks/multi_node/…`` (a container mount of the checkout) that folder of the
checkout. Each script of the chain is then read by the shell reader with the environment
the previous one exports (``sbatch`` passes it on; the job hands it to the container).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

MULTI_NODE = "benchmarks/multi_node/"
MAX_SCRIPTS = 12
_REF = re.compile(r"(?P<path>[^\s\"'=()`]*?(?P<name>[\w.+-]+\.(?:sh|slurm)))(?![\w.])")
_SOURCE = re.compile(r"^\s*(?:source|\.)\s")
_QUIET = re.compile(r"^\s*(?:#|echo\b|printf\b)")
_CD = re.compile(r"^\s*cd\s+[\"']?(?P<dir>[^\"'\s|&;]+)")
_EXPANSION_END = re.compile(r"^.*[})]/?")
_ENV_FLAG = re.compile(
    r"(?:^|\s)(?:-e|--env)\s+\\?[\"']?(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:=(?P<value>[^\s\"']*))?"
)
_MOUNTED = re.compile(
    r"^\s*(?:export\s+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)=[\"']?[^\s\"']*?/"
    + re.escape(MULTI_NODE)
    + r"(?P<tail>[\w./-]*)[\"']?\s*$",
    re.M,
)
_VAR_REF = re.compile(r"\\?\$\{?(?P<var>[A-Za-z_][A-Za-z0-9_]*)\}?")
_CONTAINER_ENV = re.compile(r"--container-env=[\"']?(?P<names>[^\s\"']+)")


@dataclass(frozen=True, slots=True)
class Step:
    """One script of a job chain, the script that runs it and what that script passes on."""

    script: str
    via: str  # the script that runs it
    line: int  # where it is named there
    # variables the handing script gives the container (``-e NAME[=VALUE]``,
    # ``--container-env=A,B``): set there, to the literal value or an unknown one
    passed: tuple[tuple[str, str | None], ...] = ()


def _folder_in_checkout(text: str, repo_root: str) -> str | None:
    if MULTI_NODE not in text:
        return None
    return os.path.join(repo_root, MULTI_NODE, text.split(MULTI_NODE, 1)[1])


def _candidates(path: str, dirs: list[str], repo_root: str) -> list[str]:
    inside = _folder_in_checkout(path, repo_root)
    if inside is not None:
        return [inside]
    if "$" in path:  # "$(dirname "$0")/x/y.sh", "${DIR}/y.sh": relative to the folder
        path = _EXPANSION_END.sub("", path)
    return [os.path.join(d, path.removeprefix("./")) for d in dirs]


def named_scripts(script: str, repo_root: str) -> list[tuple[str, int]]:
    """Scripts under ``benchmarks/multi_node`` that ``script`` runs, with the line naming
    each."""
    base = os.path.abspath(os.path.join(repo_root, MULTI_NODE))
    dirs = [os.path.dirname(script)]
    out: list[tuple[str, int]] = []
    try:
        with open(script, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return out
    for n, line in enumerate(lines, 1):
        cd = _CD.match(line)
        folder = _folder_in_checkout(cd["dir"], repo_root) if cd else None
        if folder and os.path.isdir(folder):
            dirs.insert(0, folder)
        if _QUIET.match(line) or _SOURCE.match(line):
            continue
        for m in _REF.finditer(line):
            path = m["path"]
            if path.startswith("/") and m.start() and line[m.start() - 1] in ")\"'}":
                path = path[1:]  # "$(dirname "$0")/x.sh"
            for cand in _candidates(path, dirs, repo_root):
                real = os.path.abspath(cand)
                if real.startswith(base + os.sep) and os.path.isfile(real) and real != script:
                    out.append((real, n))
                    break
    return out


def container_env(script: str, repo_root: str) -> dict[str, str | None]:
    """``docker run -e`` / pyxis ``--container-env`` names written in ``script``; a value
    the script assigns as ``…/benchmarks/multi_node/<folder>`` (the checkout mounted in the
    container) is that folder of the checkout."""
    out: dict[str, str | None] = {}
    try:
        with open(script, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return out
    mounted = {  # folders of the checkout, as the container mounts it
        m["name"]: os.path.normpath(os.path.join(repo_root, MULTI_NODE, m["tail"]))
        for m in _MOUNTED.finditer(text)
        if os.path.isdir(os.path.join(repo_root, MULTI_NODE, m["tail"]))
    }
    for m in _ENV_FLAG.finditer(text):
        value = m["value"] or ""
        ref = _VAR_REF.fullmatch(value)
        if ref and ref["var"] in mounted:  # -e SGLANG_WS_PATH=${WS_PATH}
            out[m["name"]] = mounted[ref["var"]]
        elif m["name"] in mounted and ref and ref["var"] == m["name"]:
            out[m["name"]] = mounted[m["name"]]
        else:
            literal = value != "" and not re.search(r"[$\\`]", value)
            out[m["name"]] = value if literal else None
    for m in _CONTAINER_ENV.finditer(text):
        for name in m["names"].split(","):
            if name.isidentifier():
                out.setdefault(name, mounted.get(name))
    return out


def chain(wrapper: str, repo_root: str) -> list[Step]:
    """The scripts the wrapper's job runs, breadth first, each once."""
    start = os.path.abspath(wrapper)
    seen = {start}
    todo = [start]
    steps: list[Step] = []
    while todo and len(steps) < MAX_SCRIPTS:
        current = todo.pop(0)
        passed = tuple(sorted(container_env(current, repo_root).items()))
        for path, line in named_scripts(current, repo_root):
            if path not in seen:
                seen.add(path)
                todo.append(path)
                steps.append(Step(path, current, line, passed))
    return steps
