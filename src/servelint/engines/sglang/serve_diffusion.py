"""``sglang serve`` of a model the argv does not name statically: which of its flags the
multimodal-generation (diffusion) server may take, from the profile's
``serve_routing.diffusion_accepts`` (read from the wheel by
``builder/serve_routes.diffusion_accepts``).

A flag the LLM server's parser rejects is still fine for a diffusion model when the
diffusion side may take it; one that neither side takes fails whatever the model is (when
the release's diffusion side rejects what is left: ``rejects_unknown``).
"""

from __future__ import annotations

from typing import Any


def may_take(routing: dict[str, Any], flag: str) -> bool:
    """True unless the release's diffusion server certainly rejects ``flag``."""
    accepts = routing.get("diffusion_accepts") or {}
    if not accepts.get("rejects_unknown"):
        return True  # nothing in the release rejects what its parser passes on
    return declares(routing, flag)


def declares(routing: dict[str, Any], flag: str) -> bool:
    """The release's diffusion server declares ``flag`` (an option, or one built per
    component or pipeline), as opposed to passing on what it does not know."""
    accepts = routing.get("diffusion_accepts") or {}
    name = flag.split("=", 1)[0]
    options = accepts.get("options") or []
    if name in options:
        return True
    # argparse takes a unique prefix of a long option (allow_abbrev), a dotted flag may be
    # built per component or pipeline, a dynamic per-component flag by prefix or suffix
    if name.startswith("--") and len(name) > 2 and any(o.startswith(name) for o in options):
        return True
    if any(name.endswith(t) for t in accepts.get("tails") or []):
        return True
    if any(name.startswith(p) for p in accepts.get("prefixes") or [] if len(p) > 2):
        return True
    return name.startswith("--") and any(
        name.endswith(s) and len(name) > len(s) + 2 for s in accepts.get("suffixes") or []
    )


def never_taken(routing: dict[str, Any], unrecognized: list[str]) -> list[int]:
    """Positions in ``unrecognized`` of flags neither parser takes (values excluded)."""
    return [
        k
        for k, tok in enumerate(unrecognized)
        if tok.startswith("-") and not may_take(routing, tok)
    ]

