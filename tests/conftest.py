"""Shared pytest options: ``--update`` rewrites golden files instead of comparing them."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update",
        action="store_true",
        default=False,
        help="rewrite golden files (tests/cases/rules/*.expected, "
        "tests/cases/fixes/*) from the current output",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update"))
