"""Fetch a released wheel and read its files without installing or importing it."""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import subprocess
import sys
import zipfile
from email.parser import HeaderParser
from functools import cached_property
from pathlib import Path
from typing import Any

WHEEL_CACHE = Path("/tmp/servelint-wheels")


def download(engine: str, version: str, dest: Path | None = None) -> Path:
    """The wheel of ``engine==version``: from the cache folder, else ``pip download``."""
    dest = dest or WHEEL_CACHE / engine
    dest.mkdir(parents=True, exist_ok=True)
    found = find_cached(engine, version, dest)
    if found:
        return found
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "-d",
        str(dest),
        f"{engine}=={version}",
    ]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    found = find_cached(engine, version, dest)
    if not found:
        raise FileNotFoundError(f"pip download gave no wheel for {engine}=={version}")
    return found


def find_cached(engine: str, version: str, *folders: Path) -> Path | None:
    for folder in folders or (WHEEL_CACHE / engine,):
        for path in sorted(Path(folder).glob(f"{engine}-{version}-*.whl")):
            return path
    return None


class ParsedFiles:
    """``glob`` and a parsed-AST cache over a subclass's ``names`` and ``read``."""

    names: list[str]
    _ast: dict[str, ast.Module]

    def read(self, name: str) -> str:
        raise NotImplementedError

    def glob(self, pattern: str) -> list[str]:
        return [n for n in self.names if fnmatch.fnmatch(n, pattern)]

    def parse(self, name: str) -> ast.Module:
        if name not in self._ast:
            self._ast[name] = ast.parse(self.read(name), filename=name)
        return self._ast[name]


class DistMetadata:
    """The release facts of a distribution's ``METADATA`` (``self.metadata``)."""

    metadata: Any

    @property
    def version(self) -> str:
        return self.metadata["Version"]

    @property
    def requires_dist(self) -> list[str]:
        return self.metadata.get_all("Requires-Dist") or []

    @property
    def provides_extra(self) -> list[str]:
        return self.metadata.get_all("Provides-Extra") or []


class WheelSource(DistMetadata, ParsedFiles):
    """Random access to the text files and metadata of one wheel."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.zip = zipfile.ZipFile(self.path)
        self.names = [n for n in self.zip.namelist() if not n.endswith("/")]
        self._text: dict[str, str] = {}
        self._ast: dict[str, ast.Module] = {}

    @cached_property
    def sha256(self) -> str:
        digest = hashlib.sha256()
        with open(self.path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()

    def exists(self, name: str) -> bool:
        return name in self._text or name in set(self.names)

    def read(self, name: str) -> str:
        if name not in self._text:
            self._text[name] = self.zip.read(name).decode("utf-8", errors="replace")
        return self._text[name]

    @cached_property
    def dist_info(self) -> str:
        for n in self.names:
            if n.endswith(".dist-info/METADATA"):
                return n.rsplit("/", 1)[0]
        raise FileNotFoundError("no .dist-info/METADATA in wheel")

    @cached_property
    def metadata(self):
        return HeaderParser().parsestr(self.read(self.dist_info + "/METADATA"))
