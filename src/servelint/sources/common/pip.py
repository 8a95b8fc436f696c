"""pip / uv pip / pipx ``install`` command grammar -> ``PackageInstall`` records.

Works on already-expanded argv tokens (``Token`` with spans) so that the bash reader
and any other reader share one grammar. Option tables follow each tool's own CLI:
the pip table was read from pip's ``install`` command parser (pip 23.2 plus the
options added since: ``--group``, ``--resume-retries``); the uv and pipx tables from
their ``install --help``. An option the table does not know is taken as a flag unless
written ``--opt=value`` (a value-taking unknown option would make its value look like
a requirement, so such installs get a ``problems`` note).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from servelint.model import PackageInstall, Token
from servelint.util.package_names import canonicalize_name

# pip install: options that take a value (short and long spellings)
PIP_VALUE_OPTIONS = frozenset({
    "-c", "--constraint", "-r", "--requirement", "-e", "--editable", "-t", "--target",
    "--platform", "--python-version", "--implementation", "--abi", "--root", "--prefix",
    "--src", "--source", "--source-dir", "--source-directory", "--upgrade-strategy",
    "-C", "--config-settings", "--global-option", "--no-binary", "--only-binary",
    "--progress-bar", "--root-user-action", "--report", "-i", "--index-url", "--pypi-url",
    "--extra-index-url", "-f", "--find-links", "--python", "--log", "--log-file",
    "--local-log", "--timeout", "--default-timeout", "--exists-action", "--trusted-host",
    "--cert", "--client-cert", "--cache-dir", "--retries", "--proxy", "--keyring-provider",
    "--use-feature", "--use-deprecated", "--group", "--resume-retries",
})
# uv pip install: options that take a value
UV_VALUE_OPTIONS = frozenset({
    "-r", "--requirement", "--requirements", "-c", "--constraint", "--constraints",
    "--override", "--overrides", "-e", "--editable", "--extra", "--group", "-i",
    "--index-url", "--extra-index-url", "--index", "--default-index", "-f", "--find-links",
    "--index-strategy", "--keyring-provider", "-p", "--python", "-t", "--target", "--prefix",
    "--python-version", "--python-platform", "--resolution", "--prerelease", "--exclude-newer",
    "-P", "--upgrade-package", "--reinstall-package", "--no-binary", "--only-binary",
    "--link-mode", "-C", "--config-setting", "--config-settings", "--torch-backend",
    "--cache-dir", "--config-file", "--directory", "--project", "--color",
    "--allow-insecure-host", "--trusted-host", "--no-build-isolation-package",
    "-b", "--build-constraint", "--build-constraints", "--refresh-package",
    "--no-build-package", "--no-binary-package", "--fork-strategy", "--exclude-newer-package",
})
# pipx install: options that take a value (pipx's -e/--editable is a flag)
PIPX_VALUE_OPTIONS = frozenset({
    "--python", "--pip-args", "--index-url", "--suffix", "--preinstall", "--backend",
})
_PER_REQUIREMENT = ("--hash", "--config-settings", "--global-option")
_VCS = ("git+", "hg+", "svn+", "bzr+")
_WHEEL_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._]*?)-\d")
_NAME_PART = re.compile(r"^\s*([A-Za-z0-9$][A-Za-z0-9._${}-]*)")


@dataclass
class PipCommand:
    """One recognised install command."""

    installer: str  # pip | uv | pipx
    installs: list[PackageInstall] = field(default_factory=list)
    index_urls: list[Token] = field(default_factory=list)  # -i / --extra-index-url / -f values
    upgrade: bool = False
    problems: list[str] = field(default_factory=list)


def _is_python(word: str) -> bool:
    base = os.path.basename(word)
    return re.fullmatch(r"python(\d+(\.\d+)?)?", base) is not None


def _is_pip(word: str) -> bool:
    return re.fullmatch(r"pip(\d+(\.\d+)?)?", os.path.basename(word)) is not None


_VALUE_OPTIONS = {"pip": PIP_VALUE_OPTIONS, "uv": UV_VALUE_OPTIONS, "pipx": PIPX_VALUE_OPTIONS}


def _python_m_installer(words: Sequence[str]) -> tuple[str, int] | None:
    """``python [-u -B -E -s -I ...] -m pip|uv pip`` -> (installer, index after it)."""
    i = 1
    while i < len(words) and words[i].startswith("-") and words[i] != "-m":
        i += 1
    if i + 1 >= len(words) or words[i] != "-m":
        return None
    mod, i = words[i + 1], i + 2
    if mod == "pip":
        return "pip", i
    if mod == "uv" and i < len(words) and words[i] == "pip":
        return "uv", i + 1
    return None


def _installer(words: Sequence[str]) -> tuple[str, int] | None:
    """-> (installer, index of the word after its name) or None."""
    base = os.path.basename(words[0])
    if _is_python(words[0]):
        return _python_m_installer(words)
    if _is_pip(words[0]):
        return "pip", 1
    if base == "uv" and len(words) > 1 and words[1] == "pip":
        return "uv", 2
    if base == "pipx":
        return "pipx", 1
    return None


def _install_start(words: Sequence[str]) -> tuple[str, int] | None:
    """-> (installer, index of the first word after ``install``) or None."""
    found = _installer(words) if words else None
    if found is None:
        return None
    installer, i = found
    # global options before the sub-command (``pip -q install``, ``pip --no-cache-dir install``)
    values = _VALUE_OPTIONS[installer]
    while i < len(words) and words[i].startswith("-"):
        w = words[i]
        i += 2 if (w in values and "=" not in w) else 1
    if i < len(words) and words[i] == "install":
        return installer, i + 1
    return None


def is_pip_install(words: Sequence[str]) -> bool:
    return _install_start(words) is not None


def _name_of_symbolic(text: str) -> tuple[str | None, str]:
    """Best effort name/specifier split of a requirement containing ``$VAR`` parts."""
    m = _NAME_PART.match(text)
    if not m:
        return None, ""
    name = m.group(1)
    rest = text[m.end():].strip()
    if rest.startswith("["):
        rest = rest[rest.find("]") + 1:].strip() if "]" in rest else rest
    if "$" in name:
        return None, rest
    return canonicalize_name(name), rest


def _egg_name(text: str) -> str | None:
    if "#egg=" not in text:
        return None
    return canonicalize_name(text.split("#egg=", 1)[1].split("&")[0])


def _wheel_name(path: str) -> str | None:
    m = _WHEEL_NAME.match(os.path.basename(path))
    return canonicalize_name(m.group(1)) if m else None


def _is_local_path(text: str, low: str) -> bool:
    return (text in (".", "..") or text.startswith(("./", "../", "/", "~")) or
            low.endswith((".tar.gz", ".zip", ".tgz", ".tar.bz2")) or
            ("/" in text and " @ " not in text and "@" not in text.split("/")[0]))


def _classify_location(rec: PackageInstall, text: str) -> bool:
    """A VCS link, URL, wheel file or local path (not ``name @ url``): set ``rec.kind``
    (and the name where the location spells it). False for anything else."""
    low = text.lower()
    if re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?\s*@\s*\S", text):
        return False
    if low.startswith(_VCS):
        rec.kind, rec.name = "vcs", _egg_name(text)
    elif re.match(r"^[a-z][a-z0-9+.-]*://", low):
        bare = text.split("#")[0].split("?")[0]
        rec.kind = "wheel" if bare.lower().endswith(".whl") else "url"
        if rec.kind == "wheel":
            rec.name = _wheel_name(bare)
    elif low.endswith(".whl"):
        rec.kind, rec.name = "wheel", _wheel_name(text)
    elif _is_local_path(text, low):
        rec.kind = "path"
    else:
        return False
    return True


def _classify_specifier(rec: PackageInstall, text: str) -> None:
    """``name[extras] specifier`` or ``name @ url`` read with ``packaging``."""
    try:
        req = Requirement(text)
    except InvalidRequirement:
        rec.name, rec.specifier = _name_of_symbolic(text)
        return
    rec.name = canonicalize_name(req.name)
    rec.specifier = str(req.specifier)
    if req.url:
        url = req.url.lower()
        rec.kind = "vcs" if url.startswith(_VCS) else ("wheel" if url.endswith(".whl") else "url")


def classify_requirement(tok: Token, installer: str, command: str, *, kind: str = "") -> (
        PackageInstall):
    """One positional argument (or ``-e``/``-r`` value) -> a ``PackageInstall``."""
    text = tok.text.strip()
    rec = PackageInstall(requirement=text, name=None, span=tok.span, symbolic=tok.symbolic,
                         installer=installer, command=command)
    if kind:
        rec.kind = kind
        if kind == "editable":
            rec.name = _egg_name(text)
        return rec
    if _classify_location(rec, text):
        return rec
    if tok.symbolic or "$" in text:
        rec.symbolic = True
        rec.name, rec.specifier = _name_of_symbolic(text)
        return rec
    _classify_specifier(rec, text)
    return rec


_INDEX_OPTIONS = frozenset({
    "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--index",
    "--default-index", "--pypi-url",
})


@dataclass
class _Parse:
    """State of one install command's argument walk."""

    tokens: Sequence[Token]
    installer: str
    command: str
    out: PipCommand
    values: frozenset[str]
    require_hashes: bool = False
    last: PackageInstall | None = None

    def add(self, tok: Token, kind: str = "") -> None:
        self.last = classify_requirement(tok, self.installer, self.command, kind=kind)
        self.out.installs.append(self.last)


def _split_option(word: str, values: frozenset[str]) -> tuple[str, str, str]:
    """``--opt=v`` / ``-rreq.txt`` / ``--flag`` -> (option, "=" or "", inline value)."""
    opt, eq, inline = word.partition("=")
    if not opt.startswith("--") and len(opt) > 2 and not eq and opt[:2] in values:
        # short option with an attached value (-rreq.txt, -ihttps://...)
        return opt[:2], "=", word[2:]
    return opt, eq, inline


def _flag(p: _Parse, opt: str) -> None:
    if opt == "--require-hashes":
        p.require_hashes = True
    elif opt in ("-U", "--upgrade"):
        p.out.upgrade = True
    if opt.startswith("--") and opt not in _KNOWN_FLAGS.get(p.installer, ()):
        p.out.problems.append(f"unknown {p.installer} option {opt} taken as a flag")


def _option(p: _Parse, i: int) -> int | None:
    """Read the option at ``i``; -> the index after it, None when its value is missing."""
    tok = p.tokens[i]
    opt, eq, inline = _split_option(tok.text, p.values)
    if opt == "--hash" and eq and p.last is not None:
        p.last.hashed = True
        return i + 1
    if opt not in p.values:
        _flag(p, opt)
        return i + 1
    if eq:
        value, nxt = Token(inline, tok.span, tok.symbolic), i + 1
    elif i + 1 < len(p.tokens):
        value, nxt = p.tokens[i + 1], i + 2
    else:
        p.out.problems.append(f"option {opt} has no value")
        return None
    if opt in ("-r", "--requirement", "--requirements"):
        p.add(value, "requirements-file")
    elif opt in ("-e", "--editable") and p.installer != "pipx":
        p.add(value, "editable")
    elif opt in _INDEX_OPTIONS:
        p.out.index_urls.append(value)
    return nxt


def parse_pip_command(tokens: Sequence[Token]) -> PipCommand | None:
    """Parse one command (wrappers already removed). None when it is no install."""
    words = [t.text for t in tokens]
    start = _install_start(words)
    if start is None:
        return None
    installer, i = start
    p = _Parse(tokens, installer, " ".join(words), PipCommand(installer=installer),
               _VALUE_OPTIONS[installer])
    while i is not None and i < len(tokens):
        tok = tokens[i]
        if tok.text == "--":
            i += 1
        elif tok.text.startswith("-") and len(tok.text) > 1 and not tok.symbolic:
            i = _option(p, i)
        else:
            p.add(tok)
            i += 1
    if p.require_hashes:
        for rec in p.out.installs:
            rec.hashed = True
    return p.out


_KNOWN_FLAGS: dict[str, frozenset[str]] = {
    "pip": frozenset({
        "--break-system-packages", "--check-build-dependencies", "--compile", "--debug",
        "--disable-pip-version-check", "--dry-run", "--force-reinstall", "--help",
        "--ignore-installed", "--ignore-requires-python", "--isolated", "--no-build-isolation",
        "--no-cache-dir", "--no-clean", "--no-color", "--no-compile", "--no-dependencies",
        "--no-deps", "--no-index", "--no-input", "--no-python-version-warning",
        "--no-use-pep517", "--no-user", "--no-warn-conflicts", "--no-warn-script-location",
        "--pre", "--prefer-binary", "--quiet", "--require-hashes", "--require-venv",
        "--require-virtualenv", "--upgrade", "--use-pep517", "--user", "--verbose",
        "--version", "--no-cache",
    }),
    "uv": frozenset({
        "--system", "--break-system-packages", "--upgrade", "--no-deps", "--pre", "--quiet",
        "--verbose", "--reinstall", "--require-hashes", "--no-cache", "--compile-bytecode",
        "--compile", "--strict", "--dry-run", "--all-extras", "--user", "--no-build-isolation",
        "--native-tls", "--offline", "--no-index", "--verify-hashes", "--no-verify-hashes",
        "--no-build", "--no-sources", "--exact", "--refresh", "--no-progress", "--no-config",
        "--force-reinstall", "--prefer-binary", "--no-cache-dir", "--help",
    }),
    "pipx": frozenset({
        "--force", "--include-deps", "--system-site-packages", "--editable", "--verbose",
        "--quiet", "--fetch-missing-python", "--global", "--help",
    }),
}


def installs_from_tokens(tokens: Sequence[Token]) -> list[PackageInstall]:
    """Convenience: the ``PackageInstall`` records of one command, [] if it is no install."""
    cmd = parse_pip_command(tokens)
    return cmd.installs if cmd else []


_POPULAR_FILE = Path(__file__).resolve().parents[2] / "data" / "popular_packages.txt"


def _read_popular() -> frozenset[str]:
    try:
        lines = _POPULAR_FILE.read_text(encoding="utf-8").splitlines()
    except OSError:
        return frozenset()
    return frozenset(ln.strip() for ln in lines if ln.strip() and not ln.startswith("#"))


_WELL_KNOWN = _read_popular()  # read with the module: ~5,000 short lines


def well_known_packages() -> frozenset[str]:
    """Canonical names of well-known PyPI projects (see tools/gen_popular_packages.py)."""
    return _WELL_KNOWN


def is_well_known(name: str | None) -> bool:
    return bool(name) and canonicalize_name(name or "") in well_known_packages()
