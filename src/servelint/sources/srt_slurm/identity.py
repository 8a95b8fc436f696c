"""``identity.frameworks``: the engine release a recipe declares it runs.

srtctl records ``identity.frameworks.<engine>`` next to the container; a release named
there judges the launch when the container tag names none (a nightly, an alias the
cluster maps, a squashfs file). When the tag names a release too and the two differ, the
job runs the container's, and the difference is reported. Only a release servelint has
a profile for is used; a dev build (``0.26.1rc1.dev255+g…``) is left to the image's own
release range. TensorRT-LLM (``tensorrt_llm``) is judged by its own engine package.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from servelint import profiles
from servelint.engines.images import resolve_image
from servelint.model import LaunchSpec, Span
from servelint.sources.common.problems import ReadProblem

ENGINES = ("vllm", "sglang")


def _same(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def apply(
    spec: LaunchSpec, declared: dict[str, tuple[str, Span]], container_span: Span | None
) -> ReadProblem | None:
    """Pin ``spec`` to the engine release ``identity.frameworks`` names, when its image
    does not name one; -> the problem when the image names a different release."""
    if spec.engine not in ENGINES or spec.engine not in declared:
        return None
    version, span = declared[spec.engine]
    pinned = resolve_image(spec.image).release if spec.image else None
    if pinned:
        if _same(pinned, version):
            return None
        return ReadProblem(
            span.path,
            span,
            f"identity.frameworks.{spec.engine} names {spec.engine} {version}, but the "
            f"container {spec.image}"
            + (f" ({container_span.path}:{container_span.line})" if container_span else "")
            + f" is {spec.engine} {pinned}: the job runs the container's release, judged "
            f"against {pinned}",
            "unresolved",
        )
    if spec.release is None and version in profiles.available(spec.engine):
        spec.release, spec.release_span = version, span
        spec.context["release_from"] = f"identity.frameworks.{spec.engine}"
    return None
