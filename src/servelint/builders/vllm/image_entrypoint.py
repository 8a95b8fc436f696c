"""The ENTRYPOINT and CMD of each official vLLM image flavour, read from a release's build files.

Per flavour the release pipeline (``.buildkite/release-pipeline.yaml``) names the ``--target``
stage the server image is built from (``image_build.release_build``); without a pipeline line
the stage named ``vllm-openai``, else the last stage, is the target. ``FROM x AS y`` is
followed down from the target: the nearest stage that sets ENTRYPOINT (or CMD) gives it,
with its file:line. A build's base image from another repository (``FROM rocm/vllm-dev:base``)
may set an ENTRYPOINT servelint cannot read: the reading then says ``inherited`` and names it.
Nothing is executed. ``tools/gen_image_entrypoints.py`` writes the table the checker reads
(``engines/vllm/image_entrypoints.json``, through ``engines.vllm.image_entrypoints``).
"""

from __future__ import annotations

import json
from typing import Any

from servelint.builders.vllm import dockerfile as df
from servelint.builders.vllm.image_build import PIPELINE, _stage_chain, release_build

# flavour -> (Dockerfile in the sdist, the repository its release image is published as)
FLAVOURS = {
    "cuda": ("docker/Dockerfile", "vllm/vllm-openai"),
    "rocm": ("docker/Dockerfile.rocm", "vllm/vllm-openai-rocm"),
    "cpu": ("docker/Dockerfile.cpu", "vllm/vllm-openai-cpu"),
    "tpu": ("docker/Dockerfile.tpu", "vllm/vllm-tpu"),
}
_LEGACY = {"docker/Dockerfile": "Dockerfile"}  # releases before 0.8 kept it at the root


def exec_form(text: str) -> list[str] | None:
    """``["vllm", "serve"]`` for the JSON (exec) form, ``["/bin/sh", "-c", text]`` for the
    shell form (what Docker runs for it)."""
    text = text.strip()
    if text.startswith("["):
        try:
            words = json.loads(text)
        except ValueError:
            return None
        return [str(w) for w in words] if isinstance(words, list) else None
    return ["/bin/sh", "-c", text] if text else None


def read_flavour(files: dict[str, str], dockerfile: str) -> dict[str, Any] | None:
    """The flavour's entrypoint reading, or None when the release has no such Dockerfile."""
    path = dockerfile if dockerfile in files else _LEGACY.get(dockerfile, "")
    text = files.get(path)
    if text is None:
        return None
    parsed = df.parse(text)
    _args, target, target_line = release_build(files.get(PIPELINE, ""), dockerfile)
    if target is None and parsed.stage("vllm-openai"):
        target = "vllm-openai"
    env = {k: v for k, v in parsed.global_args.items()}
    chain = _stage_chain(parsed, target, env)
    out: dict[str, Any] = {
        "dockerfile": path,
        "target": chain[-1].name if chain else None,
        "target_from": f"{PIPELINE}:{target_line}" if target_line else "default",
        "entrypoint": None,
        "cmd": None,
    }
    entry, cmd = _last_entrypoint_and_cmd(chain)
    for key, ins in (("entrypoint", entry), ("cmd", cmd)):
        if ins is not None:
            out[key] = exec_form(ins.text)
            out[f"{key}_at"] = f"{path}:{ins.line}"
    if out["entrypoint"] is None and chain:
        base = df.expand(chain[0].base, env) or chain[0].base
        out["inherited"] = base  # the base image's own ENTRYPOINT, not in these files
    return out


def _last_entrypoint_and_cmd(
    chain: list[df.Stage],
) -> tuple[df.Instruction | None, df.Instruction | None]:
    """The ENTRYPOINT and CMD in force at the end of the build, as Docker keeps them: an
    ENTRYPOINT resets the CMD set before it (the walk goes from the last instruction back)."""
    entry = cmd = None
    cmd_settled = False
    for stage in reversed(chain):
        for ins in reversed(stage.body):
            if ins.keyword == "ENTRYPOINT" and entry is None:
                entry, cmd_settled = ins, True
            elif ins.keyword == "CMD" and not cmd_settled:
                cmd, cmd_settled = ins, True
        if entry is not None:
            break
    return entry, cmd


def read_release(files: dict[str, str]) -> dict[str, Any]:
    """Every flavour the release's build files hold: flavour -> reading (with repository)."""
    out: dict[str, Any] = {}
    for flavour, (dockerfile, repository) in FLAVOURS.items():
        got = read_flavour(files, dockerfile)
        if got is not None:
            out[flavour] = {"repository": repository, **got}
    return out
