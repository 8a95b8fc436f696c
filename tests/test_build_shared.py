"""The shared builder pieces (engines/_build): one name resolver and one static evaluator,
read from a wheel without importing it."""

from __future__ import annotations

import ast
import textwrap
import zipfile
from pathlib import Path

from servelint.builders.astutil import ModuleIndex, absolute_module
from servelint.builders.dynamo.builder import build_profile
from servelint.builders.expressions import Expressions, Opaque, PartialList
from servelint.builders.static_eval import UNKNOWN, Evaluator
from servelint.builders.wheel import WheelSource


def _wheel(tmp_path: Path, files: dict[str, str], name: str = "pkg-1.0-py3-none-any.whl") -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as zf:
        for file, text in files.items():
            zf.writestr(file, textwrap.dedent(text))
    return path


def test_absolute_module_for_packages_and_modules() -> None:
    # inside pkg/sub/__init__.py (the package pkg.sub) "." is pkg.sub itself
    assert absolute_module("pkg.sub", "x", 1, is_pkg=True) == "pkg.sub.x"
    assert absolute_module("pkg.sub", "x", 2, is_pkg=True) == "pkg.x"
    # inside pkg/sub/mod.py "." is the package holding it
    assert absolute_module("pkg.sub.mod", "x", 1, is_pkg=False) == "pkg.sub.x"
    assert absolute_module("pkg.sub.mod", None, 2, is_pkg=False) == "pkg"


def test_relative_import_in_a_package_init_resolves_inside_the_package(tmp_path: Path) -> None:
    """``from .consts import X`` in ``pkg/sub/__init__.py`` means ``pkg.sub.consts`` (the
    Dynamo builder's own resolver used to read ``pkg.consts``)."""
    wheel = _wheel(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/consts.py": 'MODES = ["wrong"]\n',
            "pkg/sub/__init__.py": "from .consts import MODES\n",
            "pkg/sub/consts.py": 'MODES = ["agg", "disagg"]\n',
        },
    )
    index = ModuleIndex(WheelSource(wheel))
    found = index.resolve("pkg.sub", "MODES")
    assert found is not None and found.module == "pkg.sub.consts"
    assert Evaluator(index).lookup("pkg.sub", "MODES") == ["agg", "disagg"]


def test_evaluator_values_the_builders_meet(tmp_path: Path) -> None:
    wheel = _wheel(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/modes.py": """\
                from enum import Enum

                class Mode(Enum):
                    PREFILL = "prefill"
                    DECODE = "decode"

                class Auto(Enum):
                    A = object()

                SIZE = 2**20
                BASE = ("a", "b")
                ALL = [*BASE, *[m.value for m in Mode]]
                NAMES = [m.name for m in Mode]
                OPAQUE = [m.value for m in Auto]

                def default_scale():
                    return 1.5
                """,
        },
    )
    ev = Evaluator(WheelSource(wheel))
    assert ev.lookup("pkg.modes", "SIZE") == 1048576
    assert ev.lookup("pkg.modes", "ALL") == ["a", "b", "prefill", "decode"]
    assert ev.lookup("pkg.modes", "NAMES") == ["PREFILL", "DECODE"]
    assert ev.lookup("pkg.modes", "OPAQUE") is UNKNOWN  # a member value is not constant
    fn = ev.module("pkg.modes").functions["default_scale"]  # type: ignore[union-attr]
    assert ev.function_result("pkg.modes", fn) == 1.5


GROUP = """\
from dynamo.common.utils import add_argument

from .consts import BENCHMARK_MODES


def _default_scale():
    return 1.0


class VllmGroup:
    def add_arguments(self, parser):
        g = parser.add_argument_group("x")
        add_argument(g, flag_name="--benchmark-mode", env_var="DYN_B", default=None,
                     help="", choices=BENCHMARK_MODES)
        add_argument(g, flag_name="--scale", env_var="DYN_S", default=_default_scale(),
                     help="")
"""
ARGS = """\
import argparse

from .backend_args import VllmGroup


def parse_args(argv=None):
    spec = VllmGroup()
    parser = argparse.ArgumentParser(description="w", allow_abbrev=False)
    spec.add_arguments(parser)
    return parser.parse_args(argv)
"""


def test_dynamo_builder_reads_through_the_shared_pieces(tmp_path: Path) -> None:
    """A tuple of choices imported relatively from the worker package's ``__init__``, and a
    default computed by a helper: what ai-dynamo 1.4.0's ``--benchmark-mode`` and 1.3.1's
    ``--router-prefill-load-scale`` look like."""
    wheel = _wheel(
        tmp_path,
        {
            "dynamo/__init__.py": "",
            "dynamo/consts.py": 'BENCHMARK_MODES = ("wrong",)\n',
            "dynamo/vllm/__init__.py": "from .consts import BENCHMARK_MODES\n",
            "dynamo/vllm/consts.py": 'BENCHMARK_MODES: tuple = ("prefill", "decode", "agg")\n',
            "dynamo/vllm/__main__.py": "from dynamo.vllm.main import main\n",
            "dynamo/vllm/main.py": "from .args import parse_args\n\n\ndef main():\n    parse_args()\n",
            "dynamo/vllm/args.py": ARGS,
            "dynamo/vllm/backend_args.py": GROUP.replace("from .consts", "from . "),
        },
        name="ai_dynamo-9.9.9-py3-none-any.whl",
    )
    actions = {
        a["option_strings"][0]: a
        for a in build_profile(wheel, "9.9.9")["workers"]["vllm"]["actions"]
    }
    assert actions["--benchmark-mode"]["choices"] == ["prefill", "decode", "agg"]
    assert actions["--scale"]["default"] == 1.0


class _Partial(Expressions):
    STRICT = False


def test_one_evaluator_two_modes() -> None:
    """Strict (choice lists: known entirely or UNKNOWN) and partial (the vLLM interpreter's
    kwargs tables keep what they cannot know in place)."""
    strict, partial = Expressions(), _Partial()
    node = ast.parse("[1, x]", mode="eval").body
    assert strict.eval(node, "m") is UNKNOWN
    got = partial.eval(node, "m")
    assert got[0] == 1 and isinstance(got[1], Opaque) and not got[1]
    grown = partial.eval(ast.parse("[1] + x", mode="eval").body, "m")
    assert isinstance(grown, PartialList) and grown == [1]
    assert strict.eval(ast.parse("[1] + x", mode="eval").body, "m") is UNKNOWN
    env = {"n": 3}
    assert (
        strict.eval(ast.parse('f"v{n:02d}" if n == 3 else None', mode="eval").body, "m", env)
        == "v03"
    )


def test_dynamo_entrypoints_come_from_the_wheel(tmp_path: Path) -> None:
    """Every ``python -m dynamo.X`` package (one with a ``__main__``) is read; its parse_args
    is in ``args.py`` or in the module ``__main__`` takes ``main`` from (the frontend)."""
    frontend = (
        "import argparse\n\n\ndef parse_args():\n"
        "    parser = argparse.ArgumentParser(allow_abbrev=False)\n"
        '    parser.add_argument("--http-port", type=int, default=8000)\n'
        "    return parser.parse_args()\n\n\ndef main():\n    parse_args()\n"
    )
    wheel = _wheel(
        tmp_path,
        {
            "dynamo/frontend/__main__.py": "from dynamo.frontend.main import main\n",
            "dynamo/frontend/main.py": frontend,
            "dynamo/common/args.py": frontend,  # no __main__: not an entrypoint
        },
        name="ai_dynamo-9.9.9-py3-none-any.whl",
    )
    workers = build_profile(wheel, "9.9.9")["workers"]
    assert set(workers) == {"frontend"}
    assert workers["frontend"]["parse_args"] == "dynamo/frontend/main.py:4"
    assert [a["option_strings"] for a in workers["frontend"]["actions"]] == [["--http-port"]]
