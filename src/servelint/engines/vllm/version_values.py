"""Texts a config field refuses because its validator parses them as a version with
``packaging.version`` (the profile's ``version_fields``, builder/version_fields.py). The
same library decides here, so what it accepts is exactly what the engine accepts."""

from __future__ import annotations

from typing import Any

from packaging.version import InvalidVersion, Version

from servelint.profiles import Profile


def version_problem(profile: Profile, cls: str, field: str, value: Any) -> str | None:
    """The engine's message when ``value`` is a text the field's version parse refuses."""
    entry = ((profile.data.get("version_fields") or {}).get(cls) or {}).get(field)
    if entry is None or not isinstance(value, str) or value == "" and entry.get("skips_empty"):
        return None
    try:
        Version(value)
    except InvalidVersion as exc:
        return f"{exc} ({entry['source']})"
    return None
