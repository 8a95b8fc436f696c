"""How a release tag names an engine release (``v0.21.0``, ``0.5.12.post1-cu130``): the usual
grammar, ``Images.release_of``'s default (``engines.base``), and the patterns ``engines.images``
reads a tag with. Knows no engine and no repository."""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

# three or four release parts (vLLM published 0.10.1.1, SGLang 0.4.3.post2 is a post release)
_VERSION = r"\d+\.\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?"
# "v0.21.0", "v0.10.1.1", "v0.21.0-cu130", "v0.5.14-rocm720-mi35x-20260701"; suffix = variant
RELEASE_TAG = re.compile(rf"^v?(?P<version>{_VERSION})(?P<suffix>-[A-Za-z0-9._-]+)?$")
# a release spelled inside a longer tag, between dashes (vLLM's CI builds
# ``vllm-x86_64-cu13-0.25.1-7a33ba9``: the release its version part names, a build of a later commit)
TAG_VERSION_PART = re.compile(rf"(?:^|-)v?(?P<version>{_VERSION})(?=-|$)")
# build-variant suffix words that do not change the engine release
_VARIANT_WORD = re.compile(
    r"^(cu\d+(\.\d+)*|cuda\d+(\.\d+)*|rocm\d+|mi\d+x|ubuntu\d+(\.\d+)?|x86_64|amd64|arm64|aarch64"
    r"|runtime|py3\d*|srt|\d{8})$"
)


def release_from_tag(tag: str) -> tuple[str | None, bool, str]:
    """-> (release, custom, note) for a tag of a known engine repository."""
    m = RELEASE_TAG.match(tag)
    if not m:
        return None, True, f"tag {tag!r} names no engine release"
    suffix = (m.group("suffix") or "").lstrip("-")
    words = [w for w in re.split(r"-", suffix) if w]
    if any(not _VARIANT_WORD.match(w) for w in words):
        return None, True, f"tag {tag!r} is a custom build of {m.group('version')}"
    try:
        Version(m.group("version"))
    except InvalidVersion:
        return None, True, f"tag {tag!r} names no valid version"
    return m.group("version"), False, ""
