"""The engines servelint knows, in the order launch recognisers and image names are tried.

Adding an engine: a package ``servelint/engines/<name>/`` with ``ENGINE = Engine(...)`` and one
line in ``_ENGINES`` below. Everything else (image resolution, launch recognition, argv checks,
``servelint profile``) asks this module.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    return _index.by_name.get(name)


def register(engine: Engine) -> None:
    """Add (or replace, by name) an engine: for plug-ins and tests. Register before its
    profiles are read: what ``servelint.profiles`` has read stays until ``profiles.forget()``
    (the registry is below the profiles and knows nothing of them)."""
    _ENGINES[:] = [e for e in _ENGINES if e.name != engine.name] + [engine]
    _changed()


def unregister(name: str) -> None:
    _ENGINES[:] = [e for e in _ENGINES if e.name != name]
    _changed()


@dataclass(slots=True)
class _Index:
    """The lookups the readers and the pipeline make, built whenever the engine list changes
    (at import and on ``register`` / ``unregister``), never on a lookup."""

    by_name: dict[str, Engine]
    repositories: dict[str, Engine]  # image repository -> the first engine listing it
    commands: tuple[tuple[Engine, Command], ...]  # longest word list first within an engine
    modules: dict[str, tuple[tuple[Engine, Module], ...]]
    shell_words: tuple[str, ...]
    adapters: dict[str, Engine]


def _build_index() -> _Index:
    repos: dict[str, Engine] = {}
    mods: dict[str, tuple[tuple[Engine, Module], ...]] = {}
    for e in _ENGINES:
        for repo in e.images.repositories:
            repos.setdefault(repo, e)
        for m in e.launchers:
            if isinstance(m, Module):
                mods[m.module] = (*mods.get(m.module, ()), (e, m))
    return _Index(
        by_name={e.name: e for e in _ENGINES},
        repositories=repos,
        commands=tuple(
            (e, c)
            for e in _ENGINES
            for c in sorted(
                (x for x in e.launchers if isinstance(x, Command)), key=lambda c: -len(c.words)
            )
        ),
        modules=mods,
        shell_words=tuple(dict.fromkeys(w for e in _ENGINES for w in e.shell_words)),
        adapters={ep: e for e in _ENGINES for ep in e.adapted_entrypoints if e.launch_adapter},
    )


_index = _build_index()


def _changed() -> None:
    global _index
    _index = _build_index()


def repositories() -> dict[str, Engine]:
    """Image repository -> its engine (the first engine listing it)."""
    return _index.repositories


def commands() -> tuple[tuple[Engine, Command], ...]:
    """Command launchers, longest word list first within each engine."""
    return _index.commands


def modules() -> dict[str, tuple[tuple[Engine, Module], ...]]:
    """``python -m`` module -> the launchers naming it (the first whose ``then`` words
    follow wins)."""
    return _index.modules


def shell_words() -> tuple[str, ...]:
    return _index.shell_words


def adapter_for(entrypoint: str) -> Engine | None:
    """The wrapper engine whose launch adapter splits launches by ``entrypoint`` (a Dynamo
    worker), or None: the pipeline asks before judging, never naming an engine."""
    return _index.adapters.get(entrypoint)


def starts(engine: Engine, launcher: Command | Module) -> str:
    """The engine a launcher starts: a wrapper's module names the engine it wraps."""
    return getattr(launcher, "starts", "") or engine.name
