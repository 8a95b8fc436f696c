"""Import stubs for GPU-only modules SGLang imports at module level but never calls while
building its argument parser (triton, sgl_kernel, flashinfer, ...).

Every attribute of a stub is another stub; stubs are callable, subscriptable and usable as
decorators, so `@triton.jit` and `tl.constexpr` annotations import cleanly. A parser fact that
depended on a stub would show up as a stub object in the dump (never silently).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types


class Stub:
    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, item: str):
        if item.startswith("__"):
            raise AttributeError(item)
        return Stub(f"{self._name}.{item}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator
        if not args and not kwargs:
            # a runtime query (driver.active.get_current_target()): behave like "no GPU"
            raise RuntimeError(f"{self._name}() is an oracle stub")
        return Stub(f"{self._name}()")

    def __getitem__(self, item):
        return Stub(f"{self._name}[]")

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __mro_entries__(self, bases):
        return (object,)

    def __repr__(self):
        return f"<stub {self._name}>"


class StubModule(types.ModuleType):
    def __getattr__(self, item: str):
        if item.startswith("__"):
            raise AttributeError(item)
        return Stub(f"{self.__name__}.{item}")


class StubLoader(importlib.abc.Loader):
    """Loads every module it is asked for as a StubModule package (version 0.0.0)."""

    def create_module(self, spec):
        mod = StubModule(spec.name)
        mod.__path__ = []
        mod.__version__ = "0.0.0"
        return mod

    def exec_module(self, module):
        pass


class _Finder(importlib.abc.MetaPathFinder, StubLoader):
    def __init__(self, tops: set[str]):
        self.tops = tops

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.tops:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None


def install(tops: set[str]) -> None:
    if tops:
        sys.meta_path.insert(0, _Finder(set(tops)))
