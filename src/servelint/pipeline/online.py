"""``--online``: package registry metadata on runtime-install findings (SL161).

What a reviewer looked up by hand in incident 2, added to each flagged package: author,
maintainers, licence, home page, first release date and number of releases — or that
the name is not on the index at all. Only the Python package index's JSON API is asked,
only with ``--online``, one request per package name with a timeout; answers are kept
(JSON, no code) under the cache directory for a day. A failed lookup is said as such
in the finding, never an error of the run.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from servelint.model import Finding
from servelint.pipeline.cache import cache_dir, read_cache_file, write_cache_file

PYPI_JSON_URL = "https://pypi.org/pypi/{name}/json"
TIMEOUT_S = 5.0
CACHE_TTL_S = 24 * 3600
RULE_CODE = "SL161"
# the requirements a runtime-install message names in quotes: "name>=1", "name[extra]"
_QUOTED = re.compile(r'"([^"]+)":')

Fetch = Callable[[str, float], tuple[int, bytes]]  # (url, timeout) -> (status, body)
MAX_ENTRY_BYTES = 64 * 1024  # one cached answer (a few hundred bytes)


@dataclass(frozen=True, slots=True)
class PackageFacts:
    """What the package registry says of one package."""

    name: str
    found: bool
    author: str = ""
    maintainers: str = ""
    license: str = ""
    home_page: str = ""
    first_release: str = ""  # YYYY-MM-DD of the oldest uploaded file
    releases: int = 0
    error: str = ""  # why the lookup failed (timeout, ...)

    def text(self) -> str:
        if self.error:
            return f"index metadata for {self.name} unavailable ({self.error})"
        if not self.found:
            return f"{self.name} is not on the package index"
        parts = [
            f"author {self.author or 'not given'}",
            f"maintainers {self.maintainers or 'not given'}",
            f"licence {self.license or 'not given'}",
            f"home page {self.home_page or 'not given'}",
            f"first release {self.first_release or 'unknown'}",
            f"{self.releases} release{'s' if self.releases != 1 else ''}",
        ]
        return f"index metadata for {self.name}: " + "; ".join(parts)


def _person(name: str | None, email: str | None) -> str:
    return (name or "").strip() or (email or "").strip()


def facts_from_json(name: str, data: dict[str, Any]) -> PackageFacts:
    """The facts a reviewer reads, from one JSON API document."""
    info = data.get("info") or {}
    urls = info.get("project_urls") or {}
    home = info.get("home_page") or next(
        (u for k, u in urls.items() if k.lower() in {"homepage", "home", "source", "repository"}),
        "",
    )
    licence = info.get("license_expression") or (info.get("license") or "").strip()
    if not licence or len(licence) > 80:  # a whole licence text: name it by its classifier
        classifiers = [
            c.rsplit(" :: ", 1)[-1]
            for c in info.get("classifiers") or []
            if c.startswith("License ::")
        ]
        licence = ", ".join(classifiers) or ("given as a long text" if licence else "")
    releases = data.get("releases") or {}
    uploads = [
        f.get("upload_time_iso_8601") or f.get("upload_time") or ""
        for files in releases.values()
        for f in files or ()
    ]
    uploads = sorted(u for u in uploads if u)
    return PackageFacts(
        name=info.get("name") or name,
        found=True,
        author=_person(info.get("author"), info.get("author_email")),
        maintainers=_person(info.get("maintainer"), info.get("maintainer_email")),
        license=licence,
        home_page=home or "",
        first_release=uploads[0][:10] if uploads else "",
        releases=sum(1 for files in releases.values() if files),
    )


def _fetch_url(url: str, timeout: float) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url, headers={"Accept": "application/json", "User-Agent": "servelint --online"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


class Registry:
    """Looks packages up, through a small JSON cache (``cache_dir``/online)."""

    def __init__(
        self,
        cache_dir: Path | None,
        fetch: Fetch | None = None,
        timeout: float = TIMEOUT_S,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.cache_dir = cache_dir
        self.fetch = fetch or _fetch_url
        self.timeout = timeout
        self.now = now
        self._seen: dict[str, PackageFacts] = {}

    def _cache_file(self, name: str) -> Path | None:
        safe = re.sub(r"[^a-z0-9._-]", "_", name.lower())  # a file name, never a path
        return self.cache_dir / "online" / f"{safe}.json" if self.cache_dir else None

    def _cached(self, name: str) -> PackageFacts | None:
        path = self._cache_file(name)
        data = read_cache_file(path, MAX_ENTRY_BYTES) if path else None
        try:
            entry = json.loads(data) if data is not None else None
        except (ValueError, RecursionError):
            return None
        if not isinstance(entry, dict) or self.now() - entry.get("at", 0) > CACHE_TTL_S:
            return None
        facts = entry.get("facts")
        if not isinstance(facts, dict) or not all(
            isinstance(v, _FIELD_TYPES.get(k, ())) for k, v in facts.items()
        ):
            return None  # (a forged field: a list for a name, an object for a date)
        try:
            return PackageFacts(**facts)
        except (TypeError, KeyError):
            return None

    def _store(self, facts: PackageFacts) -> None:
        path = self._cache_file(facts.name.lower())
        if path is None or facts.error:  # failures are asked again next time
            return
        write_cache_file(path, json.dumps({"at": self.now(), "facts": _asdict(facts)}).encode())

    def lookup(self, name: str) -> PackageFacts:
        key = name.lower()
        if key in self._seen:
            return self._seen[key]
        facts = self._cached(key)
        if facts is None:
            facts = self._ask(name)
            self._store(facts)
        self._seen[key] = facts
        return facts

    def _ask(self, name: str) -> PackageFacts:
        url = PYPI_JSON_URL.format(name=urllib.parse.quote(name, safe=""))
        try:
            status, body = self.fetch(url, self.timeout)
        except TimeoutError:
            return PackageFacts(name, found=False, error=f"no answer within {self.timeout:g} s")
        except (OSError, ValueError) as exc:
            return PackageFacts(name, found=False, error=type(exc).__name__)
        if status == 404:
            return PackageFacts(name, found=False)
        if status != 200:
            return PackageFacts(name, found=False, error=f"HTTP {status}")
        try:
            return facts_from_json(name, json.loads(body))
        except (ValueError, AttributeError, TypeError):
            return PackageFacts(name, found=False, error="unreadable answer")


_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "name": str, "found": bool, "author": str, "maintainers": str, "license": str,
    "home_page": str, "first_release": str, "releases": int, "error": str,
}


def _asdict(facts: PackageFacts) -> dict[str, Any]:
    return {field: getattr(facts, field) for field in PackageFacts.__slots__}


def package_names(finding: Finding) -> list[str]:
    """The distributions a runtime-install finding flags (the quoted requirements)."""
    names = []
    for text in _QUOTED.findall(finding.message):
        try:
            names.append(Requirement(text).name)
        except InvalidRequirement:
            continue  # a URL or path: no index entry to look up
    return list(dict.fromkeys(names))


def annotate(findings: Iterable[Finding], registry: Registry | None = None) -> None:
    """Add index metadata to the evidence of every runtime-install finding."""
    targets = [f for f in findings if f.code == RULE_CODE]
    if not targets:
        return
    if registry is None:
        registry = Registry(cache_dir())
    for finding in targets:
        notes = [registry.lookup(name).text() for name in package_names(finding)]
        if notes:
            finding.evidence = " | ".join([*filter(None, [finding.evidence]), *notes])
