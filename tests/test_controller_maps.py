"""Controller maps: the generator reads a controller's Go the way the committed maps say, and
a map evaluated against an object gives the container the Go would build.

The Go below is shaped like the two controllers mapped (production-stack's
``deploymentForVLLMRuntime``, kubeai's ``vLLMPodForModel``), written here."""

from __future__ import annotations

import sys
from pathlib import Path

from servelint.sources.common.yamlpos import load_yaml_stream
from servelint.sources.kubernetes.controllers import CONTROLLER_MAPS, controller_record
from servelint.sources.kubernetes.objects import objects_of

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from gen_controller_maps import Extractor, parse_types  # noqa: E402

TYPES = """\
type Thing struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec ThingSpec `json:"spec,omitempty"`
}
type ThingSpec struct {
	// +kubebuilder:default=8000
	Port int32 `json:"port,omitempty"`
	Fast bool `json:"fast,omitempty"`
	Extra []string `json:"extraArgs,omitempty"`
	Model string `json:"modelURL"`
}
"""

FUNC = """\
	args := []string{
		t.Spec.Model,
		"--port",
		fmt.Sprintf("%d", t.Spec.Port),
	}
	if t.Spec.Fast {
		args = append(args, "--fast")
	} else {
		args = append(args, "--no-fast")
	}
	mode := "a"
	if t.Spec.Model == "x" {
		mode = "b"
	}
	args = append(args, "--mode", mode, "--name=" + t.Name)
	if t.Spec.Extra != nil {
		args = append(args, t.Spec.Extra...)
	}
	env := []corev1.EnvVar{}
	env = append(env, corev1.EnvVar{
		Name:  "A",
		Value: "1",
	})
"""


def _extract() -> dict:
    ex = Extractor(parse_types(TYPES), "t", "Thing", "x.go")
    ex.run(FUNC.split("\n"), 10)
    return {"repo": "o/r", "commit": "0" * 40, "source": "x.go:1-30", "group": "g", "kind":
            "Thing", "command": {"line": 1, "words": [{"text": "serve"}]},
            "image": {"line": 1, "value": {"text": "img:1"}}, "args": ex.args, "env": ex.env,
            "locals": ex.locals, "derived": {}}


def _record(cmap: dict, spec: str):
    text = f"apiVersion: g/v1\nkind: Thing\nmetadata:\n  name: n\nspec:\n{spec}"
    docs, _ = load_yaml_stream(text, "t.yaml")
    return controller_record(objects_of(docs[0])[0], cmap, "t.yaml", "kubernetes")


def test_types_give_json_paths_defaults_and_embedded_metadata() -> None:
    types = parse_types(TYPES)
    assert types["ThingSpec"]["Port"] == ("port", "int32", "8000")
    assert types["Thing"]["ObjectMeta"][0] == "metadata"
    ex = Extractor(types, "t", "Thing", "x.go")
    assert ex.field("t.Spec.Extra")["field"] == "spec.extraArgs"
    assert ex.field("t.Name")["field"] == "metadata.name"
    assert ex.expr("t.Spec.Other") == {"unknown": "t.Spec.Other"}


def test_steps_conditions_defaults_and_spans() -> None:
    cmap = _extract()
    record, notes = _record(cmap, "  modelURL: org/m\n  extraArgs: [--x, '1']\n")
    assert [t.text for t in record.words] == [
        "org/m", "--port", "8000", "--no-fast", "--mode", "a", "--name=n", "--x", "1"]
    assert not notes and [e.name for e in record.env] == ["A"]
    assert record.words[0].span.line == 6  # the field's own line
    record, _ = _record(cmap, "  modelURL: x\n  fast: true\n  port: 9\n")
    assert [t.text for t in record.words] == [
        "x", "--port", "9", "--fast", "--mode", "b", "--name=n"]
    assert record.words[3].span.line == 7  # a literal flag: the field its condition tests


def test_an_expression_the_map_cannot_place_is_symbolic_and_its_condition_a_note() -> None:
    cmap = _extract()
    cmap["args"][1]["when"] = {"left": {"unknown": "r.Config.Fast"}, "op": "true"}
    record, notes = _record(cmap, "  modelURL: $_T_____________\n")  # a template's value
    assert record.words[0].symbolic and record.words[0].text.startswith("$_T")
    assert len(notes) == 1 and "not decided" in notes[0].message


def test_committed_maps_name_their_source_and_every_step_a_line() -> None:
    for cmap in CONTROLLER_MAPS:
        assert len(cmap["commit"]) == 40 and cmap["source"].endswith(tuple("0123456789"))
        assert cmap["command"]["words"] and all(s["line"] > 0 for s in cmap["args"])
