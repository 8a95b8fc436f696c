"""servelint.rules.docs_links: the declared docs base, read from the installed metadata."""

import sys

import pytest

from servelint.commands.explain import explain_text
from servelint.model import Finding, Severity, Span
from servelint.reporters.sarif import rule_descriptor
from servelint.reporters.text import docs_line
from servelint.rules import docs_links, registry

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

    def read_again() -> None:  # the base is read at import: read it as if imported now
        monkeypatch.setattr(docs_links, "DECLARED_BASE", docs_links._declared_base())
    return read_again


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
    fresh_base()
    assert docs_links._project_urls() == [
        "Repository, https://example.org/fork/servelint/",
        "Issues, https://example.org/fork/servelint/issues",
    ]
    assert docs_links.rule_doc_url("SL101") == (
        "https://example.org/fork/servelint/blob/HEAD/docs/rules/SL101.md"
    )


def _installed_with(tmp_path, monkeypatch, metadata: str) -> None:
    """A stand-in for the installed distribution's metadata, first on ``sys.path``."""
    info = tmp_path / "site" / "servelint-9.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(metadata, encoding="utf-8")
    monkeypatch.setattr(sys, "path", [str(info.parent), *sys.path])


def _finding() -> Finding:
    return Finding("flag-unknown", "SL101", Severity.ERROR, "m", Span("r.sh", 1, 1))


def test_documentation_url_feeds_help_uri_footer_and_explain(tmp_path, monkeypatch, fresh_base):
    _installed_with(tmp_path, monkeypatch, (
        "Metadata-Version: 2.4\nName: servelint\nVersion: 9.0\n"
        "Project-URL: Documentation, https://docs.example.org/servelint/\n\n"
    ))
    fresh_base()
    meta = registry.get("SL101")
    page = "https://docs.example.org/servelint/rules/SL101.md"
    assert rule_descriptor(meta)["helpUri"] == page
    assert rule_descriptor(meta)["properties"]["docs"] == page
    assert docs_line([_finding()]).endswith(
        "servelint explain CODE (SL101); pages: https://docs.example.org/servelint/rules/<CODE>.md"
    )
    assert explain_text(meta).rstrip().endswith(f"docs: {page}")


def test_without_a_declared_url_everything_points_to_explain(tmp_path, monkeypatch, fresh_base):
    _installed_with(tmp_path, monkeypatch, "Metadata-Version: 2.4\nName: servelint\n\n")
    fresh_base()
    meta = registry.get("SL101")
    sarif = rule_descriptor(meta)
    assert "helpUri" not in sarif  # no URL is invented
    assert sarif["properties"]["docs"] == "servelint explain SL101"
    assert sarif["help"]["text"].endswith("more: servelint explain SL101")
    assert docs_line([_finding()]) == "about a rule: servelint explain CODE (SL101)"
    assert "docs/rules" not in explain_text(meta)
