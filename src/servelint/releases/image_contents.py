"""Does an official image hold a package? Judged against the set read from the release's own
build files (``profile build-image``) when servelint has it for that release and image
flavour, else against the inferred union of ``data/image_additions.toml`` (not a fact)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from servelint.util import hardware
from servelint.util.package_names import canonicalize_name

_VENDOR_FLAVOUR = {"amd": "rocm", "cpu": "cpu"}


@dataclass(slots=True, eq=False)
class ImageEntry:
    """What the image has of one package: ``entry`` is None when absent; ``known`` says
    whether an absence is a fact (a complete set read from the build files)."""

    entry: dict[str, Any] | None
    known: bool
    basis: str  # where the set comes from, for the message
    caveat: str = ""  # why an absence is not a fact


def flavour(image: str | None, gpu: str | None) -> str:
    """The image flavour a launch meets: ROCm/CPU by the image name or the GPU, else CUDA."""
    name = (image or "").lower()
    for word in ("rocm", "cpu"):
        if word in name:
            return word
    found = hardware.lookup(gpu) if gpu else None
    return _VENDOR_FLAVOUR.get(found.vendor, "cuda") if found else "cuda"


def built_set(image: dict[str, Any], name: str) -> dict[str, Any] | None:
    return image.get("build", {}).get("flavours", {}).get(name)


def _entry_of(packages: dict[str, Any], key: str) -> Any:
    """The entry of the package whose canonical name is ``key`` (of several spellings of it,
    the last), read through the set once per lookup (a few hundred names)."""
    found = None
    for name, entry in packages.items():
        if name == key or canonicalize_name(name) == key:
            found = entry
    return found


def _installed(image: dict[str, Any], key: str) -> ImageEntry:
    """A package against the distributions installed in the image (``profile build --root``
    and friends): a fact either way, with the metadata file as evidence."""
    found = image["installed"].get(key)
    where = image.get("installed_in") or "the image"
    if found is None:
        return ImageEntry(None, True, f"the distributions installed in {where}")
    entry = {"specifier": f"=={found['version']}", "at": found.get("at", "")}
    return ImageEntry(entry, True, f"{found['name']} {found['version']} installed ({found['at']})")


def lookup(image: dict[str, Any], name: str, package: str) -> ImageEntry:
    key = canonicalize_name(package)
    if "installed" in image:  # a profile built from the image itself: what it holds is read
        return _installed(image, key)
    packages = image.get("packages", {})
    read = built_set(image, name)
    if read is None:
        return ImageEntry(
            _entry_of(packages, key),
            False,
            "the inferred image package set",
            "not read from this release's build files",
        )
    entry = _entry_of(read["packages"], key)
    wheel_dep = _entry_of(packages, key)
    if entry is None and (wheel_dep or {}).get("source") == "requires-dist":
        entry = wheel_dep  # a dependency of the wheel the image installs
    basis = (
        f"the {name} image's package set read from {read['dockerfile']} (target "
        f"{read.get('target')})"
    )
    if entry is not None and entry.get("condition"):
        return ImageEntry(entry, False, basis, f"installed only if {entry['condition']}")
    complete = bool(read.get("complete"))
    return ImageEntry(entry, complete, basis, "" if complete else read.get("incomplete", ""))
