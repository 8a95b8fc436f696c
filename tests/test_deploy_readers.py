"""The deployment readers' parts: scalar text placed at its columns, template placeholders,
the Go-template renderer, the kubelet's $(VAR) expansion, which reader claims a file (by
content, never by folder name), and bad input of every deployment kind (a finding, never a
traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelint.check import Options, check_paths
from servelint.model import EnvVar
from servelint.sources.common.yamlpos import Map, Scalar, at, load_yaml_stream
from servelint.sources.container.scalar_text import placed_text
from servelint.sources.helm.gotemplate import Renderer
from servelint.sources.kubernetes.containers import expand_refs
from servelint.sources.registry import reader_for
from servelint.sources.templates.text import PLACEHOLDER, prepare


def _scalar(text: str, *keys: str | int) -> tuple[list[str], Scalar]:
    docs, problems = load_yaml_stream(text, "t.yaml")
    assert not problems
    node = at(docs[0], *keys)
    assert isinstance(node, Scalar)
    return text.split("\n"), node


def _words_at(placed_text_: str, word: str) -> tuple[int, int]:
    for row, line in enumerate(placed_text_.split("\n")):
        col = line.find(word)
        if col >= 0:
            return row, col
    raise AssertionError(word)


def test_literal_block_keeps_lines_and_columns_and_its_own_continuations() -> None:
    text = "args:\n  - |\n    exec vllm serve m \\\n      --tp 2\nnext: 1\n"
    lines, node = _scalar(text, "args", 0)
    placed = placed_text(lines, node)
    assert placed is not None and placed.line_offset == 1
    assert _words_at(placed.text, "--tp") == (2, 6)  # file line 4, column 7
    assert "next" not in placed.text  # the next key's line is not the scalar's


def test_folded_and_flow_scalars_fold_with_a_continuation() -> None:
    text = "command: >\n  --model m\n  --served-model-name q\nx: 1\n"
    lines, node = _scalar(text, "command")
    placed = placed_text(lines, node)
    assert placed is not None
    assert placed.text.split("\n")[1].endswith(" \\")
    text = 'c: "python3 -m vllm.entrypoints.openai.api_server;\n   --port 8080"\n'
    lines, node = _scalar(text, "c")
    placed = placed_text(lines, node)
    assert placed is not None and _words_at(placed.text, "--port") == (1, 3)


def test_escaped_double_quoted_scalar_is_not_placed() -> None:
    lines, node = _scalar('c: "vllm serve \\"m\\" --tp 2"\n', "c")
    assert placed_text(lines, node) is None  # its words are spanned at the scalar instead


def test_template_expressions_become_same_length_placeholders() -> None:
    text = ('image: "{{ .Values.image }}:{{ .Values.tag }}"\n'
            "{{- if .Values.a }}\n- --a\n{{- else }}\n- --b\n{{- end }}\n"
            "args:\n  {{- toYaml .Values.args | nindent 2 }}\n")
    prepared = prepare(text)
    out = prepared.text.split("\n")
    assert len(prepared.text) == len(text)
    assert PLACEHOLDER.search(out[0]) and len(out[0]) == len(text.split("\n")[0])
    assert "--a" in prepared.text and "--b" not in prepared.text  # one rendering
    assert prepared.unknown_lines == {8}
    assert prepare("x: ${v}\n%{ for k in l ~}\n  ${k}: 1\n%{ endfor ~}\n").text.count("for") == 0


def test_go_template_renderer_keeps_the_span_of_each_value() -> None:
    docs, _ = load_yaml_stream("spec:\n  - name: a\n    on: true\n    n: 4\n", "v.yaml")
    root = docs[0]
    item = at(root, "spec", 0)
    top = Map([(Scalar("Values", root.span), root)], root.span)
    out = Renderer(top, {"$": top, "$m": item}, item.span).render(
        '{{- if $m.on }}\n- "--flag"\n- {{ $m.n | quote }}\n{{- else }}\n- "--off"\n{{- end }}\n'
        "- '{\"k\": {{ $m.name | quote }}}'\n- {{ include \"x\" . }}\n")
    lines = [line for line in out.lines if line.parts]
    flag, value, json_line, unknown = lines
    assert flag.parts == ['- "--flag"'] and flag.context.line == 3  # `on: true` put it there
    assert value.parts[1].text == "4" and value.parts[1].span.line == 4 and value.parts[1].quoted
    assert json_line.parts[1].text == "a"
    assert unknown.parts[1].symbolic


def test_kubelet_expansion() -> None:
    env = {"A": EnvVar("A", "x"), "S": EnvVar("S", "$S", None, True)}
    assert expand_refs("--m=$(A)/$$(A)", env) == ("--m=x/$(A)", False)
    assert expand_refs("$(S):$(UNSET)", env) == ("$(S):$(UNSET)", True)


@pytest.mark.parametrize(("name", "text", "kind"), [
    ("models/org/m.yaml", "apiVersion: v1\nkind: Pod\nspec: {}\n", "kubernetes"),
    ("models/org/m.yaml", "model:\n  model_id: a/b\n", "recipe"),
    ("values.yaml", "servingEngineSpec:\n  modelSpec: []\n", "helm"),
    ("t/deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nx: {{ .Values.x }}\n", "helm"),
    ("compose.yaml", "services:\n  a:\n    image: x\n", "compose"),
    ("any.yml", "services:\n  a:\n    command: [vllm, serve]\n", "compose"),
    ("task.yaml", "resources:\n  cpus: 1\nrun: vllm serve m\n", "skypilot"),
    ("x.sh.j2", "vllm serve {{ model }}\n", "template"),
    ("notes.yaml", "image: vllm/vllm-openai:v0.21.0\n", "unread"),
])
def test_readers_claim_by_content(tmp_path: Path, name: str, text: str, kind: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    reader = reader_for(path)
    assert reader is not None and reader.name == kind


BAD = [
    ("k.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers: 5\n"),
    ("k.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command: 5\n    env: 3\n"
               "    args: [{a: b}]\n    image: [1]\n    volumeMounts: x\n  volumes: 7\n"),
    ("k.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command: [sh, -c, '\n"),
    ("k.yaml", "apiVersion: v1\nkind: Pod\n\x00\x01binary\xff"),
    ("compose.yaml", "services: [1, 2]\n"),
    ("compose.yaml", "services:\n  a:\n    image: vllm/vllm-openai:v0.21.0\n    command: {x: 1}\n"
                     "    environment: 5\n"),
    ("task.yaml", "resources: 5\nenvs: [1]\nsetup: 3\nrun: |\n  vllm serve m --tp 2\n"),
    ("values.yaml", "servingEngineSpec:\n  modelSpec:\n  - 5\n  - {vllmConfig: 3, tag: [1]}\n"),
    ("values.yaml", "servingEngineSpec:\n  modelSpec: {a: 1}\n"),
    ("x.tpl", "{{ define \"x\" }}\n{{ end }}\n{{ unclosed\n"),
    ("t/deploy.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command:\n"
                      "    {{- toYaml .Values.c | nindent 4 }}\n    image: {{ .Values.i }}\n"),
]


@pytest.mark.parametrize(("name", "text"), BAD)
def test_bad_deployment_input_is_a_finding_never_a_traceback(tmp_path: Path, name: str,
                                                             text: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    report = check_paths([str(path)], Options(use_cache=False))
    assert all("internal reader error" not in f.message for f in report.findings)
    assert report.stats["files"] == 1


def test_other_branches_take_each_else_and_keep_ifs_without_one() -> None:
    text = ("{{ if .a }}\nx: 1\n{{ else if .b }}\nx: 2\n{{ else }}\nx: 3\n{{ end }}\n"
            "{{ if .c }}\ny: 1\n{{ end }}\n")
    first, other = prepare(text), prepare(text, other_branches=True)
    assert first.text.split() == ["x:", "1", "y:", "1"]
    assert other.text.split() == ["x:", "3", "y:", "1"]  # the if with no else keeps its body
    assert other.branches == 2 and len(other.text) == len(text)
