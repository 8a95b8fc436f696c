"""`vllm serve` argv emulation: behaviours on a hand-made release, the real verdicts of
the oracle, and a differential run against CPython's own argparse."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import zipfile
from pathlib import Path

import pytest

from servelint import profiles
from servelint.builders.vllm import parser as vllm_parser
from servelint.builders.wheel import WheelSource
from servelint.engines.vllm import argv as vllm_argv
from servelint.engines.vllm.argv import check_json_config, json_config_problems, parse
from servelint.profiles import Profile

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "data" / "vllm_parser" / "fakevllm"
ORACLE = ROOT.parent / "shared" / "tools" / "oracle" / "out"
ORACLE_RELEASES = ["0.11.0", "0.21.0", "0.27.1", "0.33.0"]


@pytest.fixture(scope="module")
def fake(tmp_path_factory) -> Profile:
    wheel = tmp_path_factory.mktemp("fakewheel") / "vllm-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for f in sorted(FAKE.rglob("*")):
            if f.is_file() and (f.suffix == ".py" or f.name == "METADATA"):
                zf.write(f, f.relative_to(FAKE).as_posix())
    data = {"format": 1, "engine": "vllm", "version": "9.9.9"}
    data.update(vllm_parser.extract(WheelSource(wheel), data))
    return Profile(data)


def opt(result, dest):
    return [o for o in result.options if o.action is not None and o.action.dest == dest]


# ---- behaviours (always run) -------------------------------------------------------------------
def test_underscores_equals_and_positional(fake):
    r = parse(fake, ["org/m", "--tensor_parallel_size=2", "--max_model_len", "4096"])
    assert r.ok and r.positionals == ["org/m"]
    (tp,) = opt(r, "tensor_parallel_size")
    assert (tp.written, tp.canonical, tp.value, tp.index, tp.value_index) == (
        "--tensor_parallel_size=2", "--tensor-parallel-size", "2", 1, 1)
    (ml,) = opt(r, "max_model_len")
    assert (ml.value, ml.index, ml.value_index) == ("4096", 2, 3)


def test_abbreviation_and_ambiguity(fake):
    r = parse(fake, ["m", "--tensor-par", "2"])
    assert r.ok and opt(r, "tensor_parallel_size")[0].abbreviated
    r = parse(fake, ["m", "--enable", "x"])
    assert not r.ok and r.error.startswith("ambiguous option: --enable could match")
    assert r.error_index == 1


def test_unknown_and_value_errors(fake):
    r = parse(fake, ["m", "--no-such-flag", "1"])
    assert not r.ok and r.error == "unrecognized arguments: --no-such-flag 1"
    assert r.error_index == 1 and r.error_kind == "argparse"
    r = parse(fake, ["m", "-tp", "two"])
    assert not r.ok and "invalid int value: 'two'" in r.error and r.error_index == 2
    r = parse(fake, ["m", "--dtype", "fp7"])
    assert not r.ok and "invalid choice: 'fp7'" in r.error
    r = parse(fake, ["m", "--max-model-len"])
    assert not r.ok and r.error.endswith("expected one argument")
    r = parse(fake, ["m", "--enforce-eager=true"])
    assert not r.ok and "ignored explicit argument 'true'" in r.error
    r = parse(fake, ["m", "--enforce-eager", "true"])  # a flag takes no value
    assert not r.ok and r.error == "unrecognized arguments: true" and r.error_index == 2


def test_choices_optional_none_and_lambda_type(fake):
    assert parse(fake, ["m", "-q", "None"]).ok  # optional Literal: None appended
    assert parse(fake, ["m", "--moe-backend", "FLASHINFER-CUTLASS"]).ok  # lowered, - -> _
    assert not parse(fake, ["m", "--moe-backend", "nope"]).ok
    assert not parse(fake, ["m", "--all2all-backend", "passthrough"]).ok  # removed choice
    assert parse(fake, ["m", "--tokenizer-mode", "anything"]).ok  # Literal | str


def test_negative_numbers_and_double_dash(fake):
    r = parse(fake, ["m", "-tp", "-1"])
    assert r.ok and opt(r, "tensor_parallel_size")[0].value == "-1"
    r = parse(fake, ["m", "--", "--port"])
    assert not r.ok and r.error == "unrecognized arguments: --port"
    # a negative decimal is taken as a dotted key and eats the next token (real quirk)
    r = parse(fake, ["m", "--max-model-len", "-0.5"])
    assert not r.ok and r.error_kind == "exception"


def test_boolean_optional_and_enable_disable(fake):
    for flag in ("--enable-thing", "--disable-thing", "--no-enable-thing"):
        assert parse(fake, ["m", flag]).ok, flag
    assert parse(fake, ["m", "--no-enforce-eager"]).ok
    assert parse(fake, ["m", "--reasoning"]).ok and parse(fake, ["m", "--reasoning", "x"]).ok


def test_dash_O_and_dotted_keys(fake):
    r = parse(fake, ["m", "-O1"])
    assert r.ok and opt(r, "optimization_level")[0].value == "1"
    r = parse(fake, ["m", "-O", "1"])
    assert r.ok and opt(r, "optimization_level")[0].index == 1
    assert not parse(fake, ["m", "-O", "7"]).ok  # -O stays -O: unknown
    r = parse(fake, ["m", "--attention_config.kv_dtype", "fp8", "-ac.use_fast", "true"])
    assert r.ok
    paths = [(o.written, o.config_path, o.index, o.value_index, o.dotted)
             for o in opt(r, "attention_config")]
    assert paths == [("--attention_config.kv_dtype", "attention_config.kv_dtype", 1, 2, True),
                     ("-ac.use_fast", "attention_config.use_fast", 3, 4, True)]
    r = parse(fake, ["m", "--attention-config.kv_dtype", "fp4"])
    assert not r.ok and "fp4" in r.error and r.error_index == 1
    r = parse(fake, ["m", "-ac.use_fast", "true", "--attention-config.nope", "1"])
    assert not r.ok and r.error_index == 3  # extra="forbid": points at the bad key
    assert parse(fake, ["m", "--attention-config.backend", "flash"]).ok  # names, any case
    assert parse(fake, ["m", "--attention-config.backend", "auto"]).ok
    assert not parse(fake, ["m", "--attention-config.backend", "nope"]).ok


def test_model_flag_config_file_and_omni(fake):
    r = parse(fake, ["-tp", "2", "--model", "org/m"])
    assert r.ok and r.positionals == ["org/m"]
    (m,) = opt(r, "model")
    assert (m.index, m.value_index) == (2, 3)
    assert opt(r, "tensor_parallel_size")[0].index == 0
    r = parse(fake, ["m", "--config", "cfg.yaml", "-tp", "2"])
    assert r.ok and r.config_file == "cfg.yaml"
    r = parse(fake, ["m", "--omni"])
    assert not r.ok and r.error_kind == "exception" and r.stage == "main"


def test_json_config_checks_and_stages(fake):
    att = fake.by_dest["attention_config"]
    spec = fake.by_dest["speculative_config"]
    assert vllm_argv.json_config_stage(fake, att) == "parse"
    assert vllm_argv.json_config_stage(fake, spec) == "engine_config"
    assert check_json_config(fake, att, '{"kv_dtype": "bf16"}') == []
    problems = json_config_problems(fake, spec, '{"method": "medusa", "bogus": 1}')
    assert {(p.path, p.stage) for p in problems} == {
        ("speculative_config.method", "engine_config"),
        ("speculative_config.bogus", "engine_config")}
    assert parse(fake, ["m", "--speculative-config", '{"bogus": 1}']).ok  # judged later
    assert not parse(fake, ["m", "--speculative-config", "{not json"]).ok
    bad = json_config_problems(fake, spec, '{"num_speculative_tokens": "many"}')
    assert [p.path for p in bad] == ["speculative_config.num_speculative_tokens"]
    assert check_json_config(fake, att, "{oops")[0].endswith("[parse]")


def test_the_parse_keeps_a_json_values_problems_for_the_rules(fake):
    """config-invalid and the verdicts read a JSON value's problems from the parsed option
    (``json_problems``): the same problems ``json_config_problems`` finds for that text."""
    value = '{"method": "medusa", "bogus": 1}'
    found = parse(fake, ["m", "--speculative-config", value, "--attention-config", "{}"])
    by_flag = {o.canonical: o for o in found.options}
    kept = by_flag["--speculative-config"].json_problems
    asked = json_config_problems(fake, fake.by_dest["speculative_config"], value)
    assert kept is not None and len(kept) == 2
    assert [(p.path, p.message, p.stage) for p in kept] == [
        (p.path, p.message, p.stage) for p in asked]
    assert by_flag["--attention-config"].json_problems == ()
    assert parse(fake, ["m", "--max-model-len", "4"]).options[0].json_problems is None


# ---- the real parser's verdicts (oracle), on committed profiles -----------------------------
def _profile(version: str) -> Profile:
    prof = profiles.load("vllm", version)
    if prof is None or not prof.actions:
        pytest.skip(f"no committed vllm {version} profile")
    return prof


def _real_parse_ok(result: dict) -> bool:
    stages = result["stages"]
    if "main" in stages and not stages["main"].get("ok", True):
        return False
    if "parse" in stages:
        return bool(stages["parse"]["ok"])
    return result["rejected_at"] not in ("main", "parse")


@pytest.mark.parametrize("version", ORACLE_RELEASES)
def test_parse_verdicts_agree_with_real_parser(version):
    path = ORACLE / version / "checks.json"
    if not path.is_file():
        pytest.skip("oracle verdicts not available")
    prof = _profile(version)
    disagreements = []
    cases = json.loads(path.read_text())["results"]
    for case in cases:
        argv = case["argv"][1:]
        result = parse(prof, argv)
        if "--config" in argv:  # the file is not read: its content (and existence) is unknown
            assert result.config_file == argv[argv.index("--config") + 1]
            continue
        if result.ok != _real_parse_ok(case):
            disagreements.append((argv, case.get("message"), result.error))
    assert len(cases) > 40
    assert disagreements == []


# ---- differential: the argparse layer against CPython's argparse ------------------------------
class _Flag(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, True)


def _real_parser(prof: Profile) -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="vllm")
    sub = top.add_subparsers(dest="subparser")
    serve = sub.add_parser("serve", allow_abbrev=prof.allow_abbrev)
    for act in prof.actions:
        if act.kind == "help":
            continue

        def typ(value, act=act):
            ok, converted, message = vllm_argv._convert(act, value)
            if not ok:
                raise argparse.ArgumentTypeError(message)
            err = vllm_argv._check_choice(act, converted, value)
            if err:
                raise argparse.ArgumentTypeError(err)
            return value

        if act.raw.get("positional"):
            serve.add_argument(act.dest, nargs=act.nargs, type=typ)
        elif act.kind in vllm_argv.FLAG_KINDS:
            serve.add_argument(*act.accepted, dest=act.dest, action=_Flag)
        else:
            kwargs = {"nargs": act.nargs} if act.nargs is not None else {}
            if act.kind == "append":
                kwargs["action"] = "append"
            serve.add_argument(*act.accepted, dest=act.dest, type=typ, **kwargs)
    return top


def _random_argv(prof: Profile, rnd: random.Random) -> list[str]:
    opts = [s for a in prof.actions for s in a.accepted
            if a.kind != "help" and a.raw.get("type") not in ("json", "json_dataclass")]
    vals = ["1", "2", "x", "-1", "--", "0", "true", "auto", "a,b", ""]
    argv = [rnd.choice(["m", "org/model"])] if rnd.random() < 0.8 else []
    for _ in range(rnd.randint(0, 6)):
        flag = rnd.choice(opts)
        roll = rnd.random()
        if roll < 0.15:
            flag = flag[: rnd.randint(2, len(flag))]
        elif roll < 0.25:  # ("--x=--" is where CPython 3.13 differs from 3.11/3.12)
            flag += "=" + rnd.choice([v for v in vals if v != "--"])
        elif roll < 0.3:
            flag = "--no-such-" + str(rnd.randint(0, 9))
        argv.append(flag)
        if rnd.random() < 0.6:
            argv.append(rnd.choice(vals))
    return argv


def _differential(prof: Profile, n: int, seed: int) -> tuple[int, list]:
    top = _real_parser(prof)
    rnd = random.Random(seed)
    checked, mismatches = 0, []
    for _ in range(n):
        argv = _random_argv(prof, rnd)
        if any(t.startswith(("-O", "--model", "--config", "--served")) or
               (t.startswith("-") and "." in t) for t in argv):
            continue  # preprocessing-owned cases are covered above
        toks, _ = vllm_argv._preprocess(prof.rules, list(argv), [], prof)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                namespace = top.parse_args(["serve", *[t.text for t in toks]])
            real = True
        except SystemExit:
            real, namespace = False, None
        ours = parse(prof, argv)
        checked += 1
        if ours.ok != real:
            mismatches.append((argv, ours.error))
        elif real:
            last = {o.action.dest: o for o in ours.options if o.action is not None}
            for dest, o in last.items():
                if o.action.kind not in vllm_argv.FLAG_KINDS and o.action.kind != "append":
                    if getattr(namespace, dest) != o.value:
                        mismatches.append((argv, dest, o.value))
    return checked, mismatches


def test_argparse_layer_matches_cpython_on_fake(fake):
    checked, mismatches = _differential(fake, 600, seed=7)
    assert checked > 300 and mismatches == []


@pytest.mark.parametrize("version", ORACLE_RELEASES)
def test_argparse_layer_matches_cpython_on_release(version):
    checked, mismatches = _differential(_profile(version), 300, seed=11)
    assert checked > 100 and mismatches == []


@pytest.mark.parametrize("version", ORACLE_RELEASES)
def test_json_config_stage_agrees_with_real_engine(version):
    """Plain-JSON config options are judged when the engine config is built: a bad
    `--speculative-config` method passes parse and fails at engine_config, as we say."""
    path = ORACLE / version / "checks_deep.json"
    if not path.is_file():
        pytest.skip("oracle verdicts not available")
    prof = _profile(version)
    checked = 0
    for case in json.loads(path.read_text())["results"]:
        argv = case["argv"][1:]
        if "--speculative-config" not in argv or "SpeculativeConfig" not in (
                case.get("message") or ""):
            continue
        value = argv[argv.index("--speculative-config") + 1]
        problems = json_config_problems(prof, prof.by_dest["speculative_config"], value)
        assert parse(prof, argv).ok
        assert problems and {p.stage for p in problems} == {case["rejected_at"]}
        checked += 1
    assert checked >= 1
