"""Read an engine from an unpacked filesystem (an exported image, a venv, any tree holding a
``site-packages`` or ``dist-packages`` folder) with the interface of ``WheelSource``, so the
same extractors build its profile. Nothing in the tree is imported or run, and no link that
leads out of the tree is followed."""

from __future__ import annotations

import ast
import hashlib
import os
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path

from servelint.builders.wheel import DistMetadata, ParsedFiles
from servelint.util.package_names import canonicalize_name

PACKAGE_FOLDERS = ("site-packages", "dist-packages")
# folders of a root filesystem that never hold Python packages (and may be huge or special)
_SKIP_AT_TOP = {"proc", "sys", "dev", "run", "tmp", "var", "boot", "mnt", "media", "srv"}
_MAX_DEPTH = 9  # /usr/local/lib/python3.12/dist-packages is depth 5; venvs nest a few more
_MAX_TEXT = 16 << 20  # a source file larger than this is not read


@dataclass(slots=True)
class Distribution:
    """One installed distribution: its name, version and the metadata file that says so."""

    name: str
    version: str
    metadata: Path  # the METADATA / PKG-INFO file
    folder: Path  # the site-packages folder holding it


def inside(root: Path, path: Path) -> bool:
    """``path`` resolves to a place inside ``root`` (a link out of the tree does not)."""
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(root))
    except ValueError:
        return False
    return True


def package_folders(root: Path) -> list[Path]:
    """Every ``site-packages``/``dist-packages`` folder under ``root`` (links not followed)."""
    root = Path(root)
    if root.name in PACKAGE_FOLDERS:
        return [root]
    found: list[Path] = []
    base_depth = len(root.parts)
    for here, dirs, _files in os.walk(root, followlinks=False):
        depth = len(Path(here).parts) - base_depth
        if depth == 0:
            dirs[:] = [d for d in dirs if d not in _SKIP_AT_TOP]
        keep = []
        for d in sorted(dirs):
            if d in PACKAGE_FOLDERS:
                found.append(Path(here) / d)
            elif depth < _MAX_DEPTH:
                keep.append(d)
        dirs[:] = keep
    return found


def distributions(root: Path) -> list[Distribution]:
    """The distributions installed in every package folder of ``root``, by their metadata."""
    out: list[Distribution] = []
    for folder in package_folders(root):
        for meta in sorted(folder.glob("*.dist-info/METADATA")) + sorted(
            folder.glob("*.egg-info/PKG-INFO")
        ):
            if not meta.is_file() or not inside(root, meta):
                continue
            head = _metadata(meta)
            name, version = head.get("Name"), head.get("Version")
            if name and version:
                out.append(Distribution(str(name), str(version), meta, folder))
    return out


def _metadata(path: Path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return HeaderParser().parsestr(fh.read(1 << 20), headersonly=True)


def find_distribution(root: Path, package: str) -> Distribution | None:
    """The installed distribution of ``package`` (a PyPI name), the first folder's first."""
    key = canonicalize_name(package)
    for dist in distributions(root):
        if canonicalize_name(dist.name) == key:
            return dist
    return None


class RootSource(DistMetadata, ParsedFiles):
    """The files of one installed distribution, named as in its wheel (relative to the
    package folder), read from the tree."""

    def __init__(self, root: Path, dist: Distribution, import_name: str):
        self.root = Path(root)
        self.dist = dist
        self.folder = dist.folder
        self.names = self._listed(import_name)
        self._text: dict[str, str] = {}
        self._ast: dict[str, ast.Module] = {}
        meta = dist.metadata
        self.dist_info = meta.parent.name
        self._meta_name = f"{self.dist_info}/{meta.name}"
        self.metadata = _metadata(meta)

    def _listed(self, import_name: str) -> list[str]:
        """The distribution's files that are in the tree: its ``RECORD``, else its package
        folder walked."""
        record = self.dist.metadata.parent / "RECORD"
        names: list[str] = []
        if record.is_file() and inside(self.root, record):
            for line in record.read_text(encoding="utf-8", errors="replace").splitlines():
                name = line.split(",", 1)[0].strip()
                if name and not name.startswith(("../", "/")) and self._present(name):
                    names.append(name)
        if not any(n.startswith(import_name + "/") for n in names):
            pkg = self.folder / import_name
            for here, dirs, files in os.walk(pkg, followlinks=False):
                dirs.sort()
                for f in sorted(files):
                    rel = (Path(here) / f).relative_to(self.folder).as_posix()
                    if self._present(rel):
                        names.append(rel)
        return list(dict.fromkeys(names))  # RECORD order is the wheel's order

    def _present(self, name: str) -> bool:
        path = self.folder / name
        return path.is_file() and not path.is_symlink() and inside(self.root, path)

    def exists(self, name: str) -> bool:
        return name in self._text or self._present(name)

    def read(self, name: str) -> str:
        if name not in self._text:
            path = self.folder / name
            if not self._present(name) or path.stat().st_size > _MAX_TEXT:
                raise FileNotFoundError(name)
            self._text[name] = path.read_bytes().decode("utf-8", errors="replace")
        return self._text[name]

    @property
    def sha256(self) -> str:
        """A digest of the distribution's files as read (names and bytes, in order)."""
        digest = hashlib.sha256()
        for name in self.names:
            digest.update(name.encode() + b"\0")
            digest.update(hashlib.sha256((self.folder / name).read_bytes()).digest())
        return digest.hexdigest()
