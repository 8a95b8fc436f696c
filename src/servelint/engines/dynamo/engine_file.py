"""What a Dynamo TensorRT-LLM worker hands the engine without argv: its option file
(``--extra-engine-args FILE``) and its environment.

Every ai-dynamo release with a ``dynamo.trtllm`` worker (1.0.0–1.4.0 read here) builds its
engine arguments with ``"backend": Backend.PYTORCH``, merges the file over them with
TensorRT-LLM's own ``update_llm_args_with_extra_options`` (``yaml.safe_load``, then
``update_llm_args_with_extra_dict``) and constructs ``LLM(**engine_args)`` for the PyTorch
backend (``dynamo/trtllm/engine.py`` pops ``backend`` first). So the file is judged against
the TensorRT-LLM release's LLM API model as a ``trtllm-serve`` option file is, without the
keys ``serve`` pops; a file naming another backend is not judged (Dynamo decides what it
means). TensorRT-LLM runs inside the worker's process, so the environment variables it reads
are those of the worker: env-unknown (SL121) judges them against the same release. The
worker's own argv is judged against the Dynamo release elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable

from servelint.engines.trtllm import option_file
from servelint.model import Finding, LaunchSpec, Severity
from servelint.profiles import Profile
from servelint.releases import release_range
from servelint.releases.resolve import Resolution
from servelint.rules import config_invalid, env_unknown
from servelint.rules.base import CheckContext, finding

WORKER = "trtllm"
HOW = "read by dynamo.trtllm --extra-engine-args through update_llm_args_with_extra_options"


def findings(
    spec: LaunchSpec,
    worker: str,
    res: Resolution,
    cap_guesses: bool,
    custom_image: Callable[[LaunchSpec, Profile], bool],
) -> list[Finding]:
    """config-invalid findings of the worker's option file and env-unknown findings of its
    environment, on each primary release judged (capped as the engine rules are)."""
    if worker != WORKER:
        return []
    out: list[Finding] = []
    for tgt in (t for t in res.targets if t.role == "primary"):
        ctx = CheckContext(spec=spec, profile=tgt.profile, floating=tgt.floating)
        ctx.extra["custom_image"] = custom_image(spec, tgt.profile)
        # an older profile judging a newer release says nothing of names it lacks
        newer = release_range.judges_newer(tgt.neighbour)
        found = [] if newer else list(env_unknown.check(ctx))
        problems = []
        if spec.option_file is not None:
            problems, _ = option_file.check(
                tgt.profile, spec.option_file, "pytorch", spec.anchor, serve=False
            )
        for p in (p for p in problems if not (newer and p.unknown_name)):
            found.append(
                finding(
                    config_invalid,
                    ctx,
                    p.span or spec.anchor,
                    f"{p.message} ({HOW})",
                    fix="use a key and value the release's LLM API arguments accept",
                    severity=Severity.WARNING if p.severity == "warning" else None,
                    evidence=p.evidence,
                )
            )
        for f in found:
            if tgt.floating and res.capped and cap_guesses:
                if f.severity > Severity.WARNING or tgt.neighbour:
                    f.severity = min(f.severity, Severity.WARNING)
                    f.message += f" (release not pinned: {tgt.how})"
            out.append(f)
    return out
