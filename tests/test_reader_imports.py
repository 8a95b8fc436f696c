"""The reading and assembling stages import without cycles: no import cycle (imports inside
functions counted) runs through ``sources/`` or ``launches/``, and every reader package,
imported first in a fresh interpreter, imports (a package whose ``__init__`` imports its
reader must not be imported back, half made, by a module that reader needs)."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "servelint"
_spec = importlib.util.spec_from_file_location("arch_figures", ROOT / "tools" / "arch_figures.py")
assert _spec is not None and _spec.loader is not None
arch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(arch)

STAGES = ("servelint.sources", "servelint.launches")


def _graph() -> dict[str, set[str]]:
    files = sorted(p for p in SRC.rglob("*.py") if "data" not in p.relative_to(SRC).parts)
    modules = {arch._module_name(SRC, p): p for p in files}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        top, inner = arch._imports(ast.parse(path.read_text()), mod, path.name == "__init__.py")
        graph[mod] |= {name for _, name in top + inner if name in modules and name != mod}
    return graph


def test_no_import_cycle_runs_through_the_readers_or_the_assembler() -> None:
    cycles = [c for c in arch._cycles(_graph()) if any(m.startswith(STAGES) for m in c)]
    assert cycles == []


def test_a_cycle_is_found_when_there_is_one() -> None:
    graph = _graph()
    graph["servelint.sources.shell.values"].add("servelint.sources.shell.script")
    assert any("servelint.sources.shell.script" in c for c in arch._cycles(graph))


PACKAGES = sorted(
    f"servelint.sources.{p.name}" for p in (SRC / "sources").iterdir()
    if (p / "__init__.py").is_file()
) + ["servelint.launches", "servelint.sources.registry", "servelint.sources.dispatch"]
# the modules reader packages load on first use (``sources.base.on_first_use``)
PACKAGES += sorted({
    m.group(1) for p in (SRC / "sources").rglob("__init__.py")
    for m in re.finditer(r'on_first_use\("([\w.]+)"', p.read_text())
})


@pytest.mark.parametrize("module", PACKAGES)
def test_each_reader_package_imports_first(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
