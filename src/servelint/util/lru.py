"""A bounded memo: the least recently used entry is dropped first. Every process-global memo
of the check path is one (argv verdicts, resolutions, judged ranges), so a long run over many
distinct launches keeps a bounded amount; dropping an entry only costs the time to compute it
again, since each holds a function of its key."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any


class Lru(OrderedDict):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def get_or(self, key: Any, compute: Callable[[], Any]) -> Any:
        if key in self:
            self.move_to_end(key)
            return self[key]
        value = self[key] = compute()
        if len(self) > self.size:
            self.popitem(last=False)
        return value

    def get_for(self, obj: Any, compute: Callable[[], Any], key: Any = None) -> Any:
        """``compute()`` memoised on the identity of ``obj`` (and ``key``); the entry holds
        ``obj``, so its id is not reused while the entry is kept."""
        slot = (id(obj), key)
        hit = self.get(slot)
        if hit is not None and hit[0] is obj:
            self.move_to_end(slot)
            return hit[1]
        value = compute()
        self[slot] = (obj, value)
        if len(self) > self.size:
            self.popitem(last=False)
        return value
