"""Every data file of the package is in an installed copy: a file under src/servelint that is
not Python must match a `package-data` pattern of pyproject.toml (an editable install reads
the source tree and would hide a missing one; CI installs with `pip install .`)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "servelint"


def test_every_data_file_is_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["servelint"]
    shipped = {p for pattern in patterns for p in PACKAGE.glob(pattern) if p.is_file()}
    data = {
        p for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }
    assert sorted(str(p.relative_to(PACKAGE)) for p in data - shipped) == []
