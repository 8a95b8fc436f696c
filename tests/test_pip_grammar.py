"""pip / uv pip / pipx install grammar, including hadolint DL3013's issue history."""

from __future__ import annotations

import shlex

import pytest

from servelint.model import Span, Token
from servelint.sources.common.pip import (
    is_pip_install,
    is_well_known,
    parse_pip_command,
    well_known_packages,
)


def toks(line: str, symbolic_vars: bool = True) -> list[Token]:
    """Shell-split a line; words holding ``$`` are symbolic like the bash reader makes them."""
    out = []
    col = 1
    for w in shlex.split(line):
        out.append(Token(w, Span("t.sh", 1, col), symbolic_vars and "$" in w))
        col += len(w) + 1
    return out


def installs(line: str):
    cmd = parse_pip_command(toks(line))
    assert cmd is not None, line
    return cmd.installs


def by_name(line: str) -> dict:
    return {i.name or i.requirement: i for i in installs(line)}


# --- which commands are installs ------------------------------------------------------

@pytest.mark.parametrize("line", [
    "pip install x", "pip3 install x", "pip3.11 install x", "/usr/bin/pip install x",
    "python -m pip install x", "python3 -m pip install x", "python3.12 -m pip install x",
    "python3 -u -m pip install x", "uv pip install x", "python3 -m uv pip install x",
    "pipx install x", "pip -q install x", "pip --no-cache-dir install x",
    "pip --proxy http://p:3128 install x",
])
def test_recognised_install_commands(line):
    assert is_pip_install(shlex.split(line))
    assert [i.name for i in installs(line)] == ["x"]


@pytest.mark.parametrize("line", [
    "pip uninstall -y x", "pip download x", "pip list", "python3 -m pipx install x",
    "python3 -c 'import pip'", "uv add x", "pipenv install x", "pip show x", "echo pip install x",
])
def test_not_installs(line):
    assert parse_pip_command(toks(line)) is None


# --- installer kind ---------------------------------------------------------------------

def test_installer_recorded():
    assert installs("uv pip install x")[0].installer == "uv"
    assert installs("pipx install x")[0].installer == "pipx"
    assert installs("python3 -m pip install x")[0].installer == "pip"


# --- hadolint DL3013 issue history --------------------------------------------------------

def test_hadolint_48_pip3_is_an_install():
    # #48: `pip3 install requests sqlalchemy` was not recognised at all
    got = installs("pip3 install requests sqlalchemy")
    assert [(i.name, i.specifier) for i in got] == [("requests", ""), ("sqlalchemy", "")]


def test_hadolint_67_pin_from_variable_and_tarball_url():
    # #67: whisper=="$GRAPHITE_VERSION" is pinned (symbolic version); a tarball URL is a url
    got = installs('pip install whisper=="$GRAPHITE_VERSION"')
    assert got[0].name == "whisper" and got[0].symbolic and got[0].specifier.startswith("==")
    url = installs("pip install https://github.com/Banno/carbon/tarball/0.9.x-fix-events-callback")
    assert url[0].kind == "url" and url[0].name is None


def test_hadolint_157_ignore_installed_takes_no_value():
    # #157: -I/--ignore-installed is a flag; pip==9.0.1 stays the requirement
    for flag in ("--ignore-installed", "-I"):
        got = installs(f"pip install {flag} pip==9.0.1")
        assert [(i.name, i.specifier) for i in got] == [("pip", "==9.0.1")]


def test_hadolint_229_no_cache_dir_and_upgrade_are_flags():
    # #229 could not be retrieved from the issue index; the neighbouring reports (#115
    # --no-cache-dir, #1042 --upgrade across continued lines) are covered here
    got = installs("pip install --no-cache-dir --upgrade tzdata")
    assert [i.name for i in got] == ["tzdata"]
    assert parse_pip_command(toks("pip install -U tzdata")).upgrade


def test_hadolint_407_symbolic_index_url_value():
    # #407: --extra-index-url $MIRROR consumes the (symbolic) value
    cmd = parse_pip_command(toks("pip install --extra-index-url $MIRROR awscli==1.18.22"))
    assert [(i.name, i.specifier) for i in cmd.installs] == [("awscli", "==1.18.22")]
    assert cmd.index_urls[0].symbolic


def test_pin_from_a_defaulted_variable():
    # godolint #17 (DL3013 port): yamllint=="${YAML_LINT_VERSION:-v1.26.3}"
    got = installs('pip install --no-cache-dir yamllint=="${YAML_LINT_VERSION:-v1.26.3}"')
    assert got[0].name == "yamllint" and got[0].symbolic and got[0].specifier.startswith("==")


def test_hadolint_287_index_url_value_is_not_a_package():
    # #287: --index-url consumes its value
    cmd = parse_pip_command(toks("pip install --index-url https://example.com/simple foobar==1.0.0"))
    assert [(i.name, i.specifier) for i in cmd.installs] == [("foobar", "==1.0.0")]
    assert [t.text for t in cmd.index_urls] == ["https://example.com/simple"]
    cmd = parse_pip_command(toks("pip install -i https://example.com/simple foobar==1.0.0"))
    assert [i.name for i in cmd.installs] == ["foobar"]


def test_hadolint_1067_pipx_python_option_and_symbolic_pin():
    # #1067: pipx --python takes a value; "poetry==$POETRY_VERSION" is pinned
    got = installs('pipx install --python "$(which python)" "poetry==$POETRY_VERSION"')
    assert len(got) == 1
    assert got[0].name == "poetry" and got[0].symbolic and got[0].installer == "pipx"


def test_hadolint_1175_name_and_version_from_variables():
    # #1175: both parts symbolic: name unknown, never judged as a value
    got = installs('python -m pip install "${PACKAGE_NAME}==${PACKAGE_VERSION}"')
    assert len(got) == 1 and got[0].symbolic and got[0].name is None


def test_hadolint_181_python_m_pip_and_vcs():
    got = installs("python -m pip install git+https://github.com/example/example@123abcdef")
    assert got[0].kind == "vcs"
    assert installs("python -m pip install example==1.2.3")[0].specifier == "==1.2.3"


def test_hadolint_376_location_options_take_values():
    for opt in ("--prefix", "--root", "--target", "-t"):
        got = installs(f"pip3 install {opt} /opt/yamllint yamllint==1.20.0")
        assert [(i.name, i.specifier) for i in got] == [("yamllint", "==1.20.0")], opt


def test_hadolint_389_local_paths_and_wheels():
    assert installs("pip install /app")[0].kind == "path"
    assert installs("pip install .")[0].kind == "path"
    whl = installs("pip install dist/mypkg-1.0-py3-none-any.whl")[0]
    assert whl.kind == "wheel" and whl.name == "mypkg"


def test_hadolint_467_requirements_file():
    got = installs("pip install -r requirements.txt")
    assert got[0].kind == "requirements-file" and got[0].requirement == "requirements.txt"
    assert installs("pip install --requirement=req.txt")[0].kind == "requirements-file"
    assert installs("pip install -rreq.txt")[0].requirement == "req.txt"


# --- option grammar ------------------------------------------------------------------------

@pytest.mark.parametrize("opt", [
    "--extra-index-url", "-c", "--constraint", "-f", "--find-links", "--trusted-host",
    "--platform", "--python-version", "--no-binary", "--only-binary", "--upgrade-strategy",
    "--progress-bar", "--root-user-action", "--config-settings", "-C", "--src",
])
def test_value_options_consume_their_value(opt):
    got = installs(f"pip install {opt} VALUE pkg==1")
    assert [i.name for i in got] == ["pkg"], opt
    got = installs(f"pip install {opt}=VALUE pkg==1") if opt.startswith("--") else got
    assert [i.name for i in got] == ["pkg"], opt


@pytest.mark.parametrize("flag", [
    "-q", "-U", "--no-deps", "--pre", "--user", "--force-reinstall", "--break-system-packages",
    "--no-build-isolation", "--require-hashes", "-v", "--quiet",
])
def test_flags_take_no_value(flag):
    assert [i.name for i in installs(f"pip install {flag} pkg==1 other")] == ["pkg", "other"]


def test_editable_and_egg_name():
    got = installs("pip install -e git+https://example.org/r.git#egg=My_Pkg")
    assert got[0].kind == "editable" and got[0].name == "my-pkg"
    assert installs("pip install -e .")[0].kind == "editable"


def test_hashes():
    got = installs("pip install pkg==1.0 --hash=sha256:abc other==2")
    assert got[0].hashed and not got[1].hashed
    assert all(i.hashed for i in installs("pip install --require-hashes -r r.txt"))


def test_requirement_specifiers_extras_markers_and_direct_urls():
    got = by_name("pip install 'fastokens>=0.1.1,<0.2.0' 'vllm[audio]==0.21.0' "
                  "'foo; python_version>\"3.8\"' 'bar @ https://x.org/bar-1.0.tar.gz'")
    assert got["fastokens"].specifier == "<0.2.0,>=0.1.1"
    assert got["vllm"].specifier == "==0.21.0" and got["vllm"].requirement == "vllm[audio]==0.21.0"
    assert got["foo"].specifier == ""
    assert got["bar"].kind == "url"


def test_names_are_canonical():
    assert installs("pip install Foo_Bar.Baz==1")[0].name == "foo-bar-baz"


def test_uv_specific_options():
    got = installs("uv pip install --system --index-strategy unsafe-best-match -p 3.12 "
                   "--torch-backend cu128 vllm==0.21.0")
    assert [(i.name, i.installer) for i in got] == [("vllm", "uv")]


def test_pipx_editable_is_a_flag():
    got = installs("pipx install -e --force ./tool")
    assert got[0].kind == "path"


def test_spans_and_command_are_kept():
    cmd = parse_pip_command(toks("pip install -q datasets pandas"))
    assert [i.span.column for i in cmd.installs] == [16, 25]
    assert cmd.installs[0].command == "pip install -q datasets pandas"


def test_unknown_long_option_is_reported():
    cmd = parse_pip_command(toks("pip install --frobnicate pkg"))
    assert cmd.problems and [i.name for i in cmd.installs] == ["pkg"]


def test_missing_option_value_is_reported_not_raised():
    cmd = parse_pip_command(toks("pip install -r"))
    assert cmd.problems and cmd.installs == []


# --- well-known package list ----------------------------------------------------------

def test_well_known_list_matches_the_documented_rule():
    names = well_known_packages()
    assert 4000 < len(names) <= 5000
    assert is_well_known("datasets") and is_well_known("pandas") and is_well_known("Pandas")
    assert not is_well_known("fastokens")  # rank 9612, no summary: provenance unknown
    assert not is_well_known(None)
