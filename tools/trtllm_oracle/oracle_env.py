"""Import a TensorRT-LLM source tree on a CPU machine: modules the venv lacks become stubs.

The tree is put first on ``sys.path``; a last-resort finder turns every module that neither
the venv nor the tree provides (tensorrt, the compiled ``tensorrt_llm.bindings``, cuda
bindings, flashinfer, ...) into a stub module from ``tools/sglang_oracle/stub_modules.py``.
The stubbed names are recorded (``STUBBED``): a pydantic field typed with a stubbed class
accepts anything, and the harness reports which.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sglang_oracle"))
from stub_modules import Stub, StubLoader, StubModule  # noqa: E402

STUBBED: list[str] = []


def _importer_file() -> str:
    """The file of the first frame outside the import machinery (who imports)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
        frame = frame.f_back
    return frame.f_code.co_filename if frame is not None else ""


class _LastResort(importlib.abc.MetaPathFinder, StubLoader):
    """Stubs a module only when TensorRT-LLM's own code imports it (a library probing for an
    optional module keeps its ImportError)."""

    def __init__(self, root: Path):
        self.root = str(root)

    def find_spec(self, fullname, path=None, target=None):
        top = sys.modules.get(fullname.split(".")[0])
        if not isinstance(top, StubModule) and not _importer_file().startswith(self.root):
            return None
        STUBBED.append(fullname)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)


def _arith(self, *_):
    return Stub(f"{self._name}(op)")


for _op in (
    "__or__",
    "__ror__",
    "__and__",
    "__add__",
    "__radd__",
    "__sub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__lt__",
    "__gt__",
    "__le__",
    "__ge__",
    "__int__",
):
    setattr(Stub, _op, _arith)
Stub.__int__ = lambda self: 0  # type: ignore[method-assign]
Stub.__index__ = lambda self: 0  # type: ignore[attr-defined]
Stub.__len__ = lambda self: 0  # type: ignore[attr-defined]
Stub.__hash__ = object.__hash__  # type: ignore[method-assign]
# pybind mirrors (PybindMirror.mirror_pybind_*) compare against a stubbed C++ class: no fields
Stub.__members__ = {}  # type: ignore[attr-defined]


def setup(tree: str) -> None:
    """Import from ``tree`` (which holds tensorrt_llm/). The top package's ``__init__`` (it
    loads the compiled bindings, vendored triton kernels and every model) does not run: its
    modules import what they need themselves."""
    root = Path(tree).resolve()
    sys.path.insert(0, str(root))
    sys.meta_path.append(_LastResort(root))
    shell = types.ModuleType("tensorrt_llm")
    shell.__path__ = [str(root / "tensorrt_llm")]
    shell.__version__ = _version(root)
    sys.modules["tensorrt_llm"] = shell


def _version(root: Path) -> str:
    text = (root / "tensorrt_llm" / "version.py").read_text()
    return text.split("__version__ =", 1)[1].split("\n", 1)[0].strip().strip("\"'")


def _call(self, *args, **kwargs):
    """A stubbed call is a stub value (a default computed by a C++ binding, say); a stub
    applied to one callable is a decorator and returns it."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return Stub(f"{self._name}()")


Stub.__call__ = _call  # type: ignore[method-assign]

STUB_TYPES: set[str] = set()  # stubs used as pydantic field types: those fields accept anything


def _any_schema(self, source, handler):
    from pydantic_core import core_schema

    STUB_TYPES.add(self._name)
    return core_schema.any_schema()


Stub.__get_pydantic_core_schema__ = _any_schema  # type: ignore[attr-defined]
