"""Module-level regexes compiled on first use.

A pattern that only some inputs need (an ignore comment, a deprecated flag's hint, a YAML
1.1 spelling) costs its compile at every start-up when written as ``re.compile`` at module
level: about 3 ms of a small recipe's run. ``LazyPattern(pattern, flags)`` stands in for
``re.compile(pattern, flags)`` with the methods servelint calls on one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class LazyPattern:
    """``re.compile(pattern, flags)``, compiled when first matched."""

    __slots__ = ("_pattern", "_flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled

    def match(self, string: str, *args: int) -> re.Match[str] | None:
        return self.compiled().match(string, *args)

    def fullmatch(self, string: str, *args: int) -> re.Match[str] | None:
        return self.compiled().fullmatch(string, *args)

    def search(self, string: str, *args: int) -> re.Match[str] | None:
        return self.compiled().search(string, *args)

    def finditer(self, string: str, *args: int) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(string, *args)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled().sub(repl, string, count)

    def __repr__(self) -> str:
        return f"LazyPattern({self._pattern!r}, {self._flags!r})"
