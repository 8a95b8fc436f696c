import io
import json
import re
from pathlib import Path

import jsonschema
import pytest
from stub_rules import STUBS, make_finding

import servelint
from servelint.model import Edit, Fix, FixSafety, Severity, Span
from servelint.reporters import FORMATS, default_format, render
from servelint.reporters.excerpt import expand, underline
from servelint.reporters.github import annotation, escape_property
from servelint.reporters.text import TextView, renderings_line, use_color

SCHEMA = Path(servelint.__file__).parent / "data" / "sarif-2.1.0.schema.json"
STUB_METAS = STUBS

SOURCE = "#!/bin/bash\nvllm serve m \\\n  --bogus 1\n"


def sources(path: str) -> str | None:
    return {"r.sh": SOURCE, "wide.sh": "\tx=日本語 --bad\n"}.get(path)


def run(findings, fmt, **kw):
    out = io.StringIO()
    kw.setdefault("read_source", sources)
    render(findings, fmt, stream=out, files_checked=2, profiles_used=[("vllm", "0.27.1")], **kw)
    return out.getvalue()


# ---- text ---------------------------------------------------------------------------------

def test_text_header_excerpt_caret_fix_and_summary():
    f = make_finding("r.sh", 3, 3, end_column=10, fix='remove "--bogus"',
                     renderings=["bf16", "h100"], evidence="vllm/engine/arg_utils.py:10")
    out = run([f], "text", color=False)
    lines = out.splitlines()
    assert lines[0] == "── r.sh · judged against vllm 0.27.1"  # once per file, not per line
    assert lines[1] == 'r.sh:3:3: error[SL101 flag-unknown] unknown flag "--bogus"'
    assert lines[2] == "  3 |   --bogus 1"
    assert lines[3] == "    |   ^^^^^^^"
    assert "  fix: remove \"--bogus\"" in lines
    assert "  2 renderings: bf16, h100" in lines
    assert "  evidence: vllm/engine/arg_utils.py:10" in lines
    assert lines[-2] == "1 error, 0 warnings, 0 info in 2 files checked; judged against vllm 0.27.1"
    assert lines[-1] == "about a rule: servelint explain CODE (SL101)"  # the package holds it


def test_files_checked_may_be_the_list_of_files():
    out = io.StringIO()
    render([], "text", stream=out, files_checked=["a.sh", "b.yaml", "c.md"], color=False)
    assert out.getvalue() == "no problems in 3 files checked\n"


def test_ignored_count_in_summaries():
    assert run([], "text", color=False, ignored=[make_finding()]) == (
        "no problems in 2 files checked, 1 ignored; judged against vllm 0.27.1\n")
    assert json.loads(run([], "json", ignored=3))["summary"]["ignored"] == 3


def test_text_without_findings_or_source():
    assert run([], "text", color=False) == (
        "no problems in 2 files checked; judged against vllm 0.27.1\n")
    out = run([make_finding("missing.yaml", 4, 2)], "text", color=False)
    assert "|" not in out.splitlines()[1]  # no excerpt for an unreadable file


def test_text_sorted_by_position():
    out = run([make_finding("r.sh", 3, 3, message="b"), make_finding("r.sh", 2, 1, message="a")],
              "text", color=False)
    headers = [line for line in out.splitlines() if line.startswith("r.sh:")]
    assert [h.split(":")[1] for h in headers] == ["2", "3"]


def test_text_repeats_in_one_file_print_once_with_their_places():
    found = [make_finding("r.sh", line, 1) for line in (2, 3, 9)]
    out = run(found, "text", color=False, view=TextView(width=100))
    assert [line for line in out.splitlines() if line.startswith("r.sh:")] == [
        'r.sh:2:1: error[SL101 flag-unknown] unknown flag "--bogus"']
    assert "  also at 2 more places: 3:1, 9:1" in out.splitlines()
    assert out.splitlines()[-2].startswith("3 errors,")  # every finding counted


def test_text_names_the_release_per_finding_only_when_a_file_has_several():
    found = [make_finding("r.sh", 2, 1, message="a"),
             make_finding("r.sh", 3, 1, message="b", release="0.33.0")]
    lines = run(found, "text", color=False).splitlines()
    assert lines[0] == "── r.sh · judged against vllm 0.27.1, vllm 0.33.0"
    assert lines[1].endswith("a [vllm 0.27.1]") and lines[4].endswith("b [vllm 0.33.0]")


def test_text_wraps_long_messages_and_crops_long_source_lines():
    long = " ".join(f"word{i}" for i in range(60))
    source = "vllm serve m " + " ".join(f"--flag{i} 1" for i in range(40)) + " --bogus 1"
    column = source.index("--bogus") + 1
    out = run([make_finding("long.sh", 1, column, end_column=column + 7, message=long)], "text",
              color=False, view=TextView(width=100),
              read_source=lambda p: source if p == "long.sh" else None)
    lines = out.splitlines()
    assert all(len(line) <= 100 for line in lines[:-1]), lines
    assert " ".join(w for line in lines[1:6] for w in line.split()).count("word") == 60
    excerpt = next(line for line in lines if line.startswith("  1 | "))
    marks = lines[lines.index(excerpt) + 1]
    assert excerpt.startswith("  1 | …") and "--bogus" in excerpt
    assert excerpt[marks.index("^"):].startswith("--bogus")


def test_summary_names_the_release_range_not_every_release():
    out = io.StringIO()
    render([], "text", stream=out, files_checked=1, color=False,
           profiles_used=[("vllm", v) for v in ("0.10.0", "0.9.2", "0.33.0", "0.27.1")])
    assert out.getvalue() == ("no problems in 1 file checked; judged against "
                              "vllm 0.9.2 … 0.33.0 (4 releases)\n")


def test_summary_says_what_is_hidden_never_no_problems():
    view = TextView(hidden={Severity.WARNING: 2, Severity.INFO: 5}, hidden_by="--min-severity")
    out = io.StringIO()
    render([], "text", stream=out, files_checked=1, color=False, view=view)
    assert out.getvalue() == ("no errors in 1 file checked; 2 warnings, 5 info hidden "
                              "(below --min-severity)\n")
    view = TextView(hidden={Severity.INFO: 1}, hidden_by="--show-info")
    out = io.StringIO()
    render([], "text", stream=out, files_checked=1, color=False, view=view)
    assert out.getvalue() == ("no errors or warnings in 1 file checked; 1 info hidden "
                              "(--show-info shows them)\n")


def test_statistics_and_quiet():
    found = [make_finding("r.sh", 2, 1), make_finding("r.sh", 3, 1),
             make_finding("r.sh", 4, 1, code="SL301", rule="env-deprecated",
                          severity=Severity.WARNING, message="x")]
    out = run(found, "text", color=False, view=TextView(statistics=True))
    assert out.splitlines()[:2] == ["2  SL101  flag-unknown (error)",
                                    "1  SL301  env-deprecated (warning)"]
    quiet = run(found, "text", color=False, view=TextView(quiet=True))
    assert "checked" not in quiet and quiet.startswith("── r.sh")
    assert run([], "text", color=False, view=TextView(quiet=True)) == ""


def test_caret_under_tabs_and_wide_characters():
    line = "\tx=日本語 --bad\n"
    # "--bad" is characters 8..12 (1-based), displayed after a 4-cell tab and 3 wide chars
    shown, marks = underline(line, Span("f", 1, 8, 1, 13))
    assert shown == "    x=日本語 --bad"
    assert marks == " " * 13 + "^" * 5
    # a span on a wide character is two cells wide
    _, marks = underline(line, Span("f", 1, 4, 1, 5))
    assert marks == " " * 6 + "^^"


def test_plain_ascii_lines_take_one_cell_per_character():
    # the shortcut for ASCII lines without tabs gives what the cell-by-cell walk gives
    from servelint.reporters.excerpt import char_width

    line = "vllm serve m --x 1 \x01\x7f~"
    shown, starts = expand(line)
    assert shown == line and starts == list(range(len(line) + 1))
    assert all(char_width(ch) == 1 for ch in line)


def test_caret_without_end_runs_to_token_end_and_multiline_to_line_end():
    _, marks = underline("vllm serve --bogus 1", Span("f", 1, 12))
    assert marks == " " * 11 + "^" * 7
    _, marks = underline("command: |  ", Span("f", 1, 1, 3, 2))
    assert marks == "^" * len("command: |")
    _, marks = underline("", Span("f", 1, 5, 1, 9))  # past the end: still one caret
    assert marks == "^"


def test_renderings_collapse():
    assert renderings_line(["a"]) == "rendering: a"
    assert renderings_line(["a", "b", "a", "c"]) == "3 renderings: a, b, c"
    names = ["bf16 · h100 · single_node_tp"] + [f"r{i}" for i in range(11)]
    assert renderings_line(names) == "12 renderings: bf16 · h100 · single_node_tp, …"


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_color_only_on_tty_and_never_with_no_color():
    assert not use_color(io.StringIO(), {})
    assert use_color(Tty(), {})
    assert not use_color(Tty(), {"NO_COLOR": "1"})
    assert use_color(io.StringIO(), {"FORCE_COLOR": "1"})
    assert "\x1b[" in run([make_finding("r.sh", 3, 3)], "text", color=True)
    assert "\x1b[" not in run([make_finding("r.sh", 3, 3)], "text", color=False)


# ---- json ---------------------------------------------------------------------------------

def test_json_document():
    patch_span = Span("r.sh", 3, 3, 3, 10)
    f = make_finding("r.sh", 3, 3, end_column=10, renderings=["x"], fix="f", evidence="e",
                     related=[Span("r.sh", 2, 1, 2, 5)],
                     autofix=Fix((Edit(patch_span, ""),), FixSafety.UNSAFE, "drop it"))
    doc = json.loads(run([f], "json", extra={"launches": [{"id": 1}]}))
    assert doc["version"] == 1
    assert doc["tool"] == {"name": "servelint", "version": servelint.__version__}
    assert doc["launches"] == [{"id": 1}]
    (item,) = doc["findings"]
    expected = {"rule": "flag-unknown", "code": "SL101", "severity": "error", "path": "r.sh",
                "line": 3, "column": 3, "end_line": 3, "end_column": 10,
                "message": 'unknown flag "--bogus"', "engine": "vllm", "release": "0.27.1",
                "renderings": ["x"], "fix": "f", "evidence": "e"}
    assert {k: item[k] for k in expected} == expected
    assert item["related"] == [{"path": "r.sh", "line": 2, "column": 1, "end_line": 2,
                                "end_column": 5}]
    assert item["patch"]["replacement"] == "" and item["patch"]["line"] == 3
    assert item["autofix"] == {"safety": "unsafe", "description": "drop it", "edits": [
        {"path": "r.sh", "line": 3, "column": 3, "end_line": 3, "end_column": 10,
         "replacement": "", "old": ""}]}
    assert "autofix" not in json.loads(run([make_finding()], "json"))["findings"][0]
    assert doc["summary"] == {"findings": 1, "errors": 1, "warnings": 0, "info": 0, "ignored": 0,
                              "files_checked": 2, "profiles_used": ["vllm 0.27.1"]}


def test_json_extra_keys_cannot_replace_reserved_ones():
    with pytest.raises(ValueError, match="findings"):
        run([], "json", extra={"findings": []})


# ---- sarif --------------------------------------------------------------------------------

def sarif_findings():
    return [
        make_finding("r.sh", 3, 3, end_column=10, renderings=["bf16", "h100"],
                     related=[Span("r.sh", 2, 1, 2, 5)],
                     autofix=Fix((Edit(Span("r.sh", 3, 3, 3, 10), "--ok"),), FixSafety.SAFE,
                                 "rename"), fix="rename"),
        make_finding("dir with space/é.yaml", 1, 1, code="SL301", rule="env-deprecated",
                     severity=Severity.WARNING, end_line=None),
        make_finding("/abs/elsewhere.sh", 7, 2, code="SL999", rule="not-in-catalog",
                     severity=Severity.INFO),
    ]


def test_sarif_validates_against_official_schema():
    schema = json.loads(SCHEMA.read_text())
    doc = json.loads(run(sarif_findings(), "sarif", rules=STUB_METAS))
    validator = jsonschema.Draft4Validator(schema,
                                           format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=str)
    assert not errors, errors[0]
    # the validator is not vacuous: a result without a message is rejected
    del doc["runs"][0]["results"][0]["message"]
    assert list(validator.iter_errors(doc))


def test_sarif_rules_results_and_properties():
    doc = json.loads(run(sarif_findings(), "sarif", rules=STUB_METAS))
    run0 = doc["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["SL101", "SL301", "SL999"]
    assert rules[0]["help"]["text"].startswith("flag not accepted by the release")
    assert "```bash bad" in rules[0]["help"]["markdown"]
    assert "helpUri" not in rules[0]  # no absolute docs URL declared: none invented
    # the installed package holds each rule's page (a repository path it does not ship is
    # no pointer a user can follow)
    assert rules[0]["properties"]["docs"] == "servelint explain SL101"
    assert rules[0]["help"]["text"].endswith("more: servelint explain SL101")
    assert rules[1]["defaultConfiguration"]["level"] == "warning"
    results = run0["results"]
    by_rule = {r["ruleId"]: r for r in results}
    assert [r["level"] for r in results] == ["note", "warning", "error"]  # sorted by path
    first = by_rule["SL101"]
    assert rules[first["ruleIndex"]]["id"] == "SL101"
    assert first["properties"] == {"engine": "vllm", "release": "0.27.1",
                                   "renderings": ["bf16", "h100"], "fix": "rename"}
    loc = first["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "r.sh"
    assert loc["region"] == {"startLine": 3, "startColumn": 3, "endLine": 3, "endColumn": 10}
    assert first["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"] == {
        "text": "--ok"}
    assert by_rule["SL301"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "dir%20with%20space/%C3%A9.yaml")
    assert by_rule["SL999"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "file:///abs/elsewhere.sh")
    assert run0["columnKind"] == "unicodeCodePoints"


def test_sarif_uses_registry_by_default(monkeypatch):
    from servelint.rules import registry

    monkeypatch.setattr(registry, "rules", lambda: tuple(reversed(STUBS)))
    doc = json.loads(run([], "sarif"))
    ids = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
    assert ids == ["SL101", "SL301"]


# ---- github -------------------------------------------------------------------------------

def test_github_annotation_and_escaping():
    f = make_finding("a,b:c.yaml", 3, 3, end_column=10, message="50% of\nlines",
                     fix="do x")
    assert annotation(f) == (
        "::error file=a%2Cb%3Ac.yaml,line=3,col=3,endLine=3,endColumn=10,"
        "title=SL101 flag-unknown::50%25 of%0Alines (judged against vllm 0.27.1)%0Afix: do x")
    warn = make_finding("r.sh", 1, 1, severity=Severity.WARNING, end_line=2, end_column=4)
    assert annotation(warn).startswith("::warning file=r.sh,line=1,col=1,endLine=2,title=")
    assert annotation(make_finding(severity=Severity.INFO)).startswith("::notice ")
    assert escape_property("x\r%") == "x%0D%25"


def test_github_paths_are_relative_to_the_workspace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    inside = make_finding(str(tmp_path / "recipes" / "r.yaml"))
    assert annotation(inside).startswith("::error file=recipes/r.yaml,")
    assert annotation(make_finding("/elsewhere/r.yaml")).startswith("::error file=/elsewhere/r.yaml,")


def test_github_output_has_one_command_per_finding():
    out = run([make_finding("r.sh", 3, 3), make_finding("r.sh", 2, 1)], "github")
    assert len(re.findall(r"^::error ", out, re.M)) == 2
    assert out.splitlines()[-1].startswith("servelint: 2 findings in 2 files checked")


def test_default_format():
    assert default_format({"GITHUB_ACTIONS": "true"}) == "github"
    assert default_format({}) == "text"
    assert default_format({"GITHUB_ACTIONS": "false"}) == "text"


def test_unknown_format():
    assert set(FORMATS) == {"text", "json", "sarif", "github"}
    with pytest.raises(ValueError, match="unknown output format"):
        run([], "xml")


def test_sarif_lists_ignored_findings_as_suppressed():
    kept = make_finding("r.sh", 3, 3)
    silenced = make_finding("r.sh", 2, 1, code="SL121", rule="env-unknown",
                            severity=Severity.WARNING)
    doc = json.loads(run([kept], "sarif", rules=STUB_METAS, ignored=[silenced]))
    results = doc["runs"][0]["results"]
    assert [(r["ruleId"], r.get("suppressions")) for r in results] == [
        ("SL101", None), ("SL121", [{"kind": "inSource"}])]
    validator = jsonschema.Draft4Validator(json.loads(SCHEMA.read_text()))
    assert not list(validator.iter_errors(doc))
