"""Where a TensorRT-LLM build reads from: a source tree or a wheel, with provenance.

NVIDIA's wheels live on NVIDIA's own index; public source trees (a checkout, a vendored copy)
are the other way in. Both give the interface of ``builders.wheel.WheelSource``
(``exists``, ``read``, ``names``, and ``parse``/``glob`` from the shared ``ParsedFiles``), so
the shared static evaluator reads either; every file read is hashed into the provenance the
profile records.
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

from servelint.builders.wheel import ParsedFiles, WheelSource

_VERSION = re.compile(r"""^__version__\s*=\s*["']([^"']+)["']""", re.M)
VERSION_FILE = "tensorrt_llm/version.py"
NATIVE_SUFFIXES = (".cpp", ".h", ".cu", ".cuh", ".hpp", ".inl", ".cc")


class TreeSource(ParsedFiles):
    """The ``tensorrt_llm`` package of a source tree (DIR holds ``tensorrt_llm/``)."""

    def __init__(self, root: Path):
        root = Path(root)
        if not (root / "tensorrt_llm").is_dir() and (root / "version.py").is_file():
            root = root.parent  # DIR is the package itself
        if not (root / "tensorrt_llm").is_dir():
            raise ValueError(f"{root} holds no tensorrt_llm/ package")
        self.root = root
        self.names = sorted(
            str(p.relative_to(root)) for p in (root / "tensorrt_llm").rglob("*") if p.is_file()
        )
        self._names = set(self.names)
        self._text: dict[str, str] = {}
        self._ast: dict[str, ast.Module] = {}
        self.read_hashes: dict[str, str] = {}

    def exists(self, name: str) -> bool:
        return name in self._names

    def read(self, name: str) -> str:
        if name not in self._text:
            data = (self.root / name).read_bytes()
            self.read_hashes[name] = hashlib.sha256(data).hexdigest()
            self._text[name] = data.decode("utf-8", errors="replace")
        return self._text[name]

    @property
    def version(self) -> str:
        m = _VERSION.search(self.read(VERSION_FILE)) if self.exists(VERSION_FILE) else None
        if m is None:
            raise ValueError(f"no __version__ in {VERSION_FILE}")
        return m.group(1)

    def tree_digest(self) -> str:
        """sha256 over the sorted (path, sha256) list of every file of the package."""
        digest = hashlib.sha256()
        for name in self.names:
            data = (self.root / name).read_bytes()
            digest.update(f"{name}\0{hashlib.sha256(data).hexdigest()}\n".encode())
        return digest.hexdigest()

    def native_sources(self) -> list[str]:
        """The C++/CUDA sources of the compiled library (``cpp/`` beside the package), when
        the tree has them: the environment variables the library reads are named there."""
        cpp = self.root / "cpp"
        if not cpp.is_dir():
            return []
        return sorted(
            str(p.relative_to(self.root))
            for p in cpp.rglob("*")
            if p.is_file() and p.suffix in NATIVE_SUFFIXES
        )

    def read_native(self, name: str) -> bytes:
        return (self.root / name).read_bytes()


class WheelTree(TreeSource):
    """A TensorRT-LLM wheel, read in place (no install, no import)."""

    def __init__(self, wheel: Path):  # noqa: D107 - same interface, different storage
        self._wheel = WheelSource(Path(wheel))
        self.root = Path(wheel)
        self.names = [n for n in self._wheel.names if n.startswith("tensorrt_llm/")]
        self._names = set(self.names)
        self._text = {}
        self._ast = {}
        self.read_hashes = {}

    def read(self, name: str) -> str:
        if name not in self._text:
            data = self._wheel.zip.read(name)
            self.read_hashes[name] = hashlib.sha256(data).hexdigest()
            self._text[name] = data.decode("utf-8", errors="replace")
        return self._text[name]

    def tree_digest(self) -> str:
        return self._wheel.sha256

    def native_sources(self) -> list[str]:
        return []  # the library is compiled: its reads are not read here


def provenance(src: TreeSource, origin: dict[str, str], read: dict[str, str]) -> dict:
    """What the profile records of where its facts came from: the tree's file count and digest,
    and the sha256 of each file the option and model extractors read."""
    kind = "wheel" if isinstance(src, WheelTree) else "source-tree"
    return {
        "kind": kind,
        **origin,
        "package_files": len(src.names),
        "tree_sha256": src.tree_digest(),
        "files_read": dict(sorted(read.items())),
    }
