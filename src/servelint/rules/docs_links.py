"""Where a rule's documentation page is: ``docs/rules/<CODE>.md`` of the repository.

servelint has no documentation host of its own. A rule's link is absolute when the
installed distribution declares one in ``[project.urls]`` (``Documentation`` names the
docs folder; else ``Repository``/``Source`` names the repository, whose
``docs/rules/`` page is linked), or when ``SERVELINT_DOCS_URL`` sets the base (the URL of
the folder holding ``rules/``). Otherwise it is the page's path in the repository
(``docs/rules/SL101.md``): true, if not clickable. SARIF takes only absolute URIs in
``helpUri``, so that path goes to the rule's help text instead.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

RULES_DIR = "docs/rules"
ENV_BASE = "SERVELINT_DOCS_URL"


def _declared_base() -> str | None:
    """The docs folder URL the installed metadata declares, or None."""
    entries = _project_urls()
    urls = {}
    for entry in entries:
        label, _, url = entry.partition(",")
        urls[label.strip().lower()] = url.strip()
    if urls.get("documentation"):
        return urls["documentation"].rstrip("/")
    repo = urls.get("repository") or urls.get("source")
    return f"{repo.rstrip('/')}/blob/HEAD/docs" if repo else None


def _project_urls() -> list[str]:
    """The ``Project-URL`` entries of the installed servelint distribution.

    Read from the first ``servelint-*.dist-info/METADATA`` on ``sys.path`` (where
    importlib.metadata finds it too): importing importlib.metadata (email, zipfile, csv)
    costs ~20 ms, half the floor of a one-file check, for these few header lines. Any other
    layout (a zip, an egg) falls back to importlib.metadata.
    """
    for entry in sys.path:
        for info in sorted(Path(entry or ".").glob("servelint-*.dist-info")):
            try:
                text = (info / "METADATA").read_text(encoding="utf-8")
            except OSError:
                continue
            return _header_values(text, "project-url")
    return _project_urls_from_importlib()


def _header_values(metadata_text: str, name: str) -> list[str]:
    """The values of header ``name`` (any case) in a core-metadata file's header block."""
    header = metadata_text.split("\n\n", 1)[0]
    return [
        value.strip()
        for line in header.splitlines()
        for key, sep, value in [line.partition(":")]
        if sep and key.strip().lower() == name
    ]


def _project_urls_from_importlib() -> list[str]:
    # only for an install without a dist-info folder on sys.path (a zip, an egg): importing
    # importlib.metadata costs ~20 ms, which every run would pay at the top
    from importlib import metadata

    try:
        return metadata.metadata("servelint").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return []


def docs_base() -> str | None:
    """The absolute URL of the folder holding ``rules/``, or None when none is known."""
    return os.environ.get(ENV_BASE, "").rstrip("/") or DECLARED_BASE


def rule_doc_path(code: str) -> str:
    return f"{RULES_DIR}/{code}.md"


def rule_doc_url(code: str) -> str:
    """The link of rule ``code``'s page: absolute when a base is known, else its path."""
    base = docs_base()
    return f"{base}/rules/{code}.md" if base else rule_doc_path(code)


def is_absolute(url: str) -> bool:
    return url.startswith(("https://", "http://"))


# read once, at import (a few lines of one METADATA file, ~0.5 ms): every JSON finding
# carries its rule's link
DECLARED_BASE = _declared_base()
