"""Split a Dynamo worker's argv as its ``parse_args`` does, and say which releases to use.

The worker's outer ``argparse`` parser knows only Dynamo's options: it consumes those
(and, when its ``allow_abbrev`` is on, any unique prefix of one), and ``parse_known_args``
leaves the rest, in order, for the engine parser — vLLM's ``AsyncEngineArgs.add_cli_args``
(engine options only: ``vllm serve``'s API-server options are not in it) or SGLang's
``ServerArgs.add_cli_args`` (every ``launch_server`` option).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from servelint import profiles
from servelint.model import Token

ENGINE_OPTION_SOURCES = {"vllm-engine-args": ("vllm/engine/arg_utils.py",)}
_DYNAMO_IMAGE = re.compile(r"(?:^|/)ai-dynamo/(?:vllm|sglang|tensorrtllm)-runtime:(?P<tag>[\w.]+)$")


@dataclass(slots=True)
class Split:
    """A worker argv split between the Dynamo options and what the engine's parser gets."""

    dynamo: list[tuple[int, dict, str]] = field(default_factory=list)  # (index, action, how)
    engine: list[int] = field(default_factory=list)  # argv indexes the engine parser gets


def takes_values(action: dict) -> str | int:
    """How many values an option consumes: 0, 1, an int, or '*'/'+'/'?'."""
    if action.get("kind") in (
        "boolean_optional",
        "store_true",
        "store_false",
        "store_const",
        "count",
        "version",
        "help",
    ):
        return 0
    nargs = action.get("nargs")
    return 1 if nargs is None else nargs


def split_argv(worker: dict, argv: list[Token]) -> Split:
    """Indexes of the tokens the worker's own parser consumes, and those left for the engine."""
    index: dict[str, dict] = {}
    for act in worker.get("actions", []):
        for opt in act.get("accepted") or act.get("option_strings", []):
            index.setdefault(opt, act)
    abbrev = worker.get("parser", {}).get("allow_abbrev", True)
    out = Split()
    i = 0
    while i < len(argv):
        tok = argv[i]
        text = tok.text
        name, eq, _ = text.partition("=")
        literal_name = not tok.symbolic or (eq and "<" not in name and "$" not in name)
        if not literal_name or not text.startswith("-") or text == "-":
            out.engine.append(i)
            i += 1
            continue
        action, how = index.get(name), "exact"
        if action is None and abbrev and name.startswith("--"):
            hits = {id(a): (o, a) for o, a in index.items() if o.startswith(name)}
            if len(hits) == 1:
                how, action = next(iter(hits.values()))
                how = f"abbreviation of {how}"
        if action is None:
            out.engine.append(i)
            i += 1
            continue
        out.dynamo.append((i, action, how))
        i += 1
        takes = 0 if eq else takes_values(action)
        if takes in ("*", "+"):
            while i < len(argv) and not argv[i].text.startswith("-"):
                out.dynamo.append((i, action, "value"))
                i += 1
        elif takes == "?":
            if i < len(argv) and not argv[i].text.startswith("-"):
                out.dynamo.append((i, action, "value"))
                i += 1
        else:
            for _ in range(int(takes) if isinstance(takes, int) else 0):
                if i < len(argv):
                    out.dynamo.append((i, action, "value"))
                    i += 1
    return out


@dataclass(slots=True)
class Target:
    """One ai-dynamo release a worker launch can meet, and how that is known."""

    version: str  # the profile judged against
    how: str
    certain: bool  # the launch gets exactly this release


def targets(release: str | None, how: str, image: str | None) -> list[Target]:
    """The ai-dynamo releases a launch can meet, with how each is known."""
    have = profiles.available("dynamo")
    if not have:
        return []
    if release is None and image:
        m = _DYNAMO_IMAGE.search(image)
        if m and m.group("tag") in have:
            return [Target(m.group("tag"), f"the image's Dynamo release ({image})", True)]
    if release is None:
        return [Target(have[-1], f"{how}; judged as the newest release {have[-1]}", False)]
    if release in have:
        return [Target(release, f"ai-dynamo {release} ({how})", True)]
    try:
        v = Version(release)
    except InvalidVersion:
        return [
            Target(
                have[-1],
                f"{how} {release!r} names no release; judged as the newest release {have[-1]}",
                False,
            )
        ]
    posts = [
        h
        for h in have
        if Version(h).base_version == v.base_version
        and Version(h).is_postrelease
        and not v.is_prerelease
    ]
    if posts:  # 1.3.0 with only 1.3.0.post1 published: its post-release
        return [
            Target(
                posts[0],
                f"ai-dynamo {release} ({how}) has no wheel; judged as its post-release {posts[0]}",
                False,
            )
        ]
    below = [h for h in have if Version(h) < v and not Version(h).is_prerelease]
    above = [h for h in have if Version(h) >= Version(v.base_version)]
    out = []
    if below:
        out.append(
            Target(
                below[-1],
                f"ai-dynamo {release} ({how}) is a build after release {below[-1]}",
                False,
            )
        )
    if above and v.is_prerelease:
        out.append(
            Target(
                above[0], f"ai-dynamo {release} ({how}) is a build before release {above[0]}", False
            )
        )
    return out or [Target(have[-1], f"{how} {release}: judged as the newest release", False)]
