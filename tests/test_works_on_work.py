"""``--works-on``'s work, counted (not timed): what a launch costs across the releases.

Engine facts come from the committed profiles: each test first reads which releases hold the
flag it uses."""

import collections
import json
import os
import random
from pathlib import Path

import pytest

from servelint import profiles
from servelint.cli import main
from servelint.pipeline import judge


def _removed_switch() -> str:
    """A ``--switch`` (no value) of the oldest vLLM profile that the newest lacks."""
    releases = profiles.available("vllm")
    if len(releases) < 3:
        pytest.skip("too few committed vLLM profiles")
    old, new = profiles.load("vllm", releases[0]), profiles.load("vllm", releases[-1])
    for name, act in sorted(old.option_index.items()):
        if name.startswith("--") and name not in new.option_index and act.kind == "store_true":
            return name
    pytest.skip("no switch removed between the oldest and the newest profile")


def test_a_failing_launch_is_checked_once_per_release(tmp_path, capsys, monkeypatch):
    """A launch with an error on the newest release gets its range verdict (the releases its
    error holds on) and its works-on count from the same checks: each release is checked
    once (the range verdict's errors and the works-on verdict were two checks of one
    release)."""
    flag = _removed_switch()
    checked: collections.Counter[tuple[str, ...]] = collections.Counter()
    real = judge._findings

    def counting(spec, options, res, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        checked[tuple(t.profile.version for t in res.targets if t.role == "primary")] += 1
        return real(spec, options, res, *args, **kwargs)

    monkeypatch.setattr(judge, "_findings", counting)
    script = tmp_path / "serve.sh"
    script.write_text(f"vllm serve org/m {flag}\n")
    main(["check", str(script), "--no-cache", "--works-on", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    works = report["launches"][0]["works_on"]
    assert works["first"] == profiles.available("vllm")[0]
    assert works["last"] != profiles.available("vllm")[-1]
    assert any(f["rule"] == "flag-unknown" for f in report["findings"])
    assert checked and max(checked.values()) == 1, checked.most_common(3)


def test_exhaustive_works_on_equals_checking_every_release():
    """The candidates (flags every release lacks, values it rejects: skipped unchecked) give
    the same count and endpoints as checking every release, on real recipes."""
    from servelint.pipeline.discover import discover
    from servelint.pipeline.options import Options
    from servelint.pipeline.read import read_job
    from servelint.releases import works_on as works_on_mod
    from servelint.sources.base import ReadContext

    corpus = Path(os.environ.get("SERVELINT_CORPUS", Path(__file__).resolve().parents[2] / "shared"
                                 / "corpus")) / "vllm-recipes"
    if not corpus.is_dir():
        pytest.skip("corpus not beside the checkout")
    opts = Options()
    specs = []
    for org in ("MiniMaxAI", "deepseek-ai"):
        for job in discover([str(corpus / "models" / org)], opts):
            specs.extend(read_job(job, ReadContext()).specs)
    random.seed(5)
    checked = 0
    for spec in random.sample(specs, 25):
        judge.check_spec(spec, opts)
        found = works_on_mod.works_on(spec, judge.passes_on, exhaustive=True)
        if found is None:
            continue
        passing = [r for r in profiles.available("vllm") if judge.passes_on(spec, r)]
        checked += 1
        assert found == {
            "first": passing[0] if passing else None,
            "last": passing[-1] if passing else None,
            "releases": len(passing),
        }, spec.rendering
    assert checked > 10
