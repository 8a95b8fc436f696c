"""The package set of each official vLLM image flavour, read from the release's sdist.

The sdist carries ``docker/Dockerfile*``, ``requirements/**.txt`` and the release pipeline
(``.buildkite/release-pipeline.yaml``) that says with which ``--build-arg`` and ``--target``
the release image is built. Per flavour this follows ``FROM x AS y`` from the target stage
down to its base image, and in each stage's RUN text reads the ``pip install`` commands:
requirement files (with their ``-r`` includes), the vLLM wheel's extras and named packages,
each with file:line. An install behind a test that the ARG values decide false is left out
(listed under ``skipped`` with its condition); one behind an undecidable test is kept, with
the condition. Nothing is executed.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from servelint.builders.vllm import dockerfile as df
from servelint.builders.vllm.image import IMAGE_ENV

FLAVOURS = {
    "cuda": "docker/Dockerfile",
    "rocm": "docker/Dockerfile.rocm",
    "cpu": "docker/Dockerfile.cpu",
}
PIPELINE = ".buildkite/release-pipeline.yaml"
# Base images that hold no Python packages of their own (OS + CUDA runtime).
_BARE_BASES = ("nvidia/cuda", "ubuntu", "debian", "python")
_VALUE_OPTS = {
    "-c",
    "--constraint",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--index-strategy",
    "--prerelease",
    "--python",
    "-p",
    "--config-settings",
    "-C",
    "--torch-backend",
    "--target",
    "--prefix",
}
# BuildKit's automatic platform ARGs for the x86_64 release image.
_PLATFORM_ARGS = {"TARGETPLATFORM": "linux/amd64", "TARGETOS": "linux", "TARGETARCH": "amd64",
                  "BUILDPLATFORM": "linux/amd64", "BUILDOS": "linux", "BUILDARCH": "amd64"}
_OTHER_WHEELS = re.compile(r"ep_kernels|nixl|lmcache|deep|triton|mori|flashinfer|aiter", re.I)


def sdist_files(path: Path) -> dict[str, str]:
    """The build files of an sdist (path relative to the project root -> text)."""
    out: dict[str, str] = {}
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            rel = member.name.split("/", 1)[1] if "/" in member.name else ""
            if member.isfile() and (
                rel.startswith(("docker/", "requirements/"))
                or rel == PIPELINE
                or rel.endswith("requirements.txt")
            ):
                fh = tar.extractfile(member)
                if fh is not None:
                    out[rel] = fh.read().decode("utf-8", "replace")
    return out


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def release_build(
    pipeline: str, dockerfile: str
) -> tuple[dict[str, tuple[str, int]], str | None, int]:
    """--build-arg values and --target of the first x86 server-image ``docker build`` of
    ``dockerfile`` in the release pipeline, with the line of each; ({}, None, 0) if none."""
    lines = pipeline.splitlines()
    for i, line in enumerate(lines):
        if not re.search(r"docker (buildx )?build", line):
            continue
        block = [(i + 1, line)]
        j = i
        while lines[j].rstrip().endswith("\\") and j + 1 < len(lines):
            j += 1
            block.append((j + 1, lines[j]))
        text = " ".join(t for _, t in block)
        if not re.search(rf"-f\s+{re.escape(dockerfile)}(\s|\"|$)", text):
            continue
        label = next((t for t in reversed(lines[:i]) if "label:" in t), "")
        if (
            re.search(r"aarch64|arm64", label, re.I)
            or re.search(r"arch_list=\S*AARCH64|linux/arm64", text)
            or not re.search(r"--target\s+\S*openai", text)
        ):
            continue  # another arch, or a wheel/CI build rather than the server image
        args: dict[str, tuple[str, int]] = {}
        target, target_line = None, 0
        for no, t in block:
            for m in re.finditer(r"--build-arg\s+([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|\S*)", t):
                args[m.group(1)] = (m.group(2).strip('"\\'), no)
            m = re.search(r"--target\s+(\S+)", t)
            if m:
                target, target_line = m.group(1), no
        return args, target, target_line
    return {}, None, 0


@dataclass
class Reading:
    """What one flavour's build installs, as it is read."""

    files: dict[str, str]
    dockerfile: str
    wheel: dict[str, Any] | None = None
    packages: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    unresolved: list[dict[str, Any]] = field(default_factory=list)

    def add(self, req: Requirement, at: str, via: str | None, cond: str | None) -> None:
        if req.marker is not None:
            try:
                if not req.marker.evaluate(dict(IMAGE_ENV)):
                    return
            except Exception:  # an undefined marker name: keep, as the image may match
                pass
        entry: dict[str, Any] = {"specifier": str(req.specifier), "at": at}
        if req.extras:
            entry["extras"] = sorted(req.extras)
        if via:
            entry["via"] = via
        if cond:
            entry["condition"] = cond
        self.packages.setdefault(canonicalize_name(req.name), entry)

    def requirement_file(self, rel: str, via: str, cond: str | None, depth: int = 0) -> None:
        text = self.files.get(rel)
        if text is None or depth > 8:
            self.unresolved.append({"word": f"-r {rel}", "at": via, "why": "file not in sdist"})
            return
        for no, raw in enumerate(text.splitlines(), 1):
            line = raw.split(" #", 1)[0].strip()
            if not line or line.startswith("#"):
                continue
            m = re.match(r"(-r|--requirement)\s*=?\s*(\S+)", line)
            if m:
                inc = posixpath.normpath(posixpath.join(posixpath.dirname(rel), m.group(2)))
                self.requirement_file(inc, f"{rel}:{no}", cond, depth + 1)
                continue
            if line.startswith("-"):
                continue  # --extra-index-url and the like
            try:
                req = Requirement(line)
            except InvalidRequirement:
                self.unresolved.append({"word": line, "at": f"{rel}:{no}"})
                continue
            self.add(req, f"{rel}:{no}", via, cond)


def _stage_chain(
    parsed: df.Dockerfile, target: str | None, env: dict[str, str | None]
) -> list[df.Stage]:
    stage = parsed.stage(target) if target else None
    stage = stage or (parsed.stages[-1] if parsed.stages else None)
    chain: list[df.Stage] = []
    while stage is not None and stage not in chain:
        chain.append(stage)
        base = df.expand(stage.base, env) or stage.base
        stage = parsed.stage(base)
    return list(reversed(chain))


def _stage_env(
    stage: df.Stage, global_env: dict[str, str | None], overrides: dict[str, str]
) -> dict[str, str | None]:
    env: dict[str, str | None] = {}
    for name, default in stage.args.items():
        if name in overrides:
            env[name] = overrides[name]
        elif default is not None:
            env[name] = df.expand(default, global_env)
        else:
            env[name] = global_env.get(name) or ""
    return env


def _mounts(ins: df.Instruction) -> dict[str, str]:
    """Bind mounts of the build context: container target -> repo source."""
    out: dict[str, str] = {}
    for m in re.finditer(r"--mount=(\S+)", ins.text):
        opts = dict(p.partition("=")[::2] for p in m.group(1).split(","))
        if opts.get("type") == "bind" and "from" not in opts:
            src = opts.get("source") or opts.get("src") or "."
            out[opts.get("target", opts.get("dst", ""))] = src
    return out


def _resolve_file(
    path: str, copies: dict[str, str], mounts: dict[str, str], files: dict[str, str]
) -> str | None:
    if path in copies:
        return copies[path]
    if path in mounts:
        return mounts[path]
    for target, src in mounts.items():
        if target and path.startswith(target.rstrip("/") + "/"):
            return posixpath.normpath(posixpath.join(src, path[len(target.rstrip("/")) + 1 :]))
    rel = path.lstrip("./")
    return rel if rel in files else None


def _conditions(conds: list[list[str]], env: dict[str, str | None]) -> tuple[bool, str | None]:
    """(reachable, the undecided part as text or None)."""
    undecided = []
    for cond in conds:
        verdict = df.decide(cond, env)
        if verdict is False:
            return False, " ".join(cond)
        if verdict is None:
            undecided.append(" ".join(cond))
    return True, " and ".join(undecided) or None


def _install_words(words: list[str]) -> list[str] | None:
    for i in range(len(words) - 1):
        if words[i] in ("pip", "pip3") and words[i + 1] == "install":
            return words[i + 2 :]
    return None


def _read_install(
    reading: Reading,
    args: list[str],
    env: dict[str, str | None],
    at: str,
    cond: str | None,
    copies: dict[str, str],
    mounts: dict[str, str],
) -> None:
    i = 0
    while i < len(args):
        raw = re.sub(r"\$\((?:realpath|ls)\s+([^)]*)\)", r"\1", args[i])
        word = df.expand(raw, env)
        i += 1
        if word is None:
            reading.unresolved.append({"word": raw, "at": at})
            continue
        if word in ("-r", "--requirement", "-e", "--editable") or word in _VALUE_OPTS:
            value = df.expand(args[i], env) if i < len(args) else None
            i += 1
            if word in ("-r", "--requirement"):
                rel = _resolve_file(value or "", copies, mounts, reading.files)
                if rel is None:
                    reading.unresolved.append({"word": f"-r {args[i - 1]}", "at": at})
                else:
                    reading.requirement_file(rel, at, cond)
            continue
        if word.startswith("-"):
            continue
        _read_word(reading, word, at, cond)


def _read_word(reading: Reading, word: str, at: str, cond: str | None) -> None:
    m = re.match(r"(.*\.whl)(\[([^\]]*)\])?$", word)
    if m:
        if _OTHER_WHEELS.search(m.group(1)):
            reading.unresolved.append({"word": word, "at": at, "why": "a local wheel, not vLLM"})
        elif reading.wheel is None:
            extras = [e.strip() for e in (m.group(3) or "").split(",") if e.strip()]
            reading.wheel = {"extras": extras, "at": at, **({"condition": cond} if cond else {})}
        return
    if "/" in word or word.startswith(("git+", "http")) or word == ".":
        reading.unresolved.append({"word": word, "at": at, "why": "a path or URL"})
        return
    try:
        req = Requirement(word)
    except InvalidRequirement:
        reading.unresolved.append({"word": word, "at": at})
        return
    if canonicalize_name(req.name) == "vllm" and reading.wheel is not None:
        reading.wheel["extras"] = sorted({*reading.wheel["extras"], *req.extras})
        reading.wheel.setdefault("extras_at", at)
        return
    reading.add(req, at, None, cond)


def _run(
    reading: Reading, ins: df.Instruction, env: dict[str, str | None], copies: dict[str, str]
) -> None:
    mounts = _mounts(ins)
    text = re.sub(r"--mount=\S+", lambda m: " " * len(m.group(0)), ins.text)
    for words, line, conds in df.commands(text, ins.lines):
        at = f"{reading.dockerfile}:{line}"
        reachable, cond = _conditions(conds, env)
        if len(words) == 1 and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            name, _, value = words[0].partition("=")
            if reachable and (cond is None or env.get(name) is None):
                env[name] = df.expand(value, env)
            continue
        args = _install_words(words)
        if args is None:
            continue
        if not reachable:
            reading.skipped.append({"command": " ".join(words)[:160], "at": at, "condition": cond})
            continue
        _read_install(reading, args, env, at, cond, copies, mounts)


def read_flavour(files: dict[str, str], dockerfile: str) -> dict[str, Any] | None:
    text = files.get(dockerfile)
    if text is None:
        return None
    parsed = df.parse(text)
    overrides_at, target, target_line = release_build(files.get(PIPELINE, ""), dockerfile)
    overrides = {**_PLATFORM_ARGS, **{k: v for k, (v, _) in overrides_at.items()}}
    global_env: dict[str, str | None] = {}
    for k, v in parsed.global_args.items():
        global_env[k] = overrides.get(k, v if v is None else df.expand(v, global_env))
    if target is None and parsed.stage("vllm-openai"):
        target = "vllm-openai"
    chain = _stage_chain(parsed, target, {**global_env, **overrides})
    reading = Reading(files, dockerfile)
    for stage in chain:
        env = {**global_env, **_stage_env(stage, global_env, overrides)}
        copies: dict[str, str] = {}
        for ins in stage.body:
            if ins.keyword == "ENV":
                m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)[= ](\S+)", ins.text.strip())
                if m:
                    env[m.group(1)] = df.expand(m.group(2).strip('"'), env)
            elif ins.keyword == "COPY" and "--from" not in ins.text:
                _record_copy(ins.text, copies)
            elif ins.keyword == "RUN":
                _run(reading, ins, env, copies)
    base = df.expand(chain[0].base, global_env) if chain else None
    bare = bool(base) and base.split(":")[0].startswith(_BARE_BASES)  # type: ignore[union-attr]
    out: dict[str, Any] = {
        "dockerfile": dockerfile,
        "target": chain[-1].name if chain else None,
        "target_from": f"{PIPELINE}:{target_line}" if target_line else "default",
        "stages": [f"{s.name}@{dockerfile}:{s.line}" for s in chain],
        "base_image": base,
        "complete": bare,
        "build_args": {
            k: {"value": v, "at": f"{PIPELINE}:{no}"} for k, (v, no) in sorted(overrides_at.items())
        },
        "wheel": reading.wheel,
        "packages": dict(sorted(reading.packages.items())),
        "skipped": reading.skipped,
        "unresolved": reading.unresolved,
    }
    if not bare:
        out["incomplete"] = f"the base image {base} is built elsewhere; its packages are not read"
    return out


def _record_copy(text: str, copies: dict[str, str]) -> None:
    words = [w for w in df.split_words(text) if not w.startswith("--")]
    if len(words) < 2:
        return
    *srcs, dest = words
    for src in srcs:
        copies[dest + posixpath.basename(src) if dest.endswith("/") else dest] = src


def build(sdist: Path) -> dict[str, Any]:
    files = sdist_files(sdist)
    flavours = {}
    for name, path in FLAVOURS.items():
        got = read_flavour(files, path)
        if got is not None:
            flavours[name] = got
    return {"sdist": {"filename": sdist.name, "sha256": sha256(sdist)}, "flavours": flavours}
