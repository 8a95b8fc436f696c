"""servelint.rules.docs_links: the declared docs base, read from the installed metadata."""

import sys

import pytest

from servelint.rules import docs_links

METADATA = """Metadata-Version: 2.4
Name: servelint
Version: 9.0
project-url: Repository, https://example.org/fork/servelint/
Project-URL: Issues, https://example.org/fork/servelint/issues

Project-URL: Documentation, https://example.org/not-a-header
"""


@pytest.fixture
def fresh_base(monkeypatch):
    monkeypatch.delenv(docs_links.ENV_BASE, raising=False)
    docs_links._declared_base.cache_clear()
    yield
    docs_links._declared_base.cache_clear()


def test_project_urls_agree_with_importlib_metadata():
    assert docs_links._project_urls() == docs_links._project_urls_from_importlib()


def test_header_block_of_first_dist_info_on_path(tmp_path, monkeypatch, fresh_base):
    info = tmp_path / "first" / "servelint-9.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(METADATA, encoding="utf-8")
    later = tmp_path / "later" / "servelint-8.0.dist-info"
    later.mkdir(parents=True)
    (later / "METADATA").write_text(
        METADATA.replace("Repository", "Documentation"), encoding="utf-8"
    )
    monkeypatch.setattr(sys, "path", [str(tmp_path / "none"), str(info.parent), str(later.parent)])
    assert docs_links._project_urls() == [
        "Repository, https://example.org/fork/servelint/",
        "Issues, https://example.org/fork/servelint/issues",
    ]
    assert docs_links.rule_doc_url("SL101") == (
        "https://example.org/fork/servelint/blob/HEAD/docs/rules/SL101.md"
    )
