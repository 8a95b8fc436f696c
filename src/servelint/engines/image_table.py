"""Images whose tag names no engine release: what they hold, from their projects' own files.

``lookup(repository, tag)`` answers from ``data/image_releases.json``, which
``tools/gen_image_releases.py`` writes from the projects' release notes and build files
(each entry with repo@commit file:line):

* NGC Dynamo runtimes (``nvcr.io/nvidia/ai-dynamo/{vllm,sglang,tensorrtllm}-runtime``) are
  tagged with the Dynamo release; ai-dynamo/dynamo's "Backend Dependencies" table gives the
  engine release each holds. A Dynamo release the table lacks holds a release between those
  of its listed neighbours (a range; open above when it is newer than every row).
* llm-d images (``ghcr.io/llm-d/llm-d*``) build vLLM from a commit, often of a fork: the
  tags read say which, none names a release; every tag is the range of every release.
* ROCm vLLM images: ``rocm/vllm`` tags spell the vLLM release their ROCm/vllm fork build
  starts from (``rocm6.3.1_vllm_0.8.5_20250521``, ``…_vllm_0.16.0``), but the build may be
  ahead of it (``rocm7.0.0_vllm_0.10.2_20251006`` reports 0.11.0rc2.dev160 inside, a public
  write-up says): at or after that release, up to the newest release dated on or before the
  tag's build date when it has one (``release_facts``), never an error; ``rocm/vllm-dev``
  builds name none (the whole range).
* SGLang ROCm images with a build date (``lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x-20260706``,
  ``rocm/sgl-dev:…-20260101``): SGLang's AMD nightly job tags each day's build of main
  ``v${version}-${rocm_tag}-${DATE}`` with the last release's version.py
  (sgl-project/sglang@5a7255c .github/workflows/release-docker-amd-nightly.yml:41,55,57;
  release tags carry no date, release-docker-amd.yml@5618ebb): at or after that release and
  before the next, judged at it and never as an error.

What cannot be known is a range (``lo``/``hi``, None = open), never a guess.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from packaging.version import InvalidVersion, Version

from servelint.releases import release_facts

_VARIANT = re.compile(r"^(cuda\d+(\.\d+)*|cu\d+|efa|amd64|arm64|x86_64|aarch64)$")
_ROCM_VLLM = re.compile(r"(?:^|_)vllm_?(?P<version>\d+\.\d+\.\d+(?:\.\d+)?)(?:_|$)")
ROCM_FORK = "rocm/vllm"
ROCM_DEV = "rocm/vllm-dev"
SGLANG_NIGHTLY_REPOSITORIES = ("lmsysorg/sglang-rocm", "rocm/sgl-dev")
_SGLANG_DATED = re.compile(
    r"^v?(?P<version>\d+\.\d+\.\d+(?:\.\d+)?(?:rc\d+)?(?:\.post\d+)?)(?:-[A-Za-z0-9._]+)*"
    r"-(?P<date>20\d{6})$"
)
_SGLANG_NIGHTLY_JOB = (
    "sgl-project/sglang@5a7255c6fb57 .github/workflows/release-docker-amd-nightly.yml:41,55,57"
)


@dataclass(slots=True, eq=False)
class TableRelease:
    """What the table says an image holds: ``release`` exactly, else the range ``lo``–``hi``
    (None: open); ``basis`` says from where, ``fork`` that the build is a fork's."""

    engine: str
    release: str | None
    basis: str
    lo: str | None = None
    hi: str | None = None
    fork: bool = False


def _read_families() -> dict[str, dict[str, Any]]:
    """repository -> its family of the generated table (read at import: 0.1 ms)."""
    path = resources.files("servelint") / "data" / "image_releases.json"
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}
    return {repo: fam for fam in table.get("families", []) for repo in fam["repositories"]}


_FAMILIES = _read_families()


def repositories() -> tuple[str, ...]:
    """The repositories whose images the table says hold an engine (llm-d, NGC Dynamo)."""
    return tuple(_FAMILIES)


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


_DEV_BUILD = re.compile(r"^v?\d+\.\d+(\.\d+)*-.*[A-Za-z]")


def _tag_keys(tag: str) -> list[str]:
    """The tag, then the tag without each trailing build-variant word (``1.2.1-cuda13``)."""
    keys = [tag.lstrip("v")]
    words = keys[0].split("-")
    while len(words) > 1 and _VARIANT.match(words[-1].lower()):
        words.pop()
        keys.append("-".join(words))
    return keys


def lookup(repository: str, tag: str) -> TableRelease | None:
    """What the image holds, or None when the repository is not in the table."""
    if repository == ROCM_FORK:
        return _rocm_fork(tag)
    if repository in SGLANG_NIGHTLY_REPOSITORIES:
        return _sglang_dated(tag)
    if repository == ROCM_DEV:
        return TableRelease("vllm", None, f"{ROCM_DEV} builds of the ROCm/vllm fork name no "
                            "vLLM release", fork=True)
    family = _FAMILIES.get(repository)
    if family is None:
        return None
    engine, tags = family["engine"], family["tags"]
    for key in _tag_keys(tag):
        entry = tags.get(key)
        if entry is not None:
            return _entry(family, key, entry)
    return _between(family, engine, tag)


def _entry(family: dict[str, Any], key: str, entry: dict[str, Any]) -> TableRelease:
    engine = family["engine"]
    if entry.get("release"):
        return TableRelease(
            engine, entry["release"],
            f"{family['tag_is']} {key} holds {engine} {entry['release']} ({entry['at']})",
        )
    return TableRelease(engine, None, f"{family['tag_is']} {key}: {entry.get('note', '')} "
                                      f"({entry['at']})", fork=bool(family.get("forks")))


def _between(family: dict[str, Any], engine: str, tag: str) -> TableRelease:
    """A tag the table lacks: between the releases of its listed neighbours, if it is a
    version; the whole range otherwise."""
    at = next((v for v in map(_version, _tag_keys(tag)[::-1]) if v is not None), None)
    rows = [
        (v, key, entry) for key, entry in family["tags"].items()
        if entry.get("release") and (v := _version(key)) is not None
    ]
    if at is None or not rows:
        # a version with other words (``1.3.0-deepseek-v4-dev.1``): a development build of
        # unreleased commits, whose backend may be newer than any release: never an error
        dev = at is None and _DEV_BUILD.match(tag) is not None
        return TableRelease(engine, None, family.get("unknown_tags") or (
            f"tag {tag!r} is not in the table of {family['tag_is']}s read"
            + (" (a development build)" if dev else "")),
            fork=bool(family.get("forks")) or dev)
    tag = _tag_keys(tag)[-1]  # without its build-variant words
    below = max(((v, k, e) for v, k, e in rows if v < at), default=None, key=lambda r: r[0])
    above = min(((v, k, e) for v, k, e in rows if v > at), default=None, key=lambda r: r[0])
    sides = []
    if below:
        sides.append(f"{below[1]} holds {engine} {below[2]['release']} ({below[2]['at']})")
    if above:
        sides.append(f"{above[1]} holds {engine} {above[2]['release']} ({above[2]['at']})")
    where = "; ".join(sides)
    return TableRelease(
        engine, None,
        f"{family['tag_is']} {tag} is not in the release notes read ({where}): it holds a "
        f"release between those (a Dynamo release never moves a backend back)",
        lo=below[2]["release"] if below else None,
        hi=above[2]["release"] if above else None,
    )


def _rocm_fork(tag: str) -> TableRelease:
    m = _ROCM_VLLM.search(tag)
    if m is None:
        return TableRelease("vllm", None, f"{ROCM_FORK} tag {tag!r} names no vLLM release",
                            fork=True)
    version = m.group("version")
    built = release_facts.tag_date(tag)
    place = release_facts.placed("vllm", built) if built else None
    hi = version
    if place is not None and (_version(place.at) or Version("0")) > (_version(version) or
                                                                     Version("0")):
        hi = place.at
    upto = f", up to {hi}, the newest release dated on or before its build ({built})" \
        if hi != version else ""
    return TableRelease(
        "vllm", None,
        f"{ROCM_FORK} tag {tag} is a ROCm/vllm fork build from vLLM {version} on, which may "
        f"be ahead of it{upto}",
        lo=version, hi=hi, fork=True,
    )


def _sglang_dated(tag: str) -> TableRelease | None:
    """A dated SGLang ROCm tag: a nightly of main after the release it spells (None: the
    tag grammar decides, as for an undated release tag)."""
    m = _SGLANG_DATED.match(tag)
    if m is None:
        return None
    version = m.group("version")
    return TableRelease(
        "sglang", None,
        f"tag {tag} is a build of main dated {m.group('date')} that still carries sglang "
        f"{version}'s version (the AMD nightly job, {_SGLANG_NIGHTLY_JOB}): at or after "
        f"{version}, before the next release",
        lo=version, hi=version, fork=True,
    )
