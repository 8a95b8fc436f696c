"""Property-based fuzzing of the readers and the argv normaliser (bounded: < 60 s in CI).

Properties: no exception escapes (and no "internal reader error" is swallowed into a
problem), results have the documented types, and every span lies within the input.
"""

from __future__ import annotations

import copy
import os
import re
import tempfile
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servelint import profiles
from servelint.engines.vllm import argv as vllm_argv
from servelint.model import EnvVar, LaunchSpec, PackageInstall, Span, Token
from servelint.sources.common.pip import PipCommand, parse_pip_command
from servelint.sources.common.yamlpos import Map, Scalar, Seq, YamlDoc, load_yaml_text
from servelint.sources.recipe.render import RenderResult, render
from servelint.sources.shell.script import read_script

SCALE = int(os.environ.get("SERVELINT_FUZZ_SCALE", "1"))  # more examples off CI: 10, 100
FUZZ = settings(max_examples=250 * SCALE, deadline=10_000, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SCRATCH = Path(tempfile.mkdtemp(prefix="servelint-fuzz-"))
INTERNAL = "internal reader error"


YAML_BREAKS = re.compile("\r\n|[\n\r\x85\u2028\u2029]")  # the line breaks of PyYAML's marks


def assert_span_within(span: Span | None, path: str, text: str, breaks: str = "\n") -> None:
    """A span on ``path`` points inside ``text`` (1-based; the end may sit past the last line)."""
    if span is None or span.path != path:
        return
    lines = YAML_BREAKS.split(text) if breaks == "yaml" else text.split("\n")
    assert 1 <= span.line <= len(lines) + 1, span
    assert span.column >= 1, span
    if span.line <= len(lines):
        assert span.column <= len(lines[span.line - 1].encode()) + 2, span
    if span.end_line is not None:
        assert span.line <= span.end_line <= len(lines) + 1, span
        if span.end_line == span.line and span.end_column is not None:
            assert span.end_column >= span.column, span


def assert_launch_shape(spec: LaunchSpec, path: str, text: str, breaks: str = "\n") -> None:
    assert isinstance(spec, LaunchSpec)
    assert isinstance(spec.engine, str) and isinstance(spec.entrypoint, str)
    assert all(isinstance(t, Token) and isinstance(t.text, str) for t in spec.argv)
    assert all(isinstance(e, EnvVar) and isinstance(e.name, str) for e in spec.env)
    assert all(isinstance(i, PackageInstall) for i in spec.installs)
    assert_span_within(spec.anchor, path, text, breaks)
    for piece in [*spec.argv, *spec.env, *spec.installs]:
        assert_span_within(piece.span, path, text, breaks)


# ---------------------------------------------------------------- recipe reader

MODEL_KEYS = ["model_id", "min_vllm_version", "base_args", "base_env", "architecture"]
TOP_KEYS = ["meta", "model", "features", "opt_in_features", "variants", "compatible_strategies",
            "hardware_overrides", "strategy_overrides", "guide", "omni", "docker_image"]
INNER_KEYS = ["args", "env", "extra_args", "extra_env", "vllm_args", "tp", "dp", "ep",
              "precision", "description", "default", "modes", "default_modes", "nodes",
              "vram_minimum_gb", "hardware", "prefill", "decode", "docker_image", "model_id",
              "tasks", "serve", "nvidia", "amd", "tpu", "blackwell", "hopper", "b200", "h100"]
STRATEGIES = ["single_node_tp", "single_node_dep", "single_node_tep", "multi_node_tp",
              "multi_node_tp_pp", "multi_node_dep", "pd_cluster", "nope"]
FLAG_WORDS = ["--tensor-parallel-size", "8", "--max-model-len", "32k", "--enforce-eager",
              "--kv-transfer-config", '{"kv_connector": "x"}', "--trust-remote-code", "-tp",
              "--quantization fp8", "$TP", "--no-such-flag", "", "--", "-O3"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 2**40),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
                    st.sampled_from(FLAG_WORDS + STRATEGIES + ["default", "fp8", "bf16"]))
keys = st.one_of(st.sampled_from(TOP_KEYS + INNER_KEYS + MODEL_KEYS + STRATEGIES),
                 st.text(max_size=6))
junk = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4) |
                    st.dictionaries(keys, kids, max_size=4), max_leaves=20)
flag_list = st.lists(st.sampled_from(FLAG_WORDS), max_size=6)
env_map = st.dictionaries(st.sampled_from(["VLLM_USE_V1", "A", "HF_TOKEN", ""]),
                          st.one_of(st.text(max_size=5), st.integers()), max_size=3)
values = st.one_of(junk, flag_list, env_map)

# A recipe that renders (90 launches); the fuzzer replaces or adds values at random places.
BASE_RECIPE = {
    "model": {"model_id": "org/m", "min_vllm_version": "0.21.0",
              "base_args": ["--max-model-len", "4096"], "base_env": {"A": "1"}},
    "features": {"reasoning": {"description": "r", "args": ["--reasoning-parser", "qwen3"]}},
    "opt_in_features": ["spec"],
    "variants": {"default": {"precision": "bf16", "vram_minimum_gb": 8},
                 "fp8": {"precision": "fp8", "extra_args": ["--quantization", "fp8"]}},
    "compatible_strategies": ["single_node_tp", "multi_node_tp", "pd_cluster"],
    "hardware_overrides": {"amd": {"extra_env": {"X": "1"}}},
    "strategy_overrides": {"single_node_tp": {"tp": 2}},
}


def _paths(node, prefix: tuple = ()) -> list[tuple]:
    out = []
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else []
    for key, value in items:
        out.append(prefix + (key,))
        out.extend(_paths(value, prefix + (key,)))
    return out


EDIT_PATHS = _paths(BASE_RECIPE) + [(k,) for k in TOP_KEYS] + [
    (top, key) for top in ("model", "variants", "features", "hardware_overrides",
                           "strategy_overrides") for key in INNER_KEYS[:10]]


def _edit(base: dict, edits: list[tuple[tuple, object]]) -> dict:
    doc = copy.deepcopy(base)
    for path, value in edits:
        node = doc
        for key in path[:-1]:
            if not isinstance(node, dict | list):
                break
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                break
        else:
            if isinstance(node, dict) or (isinstance(node, list) and
                                          isinstance(path[-1], int) and path[-1] < len(node)):
                node[path[-1]] = value
    return doc


recipes = st.lists(st.tuples(st.sampled_from(EDIT_PATHS), values), max_size=3).map(
    lambda edits: _edit(BASE_RECIPE, edits))


@settings(FUZZ, max_examples=100 * SCALE)
@given(doc=recipes)
def test_recipe_reader_on_random_recipes(doc: dict) -> None:
    text = yaml.safe_dump(doc, allow_unicode=True)
    folder = SCRATCH / "models" / "org"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "fuzz.yaml"
    path.write_text(text, encoding="utf-8")
    result = render(str(path))
    assert isinstance(result, RenderResult)
    for problem in result.problems:
        assert isinstance(problem.message, str) and problem.message
        assert_span_within(problem.span, str(path), text, "yaml")
    for rendering in result.renderings:
        spec = rendering.to_launch_spec()
        assert_launch_shape(spec, str(path), text, "yaml")


yaml_soup = st.lists(st.sampled_from([
    "model:", "variants:", " ", "  ", "\n", "- ", "&a ", "*a", "<<: ", "!!str ", "!!binary ",
    "!!int ", "? ", ": ", "[", "]", "{", "}", ",", "'", '"', "|", ">", "#", "---", "...", "%YAML",
    "0755", "on", "2026-13-40", "1e3", ".nan", "~", "\t", "\\", "\x00", "\ufeff", "é",
]), max_size=60).map("".join)


def _walk(node):
    if isinstance(node, Map):
        for key, value in node.entries:
            yield key
            yield from _walk(value)
    elif isinstance(node, Seq):
        for item in node.items:
            yield from _walk(item)
    if node is not None:
        yield node


@FUZZ
@given(text=yaml_soup)
def test_yaml_loader_on_token_soup(text: str) -> None:
    doc = load_yaml_text(text, "soup.yaml")
    assert isinstance(doc, YamlDoc)
    assert doc.root is None or isinstance(doc.root, Map | Seq | Scalar)
    for problem in doc.problems:
        assert_span_within(problem.span, "soup.yaml", text, "yaml")
    seen = 0
    for node in _walk(doc.root):
        assert_span_within(node.span, "soup.yaml", text, "yaml")
        seen += 1
        if seen > 5000:  # alias-shared subtrees: enough
            break


# ---------------------------------------------------------------- bash reader

BASH_WORDS = [
    "vllm", "serve", "org/m", "python", "python3", "-m", "vllm.entrypoints.openai.api_server",
    "--tensor-parallel-size", "--max-model-len=4k", "$TP", "${TP:-8}", "${X:?}", "${#A[@]}",
    "$(", ")", "`", "'", '"', "<<EOF", "<<-'EOF'", "EOF", ";", "&&", "||", "|", "&", "if",
    "then", "else", "fi", "for", "in", "do", "done", "while", "case", "esac", ";;", "((", "))",
    "[[", "]]", "[", "]", "{", "}", "f()", "function", "export", "TP=2", "A=(1 2)", "local",
    "eval", "bash", "-c", "source", ".", "set", "-euo", "pipefail", "\\\n", "#", "$@", "$1",
    "shift", "docker", "run", "--gpus", "all", "vllm/vllm-openai:v0.21.0", "pip", "install",
    "vllm==0.21.0", ">", "2>&1", "<(", "$((1+2))", "$'\\x41'", "sglang.launch_server",
    "--model-path", "exit", "return", "trap", "alias", "=", "\t", "é", "\x00",
]
soup = st.lists(st.tuples(st.sampled_from(BASH_WORDS), st.sampled_from([" ", "", "\n"])),
               max_size=12).map(lambda parts: "".join(w + s for w, s in parts))
launch_line = st.tuples(st.sampled_from(["vllm serve org/m", "python3 -m vllm.entrypoints.openai"
                                         ".api_server --model org/m", "TP=4 vllm serve $M",
                                         "docker run --gpus all vllm/vllm-openai:v0.21.0"]),
                        soup).map(lambda p: f"{p[0]} {p[1]}")
bash_soup = st.lists(st.one_of(launch_line, soup), max_size=8).map("\n".join)


@FUZZ
@given(body=bash_soup)
def test_bash_reader_on_token_soup(body: str) -> None:
    text = "#!/bin/bash\n" + body
    path = str(SCRATCH / "fuzz.sh")
    result = read_script(path, text, root=str(SCRATCH), time_limit=3.0, max_steps=50_000)
    assert not [p for p in result.problems if INTERNAL in p.message], result.problems
    for problem in result.problems:
        assert isinstance(problem.message, str)
        assert_span_within(problem.span, path, text)
    for spec in result.launches:
        assert_launch_shape(spec, path, text)
    assert isinstance(result.inputs, set)


# ---------------------------------------------------------------- argv normaliser

PROFILE = profiles.load("vllm", "0.21.0")
OPTION_STRINGS = sorted({s for a in PROFILE.actions for s in a.option_strings}) if PROFILE else []
CHOICES = sorted({str(c) for a in PROFILE.actions for c in (a.choices or [])})[:200] \
    if PROFILE else []
VALUES = ["1", "0", "-1", "8", "abc", "", "{", "}", '{"a": 1}', '{"level": 3}', "[1,2]", "1e3",
          "1k", "32K", "0x10", "true", "False", "none", "None", "nan", "inf", "--", "=", "-",
          "-O3", "-O", "--omni", "--config", "x.yaml", "--compilation-config.level=3",
          "--speculative-config.method=ngram", "-tp", "-pp", "--help", "é", "\x00"]
argv_word = st.one_of(
    st.sampled_from(OPTION_STRINGS or ["--x"]), st.sampled_from(VALUES),
    st.sampled_from(CHOICES or ["x"]),
    st.tuples(st.sampled_from(OPTION_STRINGS or ["--x"]), st.sampled_from(VALUES + CHOICES[:50]))
    .map(lambda p: f"{p[0]}={p[1]}"),
    st.sampled_from(OPTION_STRINGS or ["--x"]).map(lambda s: s[: max(3, len(s) // 2)]),
    st.text(max_size=8))


@pytest.mark.skipif(PROFILE is None, reason="no vllm 0.21.0 profile")
@FUZZ
@given(argv=st.lists(argv_word, max_size=25))
def test_vllm_argv_parse_on_random_argv(argv: list[str]) -> None:
    result = vllm_argv.parse(PROFILE, argv)
    assert isinstance(result, vllm_argv.ParseResult)
    assert isinstance(result.ok, bool)
    assert result.ok == (result.error is None)
    if not result.ok:
        assert isinstance(result.error, str) and result.error
    assert result.error_index is None or 0 <= result.error_index < max(1, len(argv))
    for opt in result.options:
        assert isinstance(opt, vllm_argv.ParsedOption)
        assert 0 <= opt.index < len(argv)
        assert opt.value_index is None or 0 <= opt.value_index < len(argv)
    assert all(isinstance(p, str) for p in result.positionals)
    assert all(isinstance(u, str) for u in result.unrecognized)


@pytest.mark.skipif(PROFILE is None, reason="no vllm 0.21.0 profile")
def test_vllm_argv_parse_on_a_huge_argv() -> None:
    argv = ["org/m"] + ["--max-num-seqs", "8"] * 30_000 + ["--no-such-flag"]
    t0 = time.process_time()
    result = vllm_argv.parse(PROFILE, argv)
    assert time.process_time() - t0 < 20  # once quadratic: ~140 s
    assert not result.ok and result.error_index == len(argv) - 1


# ---------------------------------------------------------------- pip grammar

PIP_PREFIXES = [["pip", "install"], ["pip3", "install"], ["python", "-m", "pip", "install"],
                ["python3", "-u", "-m", "pip", "install"], ["uv", "pip", "install"],
                ["python", "-m", "uv", "pip", "install"], ["pipx", "install"],
                ["pip", "-q", "install"], ["pip", "--no-cache-dir", "install"], ["pip"],
                ["python", "-m"], ["uv", "pip"], []]
PIP_WORDS = ["vllm==0.21.0", "vllm", "torch>=2,<3", "foo[bar]~=1.0", "Foo_Bar.baz", "-U",
             "--upgrade", "-r", "req.txt", "--requirement=req.txt", "-e", ".", "./pkg",
             "git+https://host/o/r.git@v1#egg=z", "x-1.0-py3-none-any.whl", "https://h/x.whl",
             "-i", "https://idx/simple", "--extra-index-url", "--index-url=https://i", "-f",
             "--no-deps", "--pre", "$PKG", "${V:-1}", "vllm==${VLLM_VERSION}", "--hash",
             "--hash=sha256:ab", "--require-hashes", "-c", "constraints.txt", "==", "@", "===1",
             "file:///x", "--config-settings", "k=v", "pkg; python_version<'3.9'", "install",
             "--", "-", "--system", "--break-system-packages", "name @ https://h/x.zip", "é"]
pip_line = st.tuples(st.sampled_from(PIP_PREFIXES),
                     st.lists(st.one_of(st.sampled_from(PIP_WORDS), st.text(max_size=10)),
                              max_size=12)).map(lambda p: p[0] + p[1])
KINDS = {"name", "url", "vcs", "path", "wheel", "requirements-file", "editable"}


@FUZZ
@given(words=pip_line)
def test_pip_grammar_on_random_command_lines(words: list[str]) -> None:
    tokens = [Token(w, Span("cmd.sh", 1, 1 + i)) for i, w in enumerate(words)]
    cmd = parse_pip_command(tokens)
    assert cmd is None or isinstance(cmd, PipCommand)
    if cmd is None:
        return
    assert cmd.installer in {"pip", "uv", "pipx"}
    assert isinstance(cmd.upgrade, bool)
    assert all(isinstance(p, str) for p in cmd.problems)
    spans = {id(t.span) for t in tokens}
    for inst in cmd.installs:
        assert isinstance(inst, PackageInstall)
        assert isinstance(inst.requirement, str) and isinstance(inst.specifier, str)
        assert inst.name is None or isinstance(inst.name, str)
        assert inst.kind in KINDS, inst.kind
        assert inst.installer == cmd.installer
        assert inst.span is None or id(inst.span) in spans or (
            inst.span.path == "cmd.sh" and 1 <= inst.span.column <= len(words) + 1)
    for tok in cmd.index_urls:
        assert isinstance(tok, Token)


def test_fuzz_bases_reach_launches() -> None:
    """The unmutated inputs the fuzzers start from produce launches (deep code is reached)."""
    folder = SCRATCH / "models" / "org"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "base.yaml").write_text(yaml.safe_dump(BASE_RECIPE), encoding="utf-8")
    assert render(str(folder / "base.yaml")).renderings
    result = read_script(str(SCRATCH / "b.sh"), "#!/bin/bash\nvllm serve org/m  --max-model-len 4k",
                         root=str(SCRATCH))
    assert len(result.launches) == 1
