"""Checking never imports a profile builder, of any engine: ``engines/_build/``, each engine's
``builder/`` package and the builder modules TensorRT-LLM and Dynamo keep beside their check
code (``trtllm/build_*.py``, ``trtllm/builder.py``, ``trtllm/source.py``, ``dynamo/build*.py``).
A check of every kind of input the test cases hold (recipes, scripts, InferenceX, srt-slurm,
Markdown; vLLM, SGLang, TensorRT-LLM and Dynamo launches) runs in a fresh interpreter, which
then lists the builder modules it loaded."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ROOT / "src" / "servelint" / "engines"
# a builder module by its place: the shared builder, a builder package, a build_* module
_BUILDER = re.compile(
    r"^servelint\.engines\.(_build(\..*)?|\w+\.builder(\..*)?|\w+\.build\w*|trtllm\.source)$"
)


def builder_modules() -> list[str]:
    """Every builder module in the source tree, by the naming above."""
    out = []
    for path in ENGINES.rglob("*.py"):
        parts = path.relative_to(ENGINES.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if _BUILDER.match(name):
            out.append(name)
    return sorted(out)


def test_the_builder_naming_finds_every_engines_builder():
    found = builder_modules()
    for expected in (
        "servelint.engines._build.wheel",
        "servelint.engines.vllm.builder.parser",
        "servelint.engines.sglang.builder",
        "servelint.engines.trtllm.build_cli",
        "servelint.engines.trtllm.builder",
        "servelint.engines.trtllm.source",
        "servelint.engines.dynamo.build",
        "servelint.engines.dynamo.build_options",
    ):
        assert expected in found, expected
    assert "servelint.engines.trtllm.argv" not in found


def test_checking_every_input_kind_imports_no_builder():
    code = (
        "import re, sys\n"
        "from servelint.cli import main\n"
        "main(['check', 'examples', 'tests/cases', '--no-cache', '--format', 'json',\n"
        "      '--jobs', '1', '--works-on'])\n"
        f"pattern = re.compile({_BUILDER.pattern!r})\n"
        "print('LOADED', sorted(m for m in sys.modules if pattern.match(m)), file=sys.stderr)\n"
        "print('JUDGED', sorted(m for m in sys.modules if m.startswith('servelint.engines.')\n"
        "      and m.endswith(('.argv', '.launch'))), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert "LOADED []" in proc.stderr, proc.stderr[-2000:]
    # the check did judge launches of every engine, a Dynamo worker among them (else the
    # test proves nothing): their argv models and the worker adapter were loaded
    judged = next(line for line in proc.stderr.splitlines() if line.startswith("JUDGED"))
    for name in ("vllm.argv", "sglang.argv", "trtllm.argv", "dynamo.launch"):
        assert f"servelint.engines.{name}'" in judged, judged
