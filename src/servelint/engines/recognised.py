"""Engines servelint recognises (images, launch commands) but has no profiles for yet: their
launches are found and reported as "cannot check". One becomes checked by growing into a
package of its own (argv model, builder) that replaces its entry in the registry."""

from __future__ import annotations

import re

from servelint.engines.base import Engine, Images, Module

_ATOM_RELEASE = re.compile(r"_atom(?P<version>\d+\.\d+\.\d+(?:\.\d+)?(?:\.post\d*)?)$")


def atom_release(tag: str) -> tuple[str | None, bool, str]:
    """ATOM images name the release at the end of the tag (``..._atom0.1.2``)."""
    m = _ATOM_RELEASE.search(tag)
    if m:
        return m.group("version"), False, ""
    return None, True, f"tag {tag!r} names no atom release"


ATOM = Engine(
    name="atom",
    images=Images(repositories=("rocm/atom", "rocm/atom-dev"), release_of=atom_release),
    launchers=(Module("atom.entrypoints.openai_server"),),
    shell_words=("openai_server",),
)

TILERT = Engine(name="tilert", images=Images(repositories=("tile-ai/tilert",)))
