"""Project configuration: ``.servelint.toml`` or ``[tool.servelint]`` in ``pyproject.toml``.

Found by walking up from the checked path (or the cwd); in each directory
``.servelint.toml`` wins over ``pyproject.toml``, and a ``pyproject.toml`` without a
``[tool.servelint]`` table is skipped. Keys (all optional)::

    severity = {flag-unknown = "warning"}            # rule name or code -> info|warning|error
    disable = ["SL191"]                              # rule name or code
    exclude = ["third_party/*", "*.bak.yaml"]        # fnmatch, relative to the config dir
    images = {"vllm/vllm-openai:nightly-*" = "vllm==0.33.0"}
    min-severity = "warning"
    gpu = "h100"
    target-version = "vllm==0.33.0"                  # judge as if bumped to it (--target-version)

``exclude`` patterns use fnmatch (``*`` also crosses ``/``); a pattern without ``/``
also matches any single path component, so ``exclude = ["vendor"]`` skips a tree.
``images`` patterns are tried in file order; the first match wins.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from packaging.version import InvalidVersion, Version

from servelint.model import Finding, Severity
from servelint.rules.registry import known_ids
from servelint.util import cli_values

CONFIG_NAMES = (".servelint.toml", "pyproject.toml")
KEYS = ("severity", "disable", "exclude", "images", "min-severity", "gpu", "target-version")
SEVERITIES = tuple(s.label for s in Severity)


class ConfigError(Exception):
    """A configuration file that cannot be used; ``str(err)`` is the message to print."""


@dataclass(slots=True, eq=False, repr=False)
class Config:
    """The project configuration (defaults when no file is found)."""

    path: Path | None = None  # the file it came from (None: defaults)
    severity: dict[str, Severity] = field(default_factory=dict)
    disable: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()
    images: dict[str, tuple[str, str]] = field(default_factory=dict)
    min_severity: str | None = None  # a Severity label: "info" | "warning" | "error"
    gpu: str | None = None
    target_version: str | None = None  # "vllm==0.27.1", the spelling --target-version takes

    @property
    def root(self) -> Path:
        """The directory exclude patterns are relative to."""
        return self.path.parent if self.path else Path.cwd()

    def _severity_for(self, finding: Finding) -> Severity:
        for key in (finding.rule, finding.code):
            if key in self.severity:
                return self.severity[key]
        return finding.severity

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        """Drop disabled rules, remap severities, then drop findings below min-severity."""
        out = []
        for finding in findings:
            if finding.rule in self.disable or finding.code in self.disable:
                continue
            severity = self._severity_for(finding)
            if self.min_severity is not None and severity < Severity.parse(self.min_severity):
                continue
            if severity != finding.severity:
                finding = dataclasses.replace(finding, severity=severity)
            out.append(finding)
        return out

    def image_release(self, ref: str) -> tuple[str, str] | None:
        """The (engine, version) the config assigns to image ``ref``, or None."""
        candidates = [ref, _short_image(ref)]
        for pattern, release in self.images.items():
            if any(fnmatch.fnmatchcase(c, pattern) for c in candidates):
                return release
        return None

    def excluded(self, path: str | Path) -> bool:
        """Whether ``path`` matches an ``exclude`` pattern."""
        if not self.exclude:
            return False
        candidate = Path(path)
        if candidate.is_absolute() or self.path is not None:
            try:
                candidate = candidate.resolve().relative_to(self.root.resolve())
            except ValueError:
                pass
        rel = PurePosixPath(*candidate.parts)
        text = rel.as_posix()
        for pattern in self.exclude:
            pattern = pattern.rstrip("/")
            if fnmatch.fnmatchcase(text, pattern):
                return True
            # a pattern also matches a directory prefix, and a bare name any component
            if any(fnmatch.fnmatchcase(parent.as_posix(), pattern) for parent in rel.parents):
                return True
            if "/" not in pattern and any(fnmatch.fnmatchcase(p, pattern) for p in rel.parts):
                return True
        return False


def _short_image(ref: str) -> str:
    """``docker.io/library/x:tag`` -> ``x:tag`` (the spelling config patterns usually use)."""
    for prefix in ("docker.io/", "index.docker.io/", "registry-1.docker.io/"):
        if ref.startswith(prefix):
            ref = ref[len(prefix) :]
            break
    return ref.removeprefix("library/")


# ---- discovery -------------------------------------------------------------------------


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest config file at or above ``start`` and its servelint table."""
    try:
        start = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop: its findings come from the check
        start = start.absolute()
    directory = start if _exists_as(start.is_dir) else start.parent
    for folder in (directory, *directory.parents):
        for name in CONFIG_NAMES:
            candidate = folder / name
            if not _exists_as(candidate.is_file):  # a folder that may not be searched: none
                continue
            if name == "pyproject.toml":
                table = _pyproject_table(candidate)
                if table is None:
                    continue
                if not isinstance(table, dict):
                    raise ConfigError(f"{candidate}: [tool.servelint] must be a table")
                return candidate, table
            return candidate, _read_toml(candidate)
    return None


# A ``[tool.servelint]`` table is written under a ``[tool.servelint…]`` header, as keys of a
# ``[tool]`` table, or as root-level ``tool…`` keys (bare or quoted, spaces allowed): a
# pyproject.toml with no such line has none and is not parsed (importing the TOML parser
# and parsing cost a short run ~4 ms). A line that only looks like one (in a multi-line
# string, a ``tool.x`` key inside another table) just means the file is parsed.
_MAY_HOLD_TABLE = re.compile(
    rb"""^[ \t]*(?:
        \[\[?[ \t]*(["']?)tool\1[ \t]*(?:\]|\.[ \t]*(["']?)servelint\2[ \t]*[].])
        | (["']?)tool\3[ \t]*[.=]
    )""",
    re.M | re.X,
)


def _exists_as(test) -> bool:  # noqa: ANN001
    try:
        return bool(test())
    except OSError:
        return False


def _pyproject_table(path: Path) -> Any:
    """The ``[tool.servelint]`` value of a ``pyproject.toml``; None when it has none."""
    data = _read_bytes(path)
    if not _MAY_HOLD_TABLE.search(data):
        return None
    return _parse_toml(path, data).get("tool", {}).get("servelint")


def _read_toml(path: Path) -> dict[str, Any]:
    return _parse_toml(path, _read_bytes(path))


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc


def _parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc


def load_config(start: Path | None = None, *, known_rules: set[str] | None = None) -> Config:
    """The config that governs ``start`` (default: the cwd); defaults when none is found.

    ``known_rules`` (names and codes) validates rule ids; by default the registered
    rules, and no rule-id check while no rule is registered.
    """
    found = find_config(Path.cwd() if start is None else start)
    if found is None:
        return Config()
    path, table = found
    return parse_config(table, path, known_rules=known_rules)


def load_config_file(path: Path, *, known_rules: set[str] | None = None) -> Config:
    """The config in an explicit file (``--config``)."""
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("servelint", {})
    return parse_config(data, path, known_rules=known_rules)


# ---- validation ------------------------------------------------------------------------


def parse_config(
    table: dict[str, Any], path: Path | None = None, *, known_rules: set[str] | None = None
) -> Config:
    """Validate a servelint table; raise ConfigError naming the file and the key."""
    check = _TableCheck(
        table,
        f"{path}: " if path else "",
        _registered_rule_ids() if known_rules is None else known_rules,
    )
    for key in table:
        if key not in KEYS:
            hint = cli_values.did_you_mean(key, KEYS) or f". expected one of {', '.join(KEYS)}"
            raise check.fail(f'unknown key "{key}"{hint}')
    config = Config(path=path)
    config.severity = {
        check.rule_id(k, "severity"): check.severity(v, f"severity.{k}")
        for k, v in check.table_of("severity").items()
    }
    config.disable = frozenset(check.rule_id(v, "disable") for v in check.string_list("disable"))
    config.exclude = tuple(check.string_list("exclude"))
    config.images = check.images()
    if "min-severity" in table:
        config.min_severity = check.severity(table["min-severity"], "min-severity").label
    if "gpu" in table:
        config.gpu = _gpu(table["gpu"], check.fail)
    if "target-version" in table:
        config.target_version = check.target_version(table["target-version"])
    return config


class _TableCheck:
    """The checks of one servelint table's values; errors name the file and the key."""

    def __init__(self, table: dict[str, Any], where: str, known_rules: set[str]) -> None:
        self.table = table
        self.where = where
        self.known_rules = known_rules

    def fail(self, message: str) -> ConfigError:
        return ConfigError(f"{self.where}{message}")

    def rule_id(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(f'"{key}" must name rules with strings, got {_type(value)}')
        ident = value.strip()
        ident = ident.upper() if ident[:2].lower() == "sl" and ident[2:].isdigit() else ident
        if self.known_rules and ident not in self.known_rules:
            raise self.fail(
                f'unknown rule "{value}" in "{key}"'
                f"{cli_values.did_you_mean(value, sorted(self.known_rules))}"
            )
        return ident

    def severity(self, value: Any, key: str) -> Severity:
        if not isinstance(value, str) or value.strip().lower() not in SEVERITIES:
            raise self.fail(f'"{key}" must be one of {", ".join(SEVERITIES)}, got {value!r}')
        return Severity.parse(value)

    def string_list(self, key: str) -> list[Any]:
        value = self.table.get(key, [])
        if not isinstance(value, list):
            raise self.fail(f'"{key}" must be a list of strings, got {_type(value)}')
        for item in value:
            if not isinstance(item, str):
                raise self.fail(f'"{key}" must be a list of strings, got an item of {_type(item)}')
        return value

    def table_of(self, key: str) -> dict[str, Any]:
        value = self.table.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(f'"{key}" must be a table, got {_type(value)}')
        return value

    def images(self) -> dict[str, tuple[str, str]]:
        images = {}
        for pattern, pin in self.table_of("images").items():
            if not isinstance(pin, str):
                raise self.fail(
                    f'"images.{pattern}" must be a string like "vllm==0.33.0", got {_type(pin)}'
                )
            images[pattern] = _release(pin, f"images.{pattern}", self.fail)
        return images

    def target_version(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self.fail(
                f'"target-version" must be a string like "vllm==0.27.1", got {_type(value)}'
            )
        try:  # a release servelint has a profile of, checked like --target-version
            engine, version = cli_values.release(value, bare_engine="vllm")
        except ValueError as exc:
            raise self.fail(f'"target-version": {exc}') from None
        return f"{engine}=={version}"


def _release(text: str, key: str, fail) -> tuple[str, str]:
    """An ``images`` pin: ``"vllm==0.33.0"`` -> ("vllm", "0.33.0")."""
    engine, sep, version = text.partition("==")
    if not sep and ("/" in text or ":" in text) and " " not in text.strip():
        return "image", text.strip()  # an image with a stored profile (profile build --as)
    if not sep:
        raise fail(f'"{key}" must be "engine==version" (e.g. "vllm==0.33.0"), got "{text}"')
    engine, version = engine.strip().lower(), version.strip()
    if not engine or not engine.replace("-", "").replace("_", "").isalnum():
        raise fail(f'"{key}": invalid engine name in "{text}"')
    try:
        Version(version)
    except InvalidVersion:
        raise fail(f'"{key}": invalid version "{version}" in "{text}"') from None
    return engine, version


def _gpu(value: Any, fail) -> str:
    if not isinstance(value, str):
        raise fail(f'"gpu" must be a string, got {_type(value)}')
    try:  # the exact id: "b3000" is refused, not read as b300
        return cli_values.gpu(value)
    except ValueError as exc:
        raise fail(str(exc)) from None


def _registered_rule_ids() -> set[str]:
    return known_ids()


def _type(value: Any) -> str:
    names = {
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        list: "an array",
        dict: "a table",
    }
    return names.get(type(value), type(value).__name__)
