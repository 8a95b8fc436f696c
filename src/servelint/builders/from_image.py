"""Build a profile from what an image holds: an unpacked filesystem (``--root``), an image
archive (``--image-archive``) or an image a local container tool saves (``--image``). The
engine is read with the same extractors as a wheel; the installed distributions and the
image's start-up config become facts of the profile (``image.installed``, ``image.config``),
and the profile is stored for the image reference it stands for (``profiles.store``)."""

from __future__ import annotations

import datetime
import importlib
from pathlib import Path
from typing import Any

from servelint import profiles
from servelint.builders.build import build_from_source, extractors
from servelint.builders.image_archive import (
    ArchiveError,
    ImageConfig,
    save_image,
    scratch_dir,
    unpack,
)
from servelint.builders.root import RootSource, distributions, find_distribution
from servelint.engines import registry
from servelint.profiles import store
from servelint.util.package_names import canonicalize_name


def import_name(engine: str) -> str:
    """The top-level Python package of an engine's distribution (``tensorrt-llm`` ->
    ``tensorrt_llm``)."""
    found = registry.find(engine)
    package = (found.package if found else None) or engine
    return package.replace("-", "_").lower()


def installed(root: Path) -> dict[str, dict[str, str]]:
    """Every distribution installed in the tree, by canonical name, with its evidence."""
    out: dict[str, dict[str, str]] = {}
    for dist in distributions(root):
        out.setdefault(
            canonicalize_name(dist.name),
            {
                "name": dist.name,
                "version": dist.version,
                "at": dist.metadata.relative_to(root).as_posix(),
            },
        )
    return out


def build_from_root(
    engine: str, root: Path, *, source: dict[str, Any], config: ImageConfig | None = None
) -> dict[str, Any]:
    """The profile of the engine installed under ``root``, with the tree's facts."""
    found = registry.find(engine)
    package = (found.package if found else None) or engine
    dist = find_distribution(root, package)
    if dist is None:
        raise LookupError(
            f"no installed {package} distribution (a *.dist-info with its METADATA) in a "
            f"site-packages or dist-packages folder under {root}"
        )
    where = dist.metadata.parent.relative_to(root).as_posix()
    data = _engine_profile(engine, root, dist, where, source["kind"])
    image = data.setdefault("image", {})
    image["installed"] = installed(root)
    if config is not None:
        image["config"] = config.as_dict()
    data["stored"] = {
        **source,
        "built": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "builder_digest": store.builder_digest(engine),
        "engine_at": f"{where}/{dist.metadata.name}",
    }
    return data


def _engine_profile(engine: str, root: Path, dist, where: str, kind: str) -> dict[str, Any]:
    """The engine's sections: through its builder's ``profile_from_folder`` when it reads a
    package folder its own way (TensorRT-LLM), else the wheel extractors over the tree."""
    builder = importlib.import_module(extractors(engine)[0])
    if hasattr(builder, "profile_from_folder"):
        data = builder.profile_from_folder(dist.folder, {"path": where})
        data["provenance"].pop("path", None)
        data["wheel"] = {**data["wheel"], "filename": where, "from": kind}
        return data
    src = RootSource(root, dist, import_name(engine))
    return build_from_source(
        engine, src, {"filename": where, "sha256": src.sha256, "from": kind}
    )


def build_and_store(
    engine: str,
    as_ref: str,
    *,
    root: Path | None = None,
    archive: Path | None = None,
    image: str | None = None,
    store_dir: Path | None = None,
) -> tuple[Path, dict[str, Any]]:
    """Build from one of ``root``/``archive``/``image`` and store it for ``as_ref``."""
    if root is not None:
        data = build_from_root(
            engine, Path(root), source={"kind": "root", "path": str(Path(root).resolve())}
        )
        return store.write(data, as_ref, store_dir), data
    with scratch_dir() as tmp:
        if image is not None:
            archive = save_image(image, Path(tmp))
        if archive is None:
            raise ArchiveError("name --root, --image-archive or --image")
        dest = Path(tmp) / "root"
        dest.mkdir()
        config = unpack(Path(archive), dest, import_name(engine))
        source = {
            "kind": "image" if image else "image-archive",
            "path": image or str(Path(archive).resolve()),
            "digest": config.digest,
        }
        data = build_from_root(engine, dest, source=source, config=config)
    return store.write(data, as_ref, store_dir), data


def same_as_shipped(data: dict[str, Any]) -> list[str]:
    """The sections where a built profile differs from the one servelint ships for the
    same release (empty: equal); for the development check of the root builder."""
    shipped = profiles.load(data["engine"], data["version"])
    if shipped is None:
        return [f"servelint ships no {data['engine']} {data['version']} profile"]
    skip = {"wheel", "stored", "builder_version", "missing_extractors"}
    keys = (set(data) | set(shipped.data)) - skip
    differ = sorted(k for k in keys if k != "image" and data.get(k) != shipped.data.get(k))
    if _wheel_image(data) != _wheel_image(shipped.data):
        differ.append("image")
    return differ


def _wheel_image(data: dict[str, Any]) -> dict[str, Any]:
    """The image section as a wheel builds it (without what a tree or build files add)."""
    return {k: v for k, v in data.get("image", {}).items() if k not in _TREE_FACTS}


_TREE_FACTS = {"installed", "installed_in", "config", "build"}
