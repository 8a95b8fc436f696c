"""Release facts beside the profiles: dates read from a release's own files, nightly placement,
env names the code reads by a literal (builder side and check side)."""

from __future__ import annotations

import io
import tarfile
import zipfile
from datetime import date
from pathlib import Path

import pytest

from servelint import profiles
from servelint.builders.release_facts import env_reads, package_sources, release_date
from servelint.releases import release_facts


def _sdist(tmp: Path, mtime: int) -> Path:
    path = tmp / "pkg-1.0.0.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, text in (
            ("pkg-1.0.0/PKG-INFO", "Name: pkg\n"),
            ("pkg-1.0.0/pkg/a.py", 'import os\nX = os.getenv("PKG_ONE")\n'),
            ("pkg-1.0.0/tests/t.py", 'import os\nos.environ["PKG_TEST_ONLY"]\n'),
        ):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), mtime
            tar.addfile(info, io.BytesIO(data))
    return path


def test_sdist_date_is_the_pkg_info_mtime_and_only_the_package_is_scanned(tmp_path: Path) -> None:
    path = _sdist(tmp_path, 1_780_000_000)  # 2026-05-28 UTC
    day, how = release_date(path) or ("", "")
    assert day == "2026-05-28"
    assert "PKG-INFO mtime" in how
    assert env_reads(package_sources(path, "pkg")) == {"PKG_ONE": "pkg/a.py:2"}


def test_wheel_date_is_the_record_entry_and_a_1980_stamp_is_no_date(tmp_path: Path) -> None:
    path = tmp_path / "pkg-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(zipfile.ZipInfo("pkg/__init__.py", (2026, 10, 15, 23, 48, 12)), "")
        zf.writestr(zipfile.ZipInfo("pkg-1.0.0.dist-info/RECORD", (2026, 10, 15, 23, 48, 12)), "")
    assert release_date(path) == (
        "2026-10-15",
        "pkg-1.0.0-py3-none-any.whl: pkg-1.0.0.dist-info/RECORD entry time 2026-10-15T23:48:12+00:00",
    )
    bare = tmp_path / "pkg-1.0.1-py3-none-any.whl"
    with zipfile.ZipFile(bare, "w") as zf:
        zf.writestr(zipfile.ZipInfo("pkg-1.0.1.dist-info/RECORD", (1980, 1, 1, 0, 0, 0)), "")
    assert release_date(bare) is None


def test_env_reads_every_literal_read_form_and_nothing_else() -> None:
    code = "\n".join(
        [
            "import os",
            "from os import environ, getenv",
            'a = os.getenv("A_GETENV")',
            'b = os.environ.get("B_GET", "1")',
            'c = os.environ["C_ITEM"]',
            'd = "D_IN" in os.environ',
            'e = environ.get("E_BARE")',
            'f = getenv("F_BARE")',
            'g = get_bool_env_var("G_HELPER")',
            'os.environ.setdefault("H_DEFAULT", "x")',
            'os.environ["NOT_READ"] = "1"',  # a write
            'name = os.getenv(f"DYN_{x}")',  # not a literal
            'print("NOT_AN_ENV_READ")',
            'os.getenv("lower_case")',
        ]
    )
    got = env_reads(iter([("pkg/m.py", code)]))
    assert list(got) == [
        "A_GETENV",
        "B_GET",
        "C_ITEM",
        "D_IN",
        "E_BARE",
        "F_BARE",
        "G_HELPER",
        "H_DEFAULT",
    ]
    assert got["C_ITEM"] == "pkg/m.py:5"


def test_nightly_tag_dates() -> None:
    assert release_facts.tag_date("nightly-dev-20260527-14f81a67") == date(2026, 5, 27)
    assert release_facts.tag_date("nightly-dev-cu13-20260528-0abe6a85") == date(2026, 5, 28)
    assert release_facts.tag_date("nightly_202607011530") == date(2026, 7, 1)
    # a commit hash is no date, nor is an impossible day
    assert release_facts.tag_date("nightly-5e35a6f4f9bbc217c599692157ca985c894373f7") is None
    assert release_facts.tag_date("nightly-20261340") is None


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_every_profile_has_a_date_in_release_order(engine: str) -> None:
    dates = release_facts.release_dates(engine)
    have = profiles.available(engine)
    if not dates:
        pytest.skip("no release dates generated")
    assert set(have) <= set(dates)
    days = [dates[v][0] for v in have]
    assert days == sorted(days)  # neither publishes a patch of an older line after a newer one
    assert all(" mtime " in dates[v][1] or " entry time " in dates[v][1] for v in have)


def test_a_dated_nightly_is_placed_between_two_releases() -> None:
    dates = release_facts.release_dates("vllm")
    if not dates:
        pytest.skip("no release dates generated")
    have = profiles.available("vllm")
    lo, hi = have[-3], have[-2]
    between = dates[lo][0] + (dates[hi][0] - dates[lo][0]) / 2
    place = release_facts.placed("vllm", between)
    assert place is not None and (place.at, place.next) == (lo, hi)
    after = release_facts.placed("vllm", date(2099, 1, 1))
    assert after is not None and (after.at, after.next) == (have[-1], None)
    assert release_facts.placed("vllm", date(2001, 1, 1)) is None
