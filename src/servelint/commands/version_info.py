"""``servelint --version``: the tool's version and the profile data it judges with."""

from __future__ import annotations

import gzip
import json

from servelint import __version__, profiles


def profile_data_lines() -> list[str]:
    """One line per engine: its release range, count, and the builder and format versions
    its profiles were built with (read from every committed profile)."""
    lines = []
    for engine in profiles.engines():
        versions = profiles.available(engine)
        builders: set[str] = set()
        formats: set[str] = set()
        for version in versions:
            with gzip.open(
                profiles.folder(engine) / f"{version}.json.gz", "rt", encoding="utf-8"
            ) as handle:
                data = json.load(handle)
            builders.add(str(data.get("builder_version", "?")))
            formats.add(str(data.get("format", "?")))
        lines.append(
            f"  {engine} {versions[0]} … {versions[-1]} ({len(versions)} releases; "
            f"builder {', '.join(sorted(builders))}, "
            f"profile format {', '.join(sorted(formats))})"
        )
    return lines


def version_text() -> str:
    return "\n".join([f"servelint {__version__}", "profiles:", *profile_data_lines()]) + "\n"
