"""Container image reference -> serving engine and the engine release its tag names.

Only tags that spell a release (``v0.21.0``, ``v0.5.12.post1-cu130``,
``1.3.0rc14``) yield ``release``; nightly, commit, custom and dated builds give
``release=None`` ("cannot check"): the exact engine inside cannot be known from the
reference alone. Which repositories belong to which engine, and how an engine's tags name
releases, each engine says (``engines/<name>/__init__.py``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from servelint.engines import image_table
from servelint.engines import registry as engines
from servelint.engines.base import Command, ImageEntrypoint, Module
from servelint.engines.tags import RELEASE_TAG, TAG_VERSION_PART

_FLOATING_TAGS = {"latest", "nightly", "main", "dev", "stable", "edge", "nightly-dev", "dev-nightly"}


@dataclass(slots=True, eq=False)
class ImageRef:
    """A container image reference and the engine release its tag names."""

    engine: str  # vllm | sglang | trtllm | atom | tilert | unknown
    release: str | None  # engine release named by the tag; None = cannot check
    floating: bool  # tag moves over time (latest, nightly, missing tag)
    custom: bool  # not a published engine release (custom/dev/commit tag)
    repository: str  # registry-relative repository, e.g. "vllm/vllm-openai"
    tag: str  # tag as written ("" when absent)
    registry: str = ""  # e.g. "nvcr.io", "" for Docker Hub
    digest: str = ""  # "sha256:..." when pinned by digest
    note: str = ""  # why release is None, when it is
    # from the table of images whose tag names no release (engines.image_table):
    basis: str = ""  # where the release (or the range) comes from
    ranged: bool = False  # the release is unknown: it is lo–hi
    lo: str | None = None  # lowest release it can hold (None: open)
    hi: str | None = None  # highest release it can hold (None: open)
    fork: bool = False  # a fork's build (findings capped at warning)
    # a custom build's tag that starts with a release (``v0.10.2-aibrix-v0.5.0``): the
    # release it is taken to hold, a guess (``release`` stays None)
    guess: str | None = None
    # the guess is the release a build of later commits starts from (a CI build's tag
    # spelling a release between other words): it may hold names added after it
    after: bool = False


def _split(ref: str) -> tuple[str, str, str, str]:
    """-> (registry, repository, tag, digest). Enroot ``registry#path`` is normalised."""
    ref = ref.strip()
    if "#" in ref:
        ref = ref.replace("#", "/", 1)
    digest = ""
    if "@" in ref:
        ref, digest = ref.split("@", 1)
    tag = ""
    last = ref.rsplit("/", 1)[-1]
    if ":" in last:
        ref, tag = ref.rsplit(":", 1)
    parts = ref.split("/")
    registry = ""
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        registry, parts = parts[0], parts[1:]
    repo = "/".join(parts).lower()
    if registry in ("docker.io", "index.docker.io", "registry-1.docker.io"):
        registry = ""
        if repo.startswith("library/"):
            repo = repo[len("library/"):]
    return registry, repo, tag, digest


def repository_of(ref: str) -> str:
    """The repository an image reference names (``resolve_image(ref).repository``), without
    reading its tag."""
    return _split(ref)[1]


def _engine_for(repo: str) -> str:
    known = engines.repositories().get(repo)
    if known is not None:
        return known.name
    name = repo.rsplit("/", 1)[-1]
    for engine in engines.engines():
        if any(word in name for word in engine.images.name_words):
            return engine.name
    return "unknown"


def _from_table(
    found: image_table.TableRelease, floating: bool, repo: str, tag: str, registry: str,
    digest: str,
) -> ImageRef:
    ref = ImageRef(found.engine, found.release, floating, found.release is None, repo, tag,
                   registry, digest, "" if found.release else found.basis)
    ref.basis, ref.fork = found.basis, found.fork
    ref.ranged, ref.lo, ref.hi = found.release is None, found.lo, found.hi
    return ref


def resolve_image(ref: str) -> ImageRef:
    """Parse an image reference into engine + release (``release=None``: cannot check)."""
    registry, repo, tag, digest = _split(ref)
    floating = (not tag and not digest) or (tag.lower() in _FLOATING_TAGS and not digest)
    found = image_table.lookup(repo, tag)
    if found is not None:  # a tag that names no engine release: what its project says
        return _from_table(found, floating, repo, tag, registry, digest)
    engine = _engine_for(repo)
    if engine == "unknown":
        return ImageRef(engine, None, floating, False, repo, tag, registry, digest,
                        "repository is not a known engine image")
    if not tag:
        return ImageRef(engine, None, floating, False, repo, tag, registry, digest, "no tag")
    low = tag.lower()
    if low in _FLOATING_TAGS:
        return ImageRef(engine, None, floating, False, repo, tag, registry, digest,
                        f"moving tag {tag!r}")
    if low.startswith(("nightly", "dev-nightly", "dev-")):
        return ImageRef(engine, None, floating, True, repo, tag, registry, digest,
                        f"nightly build {tag!r} names no release")
    images = engines.find(engine).images  # type: ignore[union-attr]
    if repo in images.wrappers:
        return ImageRef(engine, None, floating, True, repo, tag, registry, digest,
                        f"tag {tag!r} is the Dynamo version, not the engine release")
    release, custom, note = images.release_of(tag)
    ref = ImageRef(engine, release, floating, custom, repo, tag, registry, digest, note)
    _mark_guess(ref, images.repositories)
    return ref


def _mark_guess(ref: ImageRef, own: tuple[str, ...]) -> None:
    """Which release a build that is not the engine's own image holds is a guess from its
    tag: a repository the engine does not publish (``aibrix/vllm-openai-aibrix-kvcache:
    v0.10.2-20251022``, found by its name alone) may patch the release its tag names, and a
    custom tag (``v0.10.2-aibrix-v0.5.0-nixl-0.7.1``) names the release it starts from; a
    tag that spells a release between other words (a CI build, ``vllm-x86_64-cu13-0.25.1-
    7a33ba9``) is taken at that release."""
    named = ref.release
    if named is None:
        m = RELEASE_TAG.match(ref.tag)
        if m is None:
            m = TAG_VERSION_PART.search(ref.tag)
            ref.after = m is not None
        named = m.group("version") if m and ref.custom else None
        ref.guess = named
    if named is None or (ref.release and ref.repository in own):
        return
    ref.fork = True
    whose = "a custom tag" if ref.release is None else f"{ref.repository} is not one of " \
        f"{ref.engine}'s own image repositories"
    if ref.after:
        whose = "a build of later commits, by the release its tag spells"
    ref.basis = (
        f"image {ref.repository}:{ref.tag} is a build of {ref.engine} {named} by its tag "
        f"({whose}), a guess"
    )


def image_entrypoint(ref: ImageRef) -> ImageEntrypoint | None:
    """What the image runs before ``docker run IMAGE ARGS``' arguments, read from its
    release's own Dockerfile (``Images.entrypoint``): for a tag naming a release, that
    release's; for an official floating tag (``latest``), the newest release read; None when
    it cannot be known (nightly, custom and other repositories' images). Readers of
    ``docker run`` and container ``args`` call it, keeping their own default on None."""
    found = engines.find(ref.engine)
    if found is None or ref.repository not in found.images.repositories:
        return None
    if ref.release:
        return found.images.entrypoint_read(ref.repository, ref.release)
    if ref.floating and not ref.custom and ref.tag.lower() in ("", "latest") \
            and ref.repository in found.images.official:
        return found.images.entrypoint_read(ref.repository, None)
    return None


def image_launcher(ref: ImageRef) -> str | None:
    """The name of the engine launcher the image's own entrypoint is (``python -m
    vllm.entrypoints.openai.api_server`` for ``vllm/vllm-openai:v0.10.1.1``), or None when
    the entrypoint is unknown, empty or not one of the engine's launchers."""
    ep = image_entrypoint(ref)
    found = engines.find(ref.engine)
    if ep is None or not ep.words or found is None:
        return None
    words = ep.words
    for launcher in found.launchers:
        if isinstance(launcher, Command) and len(words) == len(launcher.words) and \
                (os.path.basename(words[0]), *words[1:]) == launcher.words:
            return launcher.name
        if isinstance(launcher, Module) and not launcher.then and len(words) == 3 and \
                os.path.basename(words[0]).startswith("python") and words[1] == "-m" and \
                words[2] == launcher.module:
            return launcher.name
    return None
