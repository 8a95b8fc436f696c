"""What rules ask of a TensorRT-LLM launch beyond its argv: its option file's problems."""

from __future__ import annotations

from typing import Any

from servelint.engines.trtllm import option_file
from servelint.model import LaunchSpec
from servelint.profiles import Profile


def _backend(profile: Profile, spec: LaunchSpec, parsed: Any) -> str | None:
    """The ``--backend`` the launch runs (its alias resolved); None when symbolic."""
    act = profile.by_dest.get("backend")
    value = act.raw.get("default", "pytorch") if act is not None else "pytorch"
    for opt in parsed.options:
        if opt.action is not None and opt.action.dest == "backend":
            vi = opt.value_index
            if vi is not None and vi < len(spec.argv) and spec.argv[vi].symbolic:
                return None
            value = opt.value
    aliases = act.raw.get("aliases", {}) if act is not None else {}
    return aliases.get(value, value)


def option_file_problems(
    profile: Profile, spec: LaunchSpec, parsed: Any
) -> list[option_file.FileProblem]:
    """Problems of the option file the launch passes (``--config``), judged on ``profile``."""
    if spec.option_file is None or not parsed.ok:
        return []
    backend = _backend(profile, spec, parsed)
    if backend is None:
        return []
    problems, _facts = option_file.check(profile, spec.option_file, backend, spec.anchor)
    return problems
