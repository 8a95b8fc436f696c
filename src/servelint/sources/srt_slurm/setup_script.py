"""``setup_script``: the script srtctl runs in each worker's container before the worker.

srt-slurm ``src/srtctl/cli/mixins/worker_stage.py`` (``_build_worker_preamble``, commit
c88ef731) runs ``bash /configs/<setup_script>`` (else ``/configs/patches/<setup_script>``),
``/configs`` being the srt-slurm checkout's ``configs/`` folder (``core/runtime.py``
mounts it). The script runs as a child ``bash``: what it installs into the container
(``pip install``) is there when the worker starts, what it exports is not. So its installs
join the worker launch (package gates, a ``pip install vllm==X`` pin); its exports do not.
The script is found in the ``configs/`` folder of the nearest ancestor of the recipe that
has one (a srt-slurm checkout, or InferenceX's ``srt-slurm-recipes/``).
"""

from __future__ import annotations

import os
from dataclasses import replace

from servelint.model import PackageInstall, Span
from servelint.sources.common.deps import note
from servelint.sources.common.problems import ReadProblem
from servelint.sources.shell.script import read_script

MAX_LEVELS = 8


def find(recipe: str, name: str) -> tuple[str | None, list[str]]:
    """-> (the script srtctl would run, the paths looked at)."""
    tried: list[str] = []
    if not name or os.path.isabs(name) or ".." in name.split("/"):
        return None, tried
    folder = os.path.dirname(os.path.abspath(recipe))
    for _ in range(MAX_LEVELS):
        configs = os.path.join(folder, "configs")
        if os.path.isdir(configs):
            for cand in (os.path.join(configs, name), os.path.join(configs, "patches", name)):
                tried.append(cand)
                note(cand)  # a script added later changes the result
                if os.path.isfile(cand):
                    return cand, tried
            return None, tried
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None, tried


def installs(
    recipe: str, name: str, span: Span
) -> tuple[list[PackageInstall], ReadProblem | None, str | None]:
    """-> (the script's installs, as context of the worker; a problem when it is not
    found; the script's path)."""
    script, tried = find(recipe, name)
    if script is None:
        where = ", ".join(os.path.relpath(t, os.path.dirname(recipe)) for t in tried) or (
            "no configs/ folder above the recipe"
        )
        return (
            [],
            ReadProblem(
                recipe,
                span,
                f"setup_script {name!r}: srtctl runs /configs/{name} (the srt-slurm "
                f"checkout's configs/) before each worker; not found here ({where}), so what "
                "it installs is not known",
                "unsupported",
            ),
            None,
        )
    got = read_script(script, env={}, env_complete=False)
    return [replace(i, from_context=True) for i in got.installs], None, script
