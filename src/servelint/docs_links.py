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
from functools import cache

RULES_DIR = "docs/rules"
ENV_BASE = "SERVELINT_DOCS_URL"


@cache
def _declared_base() -> str | None:
    """The docs folder URL the installed metadata declares, or None."""
    from importlib import metadata

    try:
        entries = metadata.metadata("servelint").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    urls = {}
    for entry in entries:
        label, _, url = entry.partition(",")
        urls[label.strip().lower()] = url.strip()
    if urls.get("documentation"):
        return urls["documentation"].rstrip("/")
    repo = urls.get("repository") or urls.get("source")
    return f"{repo.rstrip('/')}/blob/HEAD/docs" if repo else None


def docs_base() -> str | None:
    """The absolute URL of the folder holding ``rules/``, or None when none is known."""
    return os.environ.get(ENV_BASE, "").rstrip("/") or _declared_base()


def rule_doc_path(code: str) -> str:
    return f"{RULES_DIR}/{code}.md"


def rule_doc_url(code: str) -> str:
    """The link of rule ``code``'s page: absolute when a base is known, else its path."""
    base = docs_base()
    return f"{base}/rules/{code}.md" if base else rule_doc_path(code)


def is_absolute(url: str) -> bool:
    return url.startswith(("https://", "http://"))
