"""Findings of many renderings of one place merge into one listing each rendering once."""

from __future__ import annotations

from servelint.model import Finding, Severity, Span
from servelint.pipeline.merge import join_same_place, merge, name_the_launch


def _finding(
    renderings: list[str], severity: Severity = Severity.WARNING, line: int = 3
) -> Finding:
    return Finding(
        "flag-unknown",
        "SL101",
        severity,
        "m",
        Span("r.yaml", line, 1),
        release="0.33.0",
        renderings=renderings,
    )


def test_renderings_listed_once_in_first_seen_order_with_the_worst_severity() -> None:
    out = merge(
        [
            _finding(["a", "b"]),
            _finding(["b", "c", "a"], Severity.ERROR),
            _finding(["d", "c"]),
            _finding(["x"], line=1),
        ]
    )
    assert [(f.span.line, f.renderings, f.severity) for f in out] == [
        (1, ["x"], Severity.WARNING),
        (3, ["a", "b", "c", "d"], Severity.ERROR),
    ]


def _flag(flag: str, renderings: list[str], path: str = "strategies/multi_node_tp.yaml") -> Finding:
    # the three flags a multi-node strategy line adds (vllm-recipes strategies/multi_node_tp.yaml:14)
    return Finding(
        "flag-unknown",
        "SL101",
        Severity.WARNING,
        f'flag "{flag}" does not exist in vllm 0.10.0; it first appears in vllm 0.11.1',
        Span(path, 14, 16),
        release="0.10.0",
        renderings=renderings,
        fix="pin vllm >= 0.11.1 (an image that has it), or drop the flag",
    )


def test_one_cause_at_one_place_is_one_finding_naming_every_flag() -> None:
    out = join_same_place(
        [
            _flag("--master-addr", ["node 0/2"]),
            _flag("--nnodes", ["node 0/2", "node 1/2"]),
            _flag("--node-rank", ["node 1/2"]),
            _flag("--nnodes", ["node 0/2"], path="strategies/pd_cluster.yaml"),
        ]
    )
    assert [(f.span.path, f.message, f.renderings) for f in out] == [
        (
            "strategies/multi_node_tp.yaml",
            'flag "--master-addr" (also "--nnodes", "--node-rank") does not exist in vllm '
            "0.10.0; it first appears in vllm 0.11.1",
            ["node 0/2", "node 1/2"],
        ),
        (
            "strategies/pd_cluster.yaml",
            'flag "--nnodes" does not exist in vllm 0.10.0; it first appears in vllm 0.11.1',
            ["node 0/2"],
        ),
    ]


def test_a_finding_in_a_shared_file_names_the_recipe_it_was_rendered_for(tmp_path) -> None:  # noqa: ANN001
    recipe = tmp_path / "models" / "org" / "m.yaml"
    recipe.parent.mkdir(parents=True)
    recipe.write_text("model: {}\n")
    shared = _flag("--nnodes", ["node 0/2"], path=str(tmp_path / "strategies" / "tp.yaml"))
    own = _flag("--nnodes", ["node 0/2"], path=str(recipe))
    note = _flag("--nnodes", [], path=str(tmp_path / "strategies" / "tp.yaml"))  # no launch
    name_the_launch(str(recipe), [shared, own, note])
    assert shared.message.endswith(" (rendered for models/org/m.yaml)")
    assert "rendered for" not in own.message
    assert "rendered for" not in note.message
