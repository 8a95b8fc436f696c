"""Checking never imports a profile builder, of any engine: every builder lives in
``servelint/builders/`` (the shared pieces at its top, one sub-package per engine). A check of
every kind of input the test cases hold (recipes, scripts, InferenceX, srt-slurm, Markdown;
vLLM, SGLang, TensorRT-LLM and Dynamo launches) runs in a fresh interpreter, which then lists
the builder modules it loaded."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "servelint"
_BUILDER = re.compile(r"^servelint\.builders(\..*)?$")
# the names builders had beside the check code before they moved into one package
_OLD_BUILDER = re.compile(r"(^|/)(_build|builder|build\w*)(/|\.py$)")


def test_every_builder_is_in_the_builders_package():
    builders = {p.relative_to(PACKAGE / "builders").as_posix()
                for p in (PACKAGE / "builders").rglob("*.py")}
    for expected in ("wheel.py", "vllm/parser.py", "sglang/__init__.py", "trtllm/build_cli.py",
                     "trtllm/builder.py", "trtllm/source.py", "dynamo/builder.py",
                     "dynamo/build_options.py"):
        assert expected in builders, expected
    elsewhere = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
                 if p.relative_to(PACKAGE).parts[0] != "builders"
                 and _OLD_BUILDER.search(p.relative_to(PACKAGE).as_posix())]
    assert elsewhere == [], elsewhere


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
