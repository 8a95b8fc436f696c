"""Which code anywhere in the wheel may write an attribute name on an object of a class: the
facts a validator check needs to survive a hook it does not read (a model hook handed
``self``, ``current_platform.check_and_update_config(self)``).

The index is over every ``vllm/**.py`` file of the wheel (vendored trees included), never
over what a hook "reaches": a field no code writes cannot have been written by a hook. A
write of name ``N`` is any of

- ``x.N = …`` / ``x.N += …`` / ``del x.N`` / ``for x.N in …`` / ``with … as x.N`` (the
  attribute stored in any target);
- ``setattr(x, "N", …)``, ``delattr``, ``object.__setattr__(x, "N", …)``,
  ``x.__setattr__("N", …)``, ``x.__dict__["N"] = …``;
- and, **dynamic** (may write any name): the same calls with a key that is not a literal,
  ``x.__dict__[k] = …``, ``x.__dict__.update(…)``, ``vars(x).update(…)``, ``vars(x)[k] = …``.

A dynamic key is narrowed where the wheel proves it: a loop variable over a literal table
(``for k in ("a", "b")``, a dict literal's ``.items()``, a module-level literal) writes only
those names; an f-string or ``+`` of literal parts only names matching them.

Receivers: ``self`` of a method of class ``C`` (or ``cls`` of a classmethod) writes objects
of ``C`` only, so it counts for a class ``T`` only when ``C`` and ``T`` can be one object's
classes (``related``: one is a base of the other, or both are bases of a class in the
wheel; by name, so a name shared by two classes only widens it). A local the function binds
exactly once, to a new instance of a class the wheel defines (without ``__new__``) or a
``copy.copy``/``copy.deepcopy``, is a fresh object: writing it changes no object that
existed before (putting it into a config is a write of the container's name, counted on
its own). Any other receiver may be any object.

Constructions with the name as a keyword (``replace(x, N=…)``, ``KVTransferConfig(N=…)``,
``Cls(**kw)``) build new objects; they change an existing object's field only through a
write of the container's name, which is counted: they are not writes here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

from servelint.builders.vllm.facts_common import parse, per_wheel
from servelint.builders.vllm.file_writes import (
    _DYNAMIC_TEXT,
    Write,
    _by_content,
    _lines,
    _lines_with,
    _writes,
)
from servelint.builders.wheel import WheelSource

_DYNAMIC_NEEDLES = ("setattr", "delattr", "__dict__", "vars(")
_COPIES = {"copy.copy", "copy.deepcopy", "deepcopy"}


def index(src: WheelSource) -> WriteIndex:
    return per_wheel(src, "write_index", lambda: WriteIndex(src))


class WriteIndex:
    def __init__(self, src: WheelSource):
        self.src = src
        self._related: dict[str, frozenset[str]] = {}
        self._files_for: dict[str, list[tuple[str, set[int]]]] = {}
        self._new: dict[str, bool] = {}

    @cached_property
    def files(self) -> list[str]:
        return sorted(n for n in self.src.names if n.startswith("vllm/") and n.endswith(".py"))

    @cached_property
    def dynamic(self) -> list[Write]:
        """Every write whose name the wheel does not fix."""
        out: list[Write] = []
        for path in self.files:
            text = self.src.read(path)
            if any(s in text for s in _DYNAMIC_NEEDLES):
                lines = _lines(text, _DYNAMIC_TEXT)
                out += [w for w in _writes(self.src, path, lines) if w.name is None]
        return out

    def static(self, name: str) -> Iterator[Write]:
        """The writes of ``name`` by name, file by file (files whose text holds it on a
        line that may write it; first those where a receiver other than ``self`` may),
        read as far as the caller iterates."""
        for path, lines in self._candidates(name):
            yield from (w for w in _writes(self.src, path, lines) if w.name == name)

    def _candidates(self, name: str) -> list[tuple[str, set[int]]]:
        if name not in self._files_for:
            written = _written_text(name)
            other = re.compile(rf"(?<!\bself)\.{re.escape(name)}\b")
            found: list[tuple[bool, str, set[int]]] = []
            for path in self.files:
                text = self.src.read(path)
                lines = _lines_with(text, name, written) if name in text else set()
                if lines:
                    found.append((not other.search(text), path, lines))
            self._files_for[name] = [(path, lines) for _, path, lines in sorted(found)]
        return self._files_for[name]

    def counts(self, cls: str | None, skip: frozenset[str]) -> Callable[[Write], bool]:
        """Whether a write may set a field of an object of ``cls`` (None: of any class),
        leaving out sites in the functions ``skip`` (qualified names whose writes the caller
        models itself)."""
        related = self.related(cls) if cls is not None else None

        def counts(w: Write) -> bool:
            if w.function in skip or (w.fresh is not None and self._constructs(w.fresh)):
                return False
            return w.owner is None or related is None or w.owner in related

        return counts

    def written(
        self, name: str, cls: str | None, skip: frozenset[str] = frozenset()
    ) -> Write | None:
        """The first write by name (files in order) that may set ``name`` on an object of
        ``cls``, or None."""
        counts = self.counts(cls, skip)
        return next((w for w in self.static(name) if counts(w)), None)

    def writers(
        self, name: str, cls: str | None, skip: frozenset[str] = frozenset()
    ) -> tuple[list[Write], list[Write]]:
        """(by name, computed name) writes that may set ``name`` on an object of ``cls``."""
        counts = self.counts(cls, skip)
        static = [w for w in self.static(name) if counts(w)]
        dynamic = [w for w in self.dynamic if w.may_write(name) and counts(w)]
        return static, dynamic

    def _constructs(self, callee: str) -> bool:
        """A call of ``callee`` builds a new object: ``copy.copy``/``copy.deepcopy``, or a
        class the wheel defines (every class of that name) without ``__new__`` or a
        metaclass."""
        if callee in _COPIES:
            return True
        if callee not in self._new:
            name = callee.rsplit(".", 1)[-1]
            found = [
                c
                for p in self.files
                if f"class {name}" in self.src.read(p)
                for c in _classes(self.src, p)
                if c.name == name
            ]
            self._new[callee] = bool(found) and all(c.plain for c in found)
        return self._new[callee]

    def related(self, cls: str) -> frozenset[str]:
        """Class names an object of ``cls`` may also be an instance of: its bases, its
        subclasses, and the bases of those."""
        if cls not in self._related:
            down = {cls}
            todo = [cls]
            while todo:
                name = todo.pop()
                for sub in _subclasses(self.src, self.files, name):
                    if sub not in down:
                        down.add(sub)
                        todo.append(sub)
            out = set(down)
            todo = list(down)
            while todo:
                for base in _bases(self.src, self.files, todo.pop()):
                    if base not in out:
                        out.add(base)
                        todo.append(base)
            self._related[cls] = frozenset(out)
        return self._related[cls]


def _written_text(name: str) -> re.Pattern[str]:
    """A line that may write attribute ``name`` (a superset of what the AST then decides):
    ``.name`` assigned (also with an annotation), deleted, a loop or ``with`` target, a tuple element on its own or
    with an ``=`` after it, or ``name`` as a string literal (``setattr(x, "name", …)``)."""
    n = re.escape(name)
    return re.compile(
        rf"\.{n}\b\s*(?:[-+*/%&|^@]|//|>>|<<|\*\*)?=(?!=)"
        rf"|\.{n}\b\s*:"
        rf"|['\"]{n}['\"]"
        rf"|\b(?:del|for|as)\b[^\n]*\.{n}\b"
        rf"|\.{n}\s*,[^\n]*=(?!=)"
        rf"|^[ \t(\[]*[\w.]*\.{n}\s*[,)\]]?\s*$",
        re.M,
    )


# ---- the class hierarchy, by name ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Class:
    name: str
    bases: tuple[str, ...]
    plain: bool  # no __new__, no metaclass: calling it builds a new object


def _classes(src: WheelSource, path: str) -> list[_Class]:
    def make() -> list[_Class]:
        tree = parse(src, path)
        if tree is None:
            return []
        return [
            _Class(n.name, tuple(_base_names(n)), _plain(n))
            for n in ast.walk(tree)
            if isinstance(n, ast.ClassDef)
        ]

    return _by_content(src, path, "classes", make)


def _plain(node: ast.ClassDef) -> bool:
    return not node.keywords and not any(
        isinstance(m, ast.FunctionDef) and m.name == "__new__" for m in node.body
    )


# per-file facts depend only on the file's path and text: kept across the wheels of one run


def _base_names(node: ast.ClassDef) -> list[str]:
    return [ast.unparse(b).rsplit(".", 1)[-1].split("[", 1)[0] for b in node.bases]


def _subclasses(src: WheelSource, files: list[str], name: str) -> set[str]:
    # a class statement naming it among its bases (which may span lines)
    word = re.compile(rf"class\s+\w+\s*\((?:[^()]|\([^()]*\))*\b{re.escape(name)}\b")
    return {
        node.name
        for path in files
        if name in (text := src.read(path)) and word.search(text)
        for node in _classes(src, path)
        if name in node.bases
    }


def _bases(src: WheelSource, files: list[str], name: str) -> set[str]:
    needle = re.compile(rf"class {re.escape(name)}\b")
    return {
        base
        for path in files
        if f"class {name}" in (text := src.read(path)) and needle.search(text)
        for node in _classes(src, path)
        if node.name == name
        for base in node.bases
    }
