"""The engines servelint knows, in the order launch recognisers and image names are tried.

Adding an engine: a package ``servelint/engines/<name>/`` with ``ENGINE = Engine(...)`` and one
line in ``_ENGINES`` below. Everything else (image resolution, launch recognition, argv checks,
``servelint profile``) asks this module.
"""

from __future__ import annotations

from functools import cache

from servelint.engines import dynamo, recognised, sglang, trtllm, vllm
from servelint.engines.base import Command, Engine, Module

_ENGINES: list[Engine] = [
    vllm.ENGINE,
    sglang.ENGINE,
    trtllm.ENGINE,
    recognised.ATOM,
    recognised.TILERT,
    dynamo.ENGINE,
]


def engines() -> tuple[Engine, ...]:
    return tuple(_ENGINES)


def find(name: str) -> Engine | None:
    return _by_name().get(name)


def register(engine: Engine) -> None:
    """Add (or replace, by name) an engine: for plug-ins and tests."""
    _ENGINES[:] = [e for e in _ENGINES if e.name != engine.name] + [engine]
    _changed()


def unregister(name: str) -> None:
    _ENGINES[:] = [e for e in _ENGINES if e.name != name]
    _changed()


def _changed() -> None:
    for table in (_by_name, repositories, commands, modules, shell_words, _adapters):
        table.cache_clear()
    from servelint import profiles

    profiles.forget()


@cache
def _by_name() -> dict[str, Engine]:
    return {e.name: e for e in _ENGINES}


@cache
def repositories() -> dict[str, Engine]:
    """Image repository -> its engine (the first engine listing it)."""
    out: dict[str, Engine] = {}
    for e in _ENGINES:
        for repo in e.images.repositories:
            out.setdefault(repo, e)
    return out


@cache
def commands() -> tuple[tuple[Engine, Command], ...]:
    """Command launchers, longest word list first within each engine."""
    return tuple(
        (e, c)
        for e in _ENGINES
        for c in sorted(
            (x for x in e.launchers if isinstance(x, Command)), key=lambda c: -len(c.words)
        )
    )


@cache
def modules() -> dict[str, tuple[tuple[Engine, Module], ...]]:
    """``python -m`` module -> the launchers naming it (the first whose ``then`` words
    follow wins)."""
    out: dict[str, tuple[tuple[Engine, Module], ...]] = {}
    for e in _ENGINES:
        for m in e.launchers:
            if isinstance(m, Module):
                out[m.module] = (*out.get(m.module, ()), (e, m))
    return out


@cache
def shell_words() -> tuple[str, ...]:
    return tuple(dict.fromkeys(w for e in _ENGINES for w in e.shell_words))


@cache
def _adapters() -> dict[str, Engine]:
    return {ep: e for e in _ENGINES for ep in e.adapted_entrypoints if e.launch_adapter}


def adapter_for(entrypoint: str) -> Engine | None:
    """The wrapper engine whose launch adapter splits launches by ``entrypoint`` (a Dynamo
    worker), or None: the pipeline asks before judging, never naming an engine."""
    return _adapters().get(entrypoint)


def starts(engine: Engine, launcher: Command | Module) -> str:
    """The engine a launcher starts: a wrapper's module names the engine it wraps."""
    return getattr(launcher, "starts", "") or engine.name
