"""The rule registry: one module per rule (``CODE``, ``NAME``, ``SEVERITY``, ``FIX_SAFE``,
``check(ctx)``, and a docstring that is the rule's documentation)."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from types import ModuleType

_MODULES = [
    "read_error",
    "flag_unknown",
    "flag_ambiguous",
    "flag_abbreviated",
    "flag_deprecated",
    "value_invalid",
    "value_late",
    "config_invalid",
    "env_unknown",
    "env_value",
    "env_deprecated",
    "package_missing",
    "version_coherence",
    "image_unresolved",
    "backend_hardware",
    "runtime_install",
    "upgrade_notice",
    "entrypoint_shape",
    "guide_drift",
]


@cache
def registry() -> tuple[ModuleType, ...]:
    return tuple(import_module(f"servelint.rules.{name}") for name in _MODULES)


def by_id(rule_id: str) -> ModuleType | None:
    for mod in registry():
        if rule_id in (mod.CODE, mod.NAME):
            return mod
    return None


def known_ids() -> set[str]:
    return {x for mod in registry() for x in (mod.CODE, mod.NAME)}
