"""The ``image`` profile section: the package set of the official ``vllm/vllm-openai`` image.

The wheel's ``Requires-Dist`` evaluated for the image's platform (linux x86_64, CPython 3.12,
no extras) plus the additions the image build makes beyond the wheel, read from the data file
``servelint/data/image_additions.toml`` (inferred, with provenance).
"""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

from packaging.markers import UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from servelint.builders.wheel import WheelSource

IMAGE_ENV = {
    "python_version": "3.12", "python_full_version": "3.12.3",
    "implementation_name": "cpython", "platform_python_implementation": "CPython",
    "sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64",
    "os_name": "posix", "platform_release": "", "platform_version": "", "extra": "",
}


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    packages: dict[str, dict[str, Any]] = {}
    for name, spec in wheel_requirements(src).items():
        packages[name] = {"specifier": spec, "source": "requires-dist"}
    additions = load_additions()
    for name, spec in additions.get("packages", {}).items():
        key = canonicalize_name(name)
        if key not in packages:
            packages[key] = {"specifier": spec, "source": "dockerfile", "inferred": True}
    prov = additions.get("provenance", {})
    return {"image": {
        "repository": "vllm/vllm-openai",
        "tag": f"v{src.version}",
        "entrypoint": prov.get("entrypoint", ["vllm", "serve"]),
        "entrypoint_inferred": True,
        "packages": packages,
        "method": ("Requires-Dist of the wheel METADATA evaluated with packaging.markers for "
                   "linux x86_64 / CPython 3.12 / no extras; plus image-build additions from "
                   "servelint/data/image_additions.toml (inferred from upstream Dockerfile and "
                   "docker/versions.json read via a public-code index, not from the release "
                   "tag; union of eras so the set errs towards 'present')"),
        "additions_sources": prov.get("sources", []),
    }}


def wheel_requirements(src: WheelSource) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in src.requires_dist:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        try:
            if req.marker is not None and not req.marker.evaluate(dict(IMAGE_ENV)):
                continue
        except UndefinedEnvironmentName:
            continue
        out.setdefault(canonicalize_name(req.name), str(req.specifier))
    return out


def load_additions() -> dict[str, Any]:
    path = resources.files("servelint") / "data" / "image_additions.toml"
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
