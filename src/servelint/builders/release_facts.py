"""Facts of a release read from its own distribution file (an sdist or a wheel), never imported.

* the release date: an sdist's ``PKG-INFO`` member mtime (written when the sdist was built), or
  a wheel's ``*.dist-info/RECORD`` zip entry time (written last when the wheel was built; zip
  times carry no zone, taken as UTC);
* the environment variables its code reads by a literal name outside any registry
  (``os.getenv("X")``, ``os.environ.get("X")``, ``os.environ["X"]``, ``"X" in os.environ``,
  ``os.environ.setdefault("X", …)`` and helpers named ``get_…env…("X")``), each with the first
  place (``path:line``, sorted by path) that reads it.

``tools/gen_release_facts.py`` writes them into ``profiles/data/<engine>/releases.json`` and
``env_reads.json.gz``; checking reads them through ``servelint.releases.release_facts``.
"""

from __future__ import annotations

import ast
import re
import tarfile
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from servelint.builders.astutil import dotted

_NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
_GETTERS = {
    "os.getenv",
    "getenv",
    "os.environ.get",
    "environ.get",
    "os.environ.setdefault",
    "environ.setdefault",
}
_ENVIRON = {"os.environ", "environ"}
_HELPER = re.compile(r"^_?get_\w*env\w*$")
# a wheel built reproducibly without a source date has 1980-01-01 entries: no date
_NO_DATE_BEFORE = 1990


def release_date(path: Path) -> tuple[str, str] | None:
    """(``YYYY-MM-DD``, how it was read) for an sdist ``.tar.gz`` or a ``.whl``."""
    name = path.name
    if name.endswith(".whl"):
        with zipfile.ZipFile(path) as zf:
            record = next(
                (i for i in zf.infolist() if i.filename.endswith(".dist-info/RECORD")), None
            )
            if record is None or record.date_time[0] < _NO_DATE_BEFORE:
                return None
            stamp = datetime(*record.date_time, tzinfo=UTC)
            return (
                stamp.date().isoformat(),
                f"{name}: {record.filename} entry time {stamp.isoformat(timespec='seconds')}",
            )
    with tarfile.open(path) as tar:
        info = next(
            (m for m in tar if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")), None
        )
        if info is None or info.mtime <= 0:
            return None
        stamp = datetime.fromtimestamp(info.mtime, tz=UTC)
        if stamp.year < _NO_DATE_BEFORE:
            return None
        return (
            stamp.date().isoformat(),
            f"{name}: {info.name} mtime {stamp.isoformat(timespec='seconds')}",
        )


def package_sources(path: Path, package: str) -> Iterator[tuple[str, str]]:
    """(``package/…/x.py``, text) of the package's Python files in an sdist or a wheel."""
    top = package.replace("-", "_") + "/"
    if path.name.endswith(".whl"):
        with zipfile.ZipFile(path) as zf:
            for name in sorted(zf.namelist()):
                if name.startswith(top) and name.endswith(".py"):
                    yield name, zf.read(name).decode("utf-8", errors="replace")
        return
    with tarfile.open(path) as tar:
        members = sorted(
            (m for m in tar if m.isfile() and m.name.endswith(".py")), key=lambda m: m.name
        )
        for m in members:
            rel = m.name.split("/", 1)[1] if "/" in m.name else m.name
            if rel.startswith(top):
                fh = tar.extractfile(m)
                if fh is not None:
                    yield rel, fh.read().decode("utf-8", errors="replace")


def _read_name(node: ast.AST) -> str | None:
    """The literal env name ``node`` reads, if it is an env read."""
    arg: ast.AST | None = None
    if isinstance(node, ast.Call) and node.args:
        func = dotted(node.func)
        last = func.rsplit(".", 1)[-1]
        if func in _GETTERS or _HELPER.match(last):
            arg = node.args[0]
    elif (
        isinstance(node, ast.Subscript)
        and dotted(node.value) in _ENVIRON
        and isinstance(node.ctx, ast.Load)
    ):
        arg = node.slice
    elif (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.In | ast.NotIn)
        and dotted(node.comparators[0]) in _ENVIRON
    ):
        arg = node.left
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _NAME.match(arg.value):
        return arg.value
    return None


def env_reads(sources: Iterator[tuple[str, str]]) -> dict[str, str]:
    """Every literal env name the sources read, with its first ``path:line``."""
    found: dict[str, str] = {}
    for path, text in sources:
        if "environ" not in text and "getenv" not in text and "env" not in text:
            continue
        try:
            tree = ast.parse(text, filename=path)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            name = _read_name(node)
            if name:
                at = f"{path}:{node.lineno}"
                if name not in found or _order(at) < _order(found[name]):
                    found[name] = at
    return dict(sorted(found.items()))


def _order(at: str) -> tuple[str, int]:
    path, _, line = at.rpartition(":")
    return path, int(line)
