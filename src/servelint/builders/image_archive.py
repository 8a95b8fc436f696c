"""Unpack what a profile needs from an image archive — ``docker save`` (``manifest.json``), an
OCI image layout (``index.json``) or a filesystem tarball (``docker export``, a tarred venv) —
layer by layer, whiteouts honoured, without any
container tool: the metadata of every installed distribution and the engine's own package
files. Nothing is run; members that would land outside the destination, links and devices
are skipped."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from servelint.builders.root import PACKAGE_FOLDERS

_METADATA_FILES = {"METADATA", "RECORD", "PKG-INFO", "top_level.txt", "entry_points.txt"}
# compiled or bulk files an extractor never reads
_BINARY_SUFFIXES = {".so", ".pyc", ".a", ".o", ".bin", ".cubin", ".fatbin", ".ptx", ".pt"}
_MAX_MEMBER = 16 << 20
_MAX_JSON = 4 << 20


class ArchiveError(ValueError):
    """The file is not an image archive this reader understands."""


@dataclass(slots=True)
class ImageConfig:
    """What the image's config says of how it starts."""

    entrypoint: list[str] = field(default_factory=list)
    cmd: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    repo_tags: list[str] = field(default_factory=list)
    digest: str = ""  # sha256 of the config blob: the image ID

    def as_dict(self) -> dict[str, Any]:
        return {
            "entrypoint": self.entrypoint,
            "cmd": self.cmd,
            "env": self.env,
            "repo_tags": self.repo_tags,
            "id": self.digest,
        }


def wanted(name: str, import_name: str) -> bool:
    """Whether a file of the image is one the profile reads: distribution metadata, or a
    non-binary file of the engine's package, in a site-packages/dist-packages folder."""
    parts = PurePosixPath(name).parts
    for i, part in enumerate(parts[:-1]):
        if part not in PACKAGE_FOLDERS:
            continue
        rest = parts[i + 1 :]
        if len(rest) == 2 and rest[0].endswith((".dist-info", ".egg-info")):
            return rest[1] in _METADATA_FILES
        return rest[0] == import_name and PurePosixPath(name).suffix not in _BINARY_SUFFIXES
    return False


def _clean(name: str) -> str | None:
    """A member name relative to the image root, or None when it escapes it."""
    path = PurePosixPath(name.lstrip("/"))
    if any(p == ".." for p in path.parts):
        return None
    parts = [p for p in path.parts if p not in (".", "")]
    return "/".join(parts) or None


def _layer_list(tar: tarfile.TarFile) -> tuple[list[str], str, list[str]]:
    """(layer member names in order, config member name, repo tags)."""
    names = set(tar.getnames())
    if "manifest.json" in names:
        manifest = _json_member(tar, "manifest.json")
        if not isinstance(manifest, list) or not manifest or not isinstance(manifest[0], dict):
            raise ArchiveError("manifest.json lists no image")
        first = manifest[0]
        return list(first.get("Layers") or []), str(first.get("Config", "")), list(
            first.get("RepoTags") or []
        )
    if "index.json" in names:
        index = _json_member(tar, "index.json")
        manifests = index.get("manifests") if isinstance(index, dict) else None
        if not manifests:
            raise ArchiveError("index.json lists no manifest")
        manifest = _json_member(tar, _blob(manifests[0]["digest"]))
        if isinstance(manifest, dict) and manifest.get("manifests"):  # an image index
            manifest = _json_member(tar, _blob(manifest["manifests"][0]["digest"]))
        tags = [
            m.get("annotations", {}).get("org.opencontainers.image.ref.name", "")
            for m in manifests
        ]
        return (
            [_blob(layer["digest"]) for layer in manifest.get("layers", [])],
            _blob(manifest["config"]["digest"]),
            [t for t in tags if t],
        )
    raise ArchiveError("neither manifest.json (docker save) nor index.json (OCI layout)")


def _blob(digest: str) -> str:
    algo, _, hexdigest = str(digest).partition(":")
    return f"blobs/{algo}/{hexdigest}"


def _json_member(tar: tarfile.TarFile, name: str) -> Any:
    member = tar.getmember(name)
    if not member.isfile() or member.size > _MAX_JSON:
        raise ArchiveError(f"{name} is not a small regular file")
    fh = tar.extractfile(member)
    assert fh is not None
    try:
        return json.loads(fh.read())
    except ValueError as exc:
        raise ArchiveError(f"{name} is not JSON: {exc}") from None


def _config(tar: tarfile.TarFile, name: str, tags: list[str]) -> ImageConfig:
    if not name:
        return ImageConfig(repo_tags=tags)
    member = tar.getmember(name)
    fh = tar.extractfile(member)
    raw = fh.read(_MAX_JSON) if fh else b""
    data = json.loads(raw) if raw else {}
    conf = data.get("config") or {}
    env = {}
    for item in conf.get("Env") or []:
        key, _, value = str(item).partition("=")
        env[key] = value
    return ImageConfig(
        entrypoint=[str(w) for w in conf.get("Entrypoint") or []],
        cmd=[str(w) for w in conf.get("Cmd") or []],
        env=env,
        repo_tags=tags,
        digest="sha256:" + hashlib.sha256(raw).hexdigest(),
    )


def _whiteout(dest: Path, name: str) -> None:
    """Apply a whiteout entry: ``.wh..wh..opq`` empties its folder, ``.wh.X`` removes X."""
    path = PurePosixPath(name)
    parent = dest / path.parent
    if path.name == ".wh..wh..opq":
        if parent.is_dir():
            for child in parent.iterdir():
                _remove(child)
        return
    _remove(parent / path.name[len(".wh.") :])


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _apply_layer(layer: IO[bytes], dest: Path, import_name: str) -> None:
    with tarfile.open(fileobj=layer, mode="r|*") as tar:
        for member in tar:
            name = _clean(member.name)
            if name is None:
                continue
            if PurePosixPath(name).name.startswith(".wh."):
                _whiteout(dest, name)
                continue
            target = dest / name
            if member.isdir():
                if target.exists() and not target.is_dir():
                    _remove(target)
                continue
            if not member.isfile():
                continue  # links, devices, fifos: never written
            if not wanted(name, import_name) or member.size > _MAX_MEMBER:
                if target.exists():
                    _remove(target)  # an upper layer's file replaces a lower one's
                continue
            fh = tar.extractfile(member)
            if fh is None:
                continue
            _remove(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "xb") as out:
                shutil.copyfileobj(fh, out)


def unpack(archive: Path, dest: Path, import_name: str) -> ImageConfig:
    """Unpack the files a profile reads from ``archive`` into ``dest``; the image's config."""
    try:
        tar = tarfile.open(archive, mode="r:*")
    except (OSError, tarfile.TarError) as exc:
        raise ArchiveError(f"cannot open {archive} as a tar archive: {exc}") from None
    with tar:
        names = set(tar.getnames())
        if "manifest.json" not in names and "index.json" not in names:
            tar.close()  # a filesystem tarball (`docker export`, a tarred venv): one layer
            with open(archive, "rb") as fh:
                _apply_layer(fh, dest, import_name)
            return ImageConfig()
        layers, config_name, tags = _layer_list(tar)
        config = _config(tar, config_name, tags)
        for layer in layers:
            fh = tar.extractfile(tar.getmember(layer))
            if fh is None:
                raise ArchiveError(f"layer {layer} is not a file")
            try:
                _apply_layer(fh, dest, import_name)
            except tarfile.TarError as exc:
                raise ArchiveError(f"layer {layer}: {exc}") from None
    return config


def save_image(ref: str, dest_dir: Path) -> Path:
    """``docker save`` (or ``podman save``) the image ``ref`` into ``dest_dir``."""
    tool = shutil.which("docker") or shutil.which("podman")
    if tool is None:
        raise ArchiveError(
            "--image needs docker or podman on PATH; export the image elsewhere and use "
            "--image-archive (docker save) or --root (an unpacked filesystem)"
        )
    out = Path(dest_dir) / "image.tar"
    done = subprocess.run([tool, "save", "-o", str(out), ref], capture_output=True, text=True)
    if done.returncode != 0:
        raise ArchiveError(f"{Path(tool).name} save {ref} failed: {done.stderr.strip()}")
    return out


def scratch_dir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="servelint-image-")
