"""Checks a validator makes after handing ``self`` to code the walker does not read (a
"hook": ``self.try_verify_and_update_config()`` running the per-model hooks,
``current_platform.check_and_update_config(self)``, an inherited method).

Before, such a call ended the walk: nothing after it was recorded. Now the walk goes on and
notes the hook; a check after it is kept only when every field it reads is, by the wheel's
write index (write_index.py), written nowhere in the wheel by name except by the validator
methods the walker read itself (it models those writes, with their guards). Along a read
path ``a.b`` each step is looked up on the class that holds it (``a`` on the walked class,
``b`` on the class of ``a`` from the profile's field types); the value read must be a
scalar (or a config object, compared by identity), so no in-place change can alter it.

What the index cannot exclude are the wheel's writes whose attribute name is computed
(``setattr(obj, key, value)`` with a key from a parameter or a mapping): one of them, run by
a hook on the right object with the right key, could still set the field. So a check
kept after a hook carries ``after_hooks``: the finding is a warning that names the hooks and
the fields, never an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from servelint.builders.vllm import write_index
from servelint.builders.wheel import WheelSource

_SCALARS = frozenset({"str", "int", "float", "bool", "None"})


@dataclass
class AfterHooks:
    """The hooks one class's validators met so far, and what the checks after them read."""

    src: WheelSource
    cls: str
    configs: dict[str, Any]
    sites: list[str] = field(default_factory=list)  # "path:line callee" of each hook met
    walked: set[str] = field(default_factory=set)  # "Cls.method" whose writes the walk models
    _proofs: dict[tuple[str, frozenset[str]], bool] = field(default_factory=dict)

    def met(self, site: str) -> None:
        """A hook at ``site`` (``path:line callee``)."""
        if site not in self.sites:
            self.sites.append(site)

    def unsure(self, reads: set[str]) -> bool:
        """Code in the wheel writes one of ``reads`` by name and a hook ran: a guard over
        them is not over the launch's values. (Fields only a computed-name write may set
        are taken as the launch's, under the assumption the check then states.)"""
        return self.verdict(reads) is None

    def verdict(self, reads: set[str]) -> str | None:
        """For a check reading ``reads`` here: None when a hook may have written one of them
        (drop it), "" when no hook ran, else what the check assumes (a warning)."""
        if not self.sites:
            return ""
        if not all(self.proof(r) for r in sorted(reads)):
            return None
        hooks = ", ".join(self.sites)
        fields = ", ".join(sorted(reads))
        return (
            f"unless a hook run before it ({hooks}) sets {fields}: no code of the release "
            "writes them by name outside these validators, but a hook may reach a setattr "
            "with a computed name, or call one of the validators again"
        )

    def proof(self, path: str) -> bool:
        """No code in the wheel but the validators walked so far writes, by name, what
        ``path`` reads, and its value is a scalar or a config object."""
        key = (path, frozenset(self.walked))  # a write in a method read since is the walk's
        if key not in self._proofs:
            self._proofs[key] = self._proof(path)
        return self._proofs[key]

    def _proof(self, path: str) -> bool:
        steps: list[tuple[str, str]] = []  # (field, the class holding it)
        owner: str | None = self.cls
        last: dict[str, Any] = {}
        for step in path.split("."):
            spec = ((self.configs.get(owner or "") or {}).get("fields") or {}).get(step)
            if owner is None or spec is None:
                return False  # not a field the profile knows: its type is not known
            steps.append((step, owner))
            owner, last = spec.get("config"), spec
        if not last.get("config") and not _scalar(last.get("type") or ""):
            return False  # a container: it may be changed in place through any alias
        index = write_index.index(self.src)
        skip = frozenset(self.walked)
        return all(index.written(step, holder, skip) is None for step, holder in steps)


def _scalar(annotation: str) -> bool:
    parts = {p.strip() for p in annotation.split("|")}
    return bool(parts) and all(p in _SCALARS or p.startswith("Literal[") for p in parts)
