"""Golden tests of the static bash reader, one group per construct."""

from __future__ import annotations

import os
import time

import pytest

from servelint.sources.shell.script import read_script

CASES = os.path.join(os.path.dirname(__file__), "cases", "bash")
SEED = "/work/shared/corpus/seeds/dsr1_fp4_b300_vllm.sh"


def read(text: str, env: dict[str, str] | None = None, **kw):
    return read_script("t.sh", text=text, env=env, **kw)


def one(text: str, env: dict[str, str] | None = None):
    res = read(text, env)
    assert len(res.launches) == 1, [lc.rendering for lc in res.launches]
    return res.launches[0]


def argv(spec) -> list[str]:
    return [t.text for t in spec.argv]


def pos(tok) -> tuple[int, int]:
    return tok.span.line, tok.span.column


# --- entrypoints ------------------------------------------------------------------------

@pytest.mark.parametrize("line, engine, entry", [
    ("vllm serve m --port 1", "vllm", "vllm serve"),
    ("python3 -m vllm.entrypoints.openai.api_server --model m", "vllm",
     "python -m vllm.entrypoints.openai.api_server"),
    ("python -u -m sglang.launch_server --model-path m", "sglang", "python -m sglang.launch_server"),
    ("sglang serve --model-path m", "sglang", "sglang serve"),
    ("trtllm-serve m --tp_size=8", "trtllm", "trtllm-serve"),
    ("/usr/local/bin/vllm serve m", "vllm", "vllm serve"),
])
def test_entrypoints(line, engine, entry):
    spec = one(line + "\n")
    assert (spec.engine, spec.entrypoint) == (engine, entry)
    assert spec.origin == "script" and spec.anchor.line == 1 and spec.anchor.column == 1


@pytest.mark.parametrize("text", [
    "echo vllm serve m\n", "write_command f vllm serve m\n", "# vllm serve m\n",
    "python3 -m vllm.entrypoints.cli.main bench m\n", "vllm bench serve m\n",
    "python3 -c 'import vllm'\n",
])
def test_not_launches(text):
    assert read(text).launches == []


# --- continuations, spans, quoting --------------------------------------------------------

def test_line_continuations_keep_each_word_span():
    spec = one('vllm serve "$MODEL" \\\n    --tensor-parallel-size 8 \\\n    --kv-cache-dtype fp8\n')
    assert argv(spec) == ["$MODEL", "--tensor-parallel-size", "8", "--kv-cache-dtype", "fp8"]
    assert [pos(t) for t in spec.argv] == [(1, 12), (2, 5), (2, 28), (3, 5), (3, 22)]
    assert spec.argv[0].symbolic and not spec.argv[1].symbolic


def test_quotes_are_removed_and_json_kept_whole():
    spec = one("vllm serve m --compilation-config '{\"a\": [1, 2]}' --x \"a b\"\n")
    assert argv(spec)[1:] == ["--compilation-config", '{"a": [1, 2]}', "--x", "a b"]


def test_comment_line_breaks_a_continuation_like_bash():
    res = read("vllm serve m \\\n# --dropped\n    --kept 1\n")
    assert len(res.launches) == 1 and argv(res.launches[0]) == ["m"]


# --- variables, symbolic values, env ---------------------------------------------------------

def test_assigned_variables_resolve_and_unknown_stay_symbolic():
    spec = one('TP=4\nvllm serve m --tp "$TP" --pp "$PP" --port=$PORT --x "$(nproc)"\n')
    got = [(t.text, t.symbolic) for t in spec.argv]
    assert got == [("m", False), ("--tp", False), ("4", False), ("--pp", False), ("$PP", True),
                   ("--port=$PORT", True), ("--x", False), ("$(nproc)", True)]


def test_default_expansion_rule():
    text = "PORT=${PORT:-8888}\nvllm serve m --port $PORT\n"
    assert one(text).argv[2].symbolic  # no env: the environment is unknown
    assert argv(one(text, env={}))[2] == "8888"  # env given: it is the whole environment
    assert argv(one(text, env={"PORT": "9000"}))[2] == "9000"


def test_env_substitution():
    spec = one('vllm serve "$MODEL" --tensor-parallel-size "$TP"\n', env={"MODEL": "a/b", "TP": "8"})
    assert argv(spec) == ["a/b", "--tensor-parallel-size", "8"]
    assert not any(t.symbolic for t in spec.argv)
    assert spec.env == []  # the caller's env is not the script's own exports


def test_exported_and_prefix_env_with_spans():
    spec = one("export VLLM_A=1\nB=2\nexport B\nexport C=$UNKNOWN\nVLLM_D=4 exec vllm serve m\n")
    env = {e.name: e for e in spec.env}
    assert (env["VLLM_A"].value, env["VLLM_A"].span.line) == ("1", 1)
    assert env["B"].value == "2" and env["C"].symbolic
    assert (env["VLLM_D"].value, env["VLLM_D"].span.line, env["VLLM_D"].span.column) == ("4", 5, 1)
    assert "UNEXPORTED" not in env


def test_unexported_variable_is_not_env():
    spec = one("X=1\nvllm serve m\n")
    assert spec.env == []


def test_arithmetic_with_ternary_and_precedence():
    spec = one("ISL=8192\nCONC=3\nA=$(( (CONC+ISL+64+63)/64*64 ))\n"
               "B=$(( CONC < 4 ? CONC : CONC / 4 ))\nvllm serve m --a $A --b $B --c $((ISL * 2))\n")
    assert argv(spec)[1:] == ["--a", "8320", "--b", "3", "--c", "16384"]


def test_arithmetic_on_unknown_is_symbolic():
    spec = one("vllm serve m --max-num-batched-tokens $(( ISL * 2 ))\n")
    assert spec.argv[2].symbolic and spec.argv[2].text == "$(( ISL * 2 ))"


def test_parameter_operations():
    spec = one('X="a, b, "\nY=model.yaml\nvllm serve m --a "${X%, }" --b "${Y%.yaml}" '
               '--c "${Y^^}" --d "${#Y}"\n')
    assert argv(spec)[1:] == ["--a", "a, b", "--b", "model", "--c", "MODEL.YAML", "--d", "10"]


# --- arrays ------------------------------------------------------------------------------

def test_arrays_append_and_splice():
    text = ("EP_ARGS=()\nEXTRA=(--a 1)\nEXTRA+=(--b \"x y\")\n"
            'vllm serve m "${EP_ARGS[@]}" "${EXTRA[@]}" --z\n')
    spec = one(text)
    assert argv(spec) == ["m", "--a", "1", "--b", "x y", "--z"]
    # spliced words point at the array element where they were written
    assert [pos(t) for t in spec.argv[1:5]] == [(2, 8), (2, 12), (3, 9), (3, 13)]


def test_array_holding_the_whole_command():
    spec = one('CMD=(python3 -m sglang.launch_server --tp "$TP")\n"${CMD[@]}" > log 2>&1 &\n',
               env={"TP": "2"})
    assert spec.engine == "sglang" and argv(spec) == ["--tp", "2"]
    assert spec.anchor.line == 1 and spec.anchor.column == 6


def test_unquoted_variable_word_splitting_with_sub_spans():
    spec = one('ARGS="--a 1 --b"\nvllm serve m $ARGS\n')
    assert argv(spec) == ["m", "--a", "1", "--b"]
    assert [pos(t) for t in spec.argv[1:]] == [(1, 7), (1, 11), (1, 13)]


def test_empty_unquoted_variable_vanishes():
    assert argv(one('EXTRA=""\nvllm serve m $EXTRA --x\n')) == ["m", "--x"]


# --- branches ----------------------------------------------------------------------------

IF_SCRIPT = """EP_ARGS=()
if [ "$EP_SIZE" -gt 1 ]; then
    EP_ARGS=(--enable-expert-parallel)
fi
if [[ -n "$SLURM_JOB_ID" ]]; then
  echo "JOB $SLURM_JOB_ID"
fi
vllm serve m "${EP_ARGS[@]}"
"""


def test_if_unknown_condition_gives_one_launch_per_branch_that_matters():
    res = read(IF_SCRIPT)
    got = sorted((tuple(argv(s)), s.rendering) for s in res.launches)
    assert got == [
        (("m",), 'L2 [ "$EP_SIZE" -gt 1 ]: false'),
        (("m", "--enable-expert-parallel"), 'L2 [ "$EP_SIZE" -gt 1 ]: true'),
    ]  # the SLURM branch changes nothing, so it is merged away


def test_if_known_condition_takes_its_branch():
    assert [argv(s) for s in read(IF_SCRIPT, env={"EP_SIZE": "8"}).launches] == [
        ["m", "--enable-expert-parallel"]]
    assert [argv(s) for s in read(IF_SCRIPT, env={"EP_SIZE": "1"}).launches] == [["m"]]


def test_elif_else_chain_and_two_launch_lines():
    text = ('if [[ "$ISL" == "1024" ]]; then\n  vllm serve a\nelif [[ "$ISL" == "8192" ]]; then\n'
            "  vllm serve b\nelse\n  vllm serve c\nfi\n")
    assert sorted(argv(s)[0] for s in read(text).launches) == ["a", "b", "c"]
    assert [argv(s)[0] for s in read(text, env={"ISL": "8192"}).launches] == ["b"]


def test_same_condition_twice_is_decided_once():
    text = ('if [ "$DP" = "true" ]; then A=1; fi\nif [ "$DP" = "true" ]; then B=1; else B=0; fi\n'
            "vllm serve m --a ${A:-0} --b $B\n")
    got = sorted(tuple(argv(s)) for s in read(text, env={"A": "0"}).launches)
    assert len(got) == 2  # not 4: the second test repeats the first


def test_and_or_lists():
    text = '[ "$X" = "1" ] && EXTRA="--x"\nvllm serve m $EXTRA\n'
    assert sorted(tuple(argv(s)) for s in read(text, env={}).launches) == [("m",), ("m", "--x")]
    assert [argv(s) for s in read(text, env={"X": "1"}).launches] == [["m", "--x"]]


def test_case_branches():
    text = ('case "$MODE" in\n  fast|turbo) OPT=(--fast) ;;\n  slow) OPT=(--slow) ;;\n'
            '  *) OPT=() ;;\nesac\nvllm serve m "${OPT[@]}"\n')
    assert sorted(tuple(argv(s)) for s in read(text).launches) == [
        ("m",), ("m", "--fast"), ("m", "--slow")]
    assert [argv(s) for s in read(text, env={"MODE": "turbo"}).launches] == [["m", "--fast"]]


def test_exit_in_a_branch_ends_that_flow():
    text = 'if [ -z "$MODEL" ]; then echo missing; exit 1; fi\nvllm serve "$MODEL"\n'
    assert len(read(text).launches) == 1
    assert read(text, env={"MODEL": ""}).launches == []


def test_branch_count_is_bounded():
    text = "".join(f'if [ "$V{i}" = 1 ]; then A{i}=(--f{i}); fi\n' for i in range(12))
    text += "vllm serve m " + " ".join(f'"${{A{i}[@]}}"' for i in range(12)) + "\n"
    start = time.monotonic()
    res = read(text, max_states=8)
    assert time.monotonic() - start < 5
    assert 1 <= len(res.launches) <= 9


# --- functions, loops ----------------------------------------------------------------------

def test_launch_inside_a_called_function():
    text = ('start() {\n  local tp="$1"\n  vllm serve m --tp "$tp"\n}\nstart 4\n'
            'unused() { vllm serve never; }\n')
    spec = one(text)
    assert argv(spec) == ["m", "--tp", "4"]
    assert pos(spec.argv[2]) == (3, 21)


def test_function_locals_do_not_leak():
    text = "f() { local X=inner; }\nX=outer\nf\nvllm serve m --x $X\n"
    assert argv(one(text))[-1] == "outer"


def test_for_loop_over_known_words_is_unrolled():
    text = 'SIZES=""\nfor s in 1 2 4; do SIZES="$SIZES,$s"; done\nvllm serve m --s "${SIZES#,}"\n'
    assert argv(one(text))[-1] == "1,2,4"


def test_while_loop_values_become_symbolic():
    text = "N=1\nwhile read -r line; do N=$((N+1)); done < f\nvllm serve m --n $N\n"
    assert one(text).argv[-1].symbolic


# --- wrappers -------------------------------------------------------------------------------

@pytest.mark.parametrize("prefix", [
    "exec ", "nohup ", "env A=1 ", "timeout 600 ", "timeout -s KILL 10m ",
    "mpirun -n 1 --oversubscribe --allow-run-as-root ", "srun --ntasks=1 -N 1 ",
    "numactl --interleave=all ", "PYTHONNOUSERSITE=1 ", "sudo -E ",
])
def test_wrappers(prefix):
    spec = one(f"{prefix}vllm serve m --x 1 > log 2>&1 &\n")
    assert argv(spec) == ["m", "--x", "1"]


def test_pipe_to_tee():
    assert argv(one("vllm serve m --x 1 2>&1 | tee server.log\n")) == ["m", "--x", "1"]


def test_eval_and_bash_c_of_known_text():
    assert argv(one('CMD="vllm serve m --x 1"\neval "$CMD"\n')) == ["m", "--x", "1"]
    assert argv(one("bash -c 'vllm serve m --y 2'\n")) == ["m", "--y", "2"]



def test_eval_and_bash_c_of_text_with_unknown_parts():
    # the AMD multi-node servers compose the launch in a string with unknown parts
    text = (
        "ARGS=(-tp 8)\n"
        'CMD="SGLANG_X=${X} python3 -m sglang.launch_server \\\n'
        "    --model-path $DIR/m \\\n"
        "    ${ARGS[*]} \\\n"
        "    ${EXTRA} \\\n"
        r"""    --json '{\"a\": \"$HOST\"}' --port 8000"""
        "\"\n"
        'setsid bash -c "$CMD" > >(tee log) 2>&1 &\n'
    )
    spec = one(text)
    assert [(t.text, t.symbolic) for t in spec.argv] == [
        ("--model-path", False), ("$DIR/m", True), ("-tp", False), ("8", False),
        ("${EXTRA}", True), ("--json", False), ('{"a": "$HOST"}', True),
        ("--port", False), ("8000", False)]
    assert [(e.name, e.value, e.symbolic) for e in spec.env] == [("SGLANG_X", "${X}", True)]
    # the stand-ins are no variables of the script after an eval
    spec = one('CMD="echo $A"\neval "$CMD"\nvllm serve n "$A"\n')
    assert (spec.argv[1].text, spec.argv[1].symbolic) == ("$A", True)


def test_a_sourced_script_body_keeps_its_flows(tmp_path):
    # server.sh sources server_<engine>.sh as its body: not a helper library, so its
    # branches are followed (a library of definitions is still read with one flow)
    (tmp_path / "body.sh").write_text(
        'if [ "$ROLE" = prefill ]; then\n  CMD="vllm serve m --port 1"\nelse\n'
        '  CMD="vllm serve m --port 2"\nfi\nbash -c "$CMD"\n'
    )
    res = read_script(str(tmp_path / "main.sh"), text='source "$(dirname "$0")/body.sh"\n',
                      root=str(tmp_path))
    assert sorted(argv(s)[-1] for s in res.launches) == ["1", "2"]

# --- heredoc config files -------------------------------------------------------------------

def test_vllm_config_file_keys_become_options():
    spec = read_script(os.path.join(CASES, "vllm_config.sh"), env={"TP": "4", "MODEL": "m"})
    (spec,) = spec.launches
    assert argv(spec) == [
        "m", "--config", "vllm.yaml", "--tensor-parallel-size", "4", "--enable-expert-parallel",
        "--compilation-config", '{"cudagraph_mode": "FULL"}', "--max-model-len", "8192"]
    key = spec.argv[3]
    assert (key.span.line, key.span.column, key.span.end_column) == (3, 1, 21)
    assert spec.context["config_file"] == "vllm.yaml"


def test_vllm_config_with_unknown_value_stays_symbolic():
    spec = read_script(os.path.join(CASES, "vllm_config.sh")).launches[0]
    i = argv(spec).index("--tensor-parallel-size")
    assert spec.argv[i + 1].symbolic and not spec.argv[i].symbolic


def test_trtllm_extra_options_file_and_appended_heredoc():
    res = read_script(os.path.join(CASES, "trt_heredoc.sh"))
    texts = sorted(s.context["config_text"] for s in res.launches)
    assert len(texts) == 2 and "attention_dp_config:" in texts[1]
    assert "attention_dp_config:" not in texts[0]
    spec = read_script(os.path.join(CASES, "trt_heredoc.sh"), env={
        "DP_ATTENTION": "false", "MODEL": "m", "PORT": "1", "TP": "8"}).launches
    assert len(spec) == 1 and spec[0].engine == "trtllm"
    assert "enable_attention_dp: false" in spec[0].context["config_text"]
    assert argv(spec[0])[-1] == "--extra_llm_api_options=extra.yml"


def test_value_captured_from_heredoc():
    text = "J=$(cat <<'EOF'\n{\"a\": 1}\nEOF\n)\nvllm serve m --speculative-config \"$J\"\n"
    assert argv(one(text))[-1].strip() == '{"a": 1}'


# --- sourced files, child scripts ---------------------------------------------------------

def test_sourced_helper_inside_the_repo():
    res = read_script(os.path.join(CASES, "repo", "scripts", "with_helper.sh"))
    (spec,) = res.launches
    assert argv(spec)[1:] == ["--port", "8000", "--max-model-len", "4096"]
    assert spec.anchor.path.endswith("lib/helpers.sh") and spec.anchor.line == 5
    assert [(e.name, e.value) for e in spec.env] == [("HELPER_FLAG", "1")]
    assert [i.requirement for i in spec.installs] == ["vllm-router==0.1.14"]
    assert res.problems == []


def test_missing_sourced_file_is_a_problem_not_an_error():
    res = read_script(os.path.join(CASES, "repo", "scripts", "missing_helper.sh"))
    assert len(res.launches) == 1
    assert [p.kind for p in res.problems] == ["unresolved"]
    assert res.problems[0].span.line == 2


def test_source_outside_the_root_is_not_followed(tmp_path):
    outside = tmp_path / "evil.sh"
    outside.write_text("vllm serve evil\n")
    script = tmp_path / "repo" / "s.sh"
    script.parent.mkdir()
    script.write_text(f"source {outside}\n")
    res = read_script(str(script), root=str(script.parent))
    assert res.launches == [] and res.problems[0].kind == "unresolved"


def test_exec_env_bash_child_script():
    (spec,) = read_script(os.path.join(CASES, "repo", "scripts", "wrapper.sh")).launches
    assert spec.engine == "sglang" and argv(spec)[-1] == "fast"


# --- installs ------------------------------------------------------------------------------

def test_installs_before_the_launch_only():
    text = "pip install -q 'a==1'\nvllm serve m &\npip install -q b\n"
    spec = one(text)
    assert [(i.name, i.specifier) for i in spec.installs] == [("a", "==1")]


def test_engine_pinned_by_pip_sets_the_release():
    spec = one("uv pip install --system vllm==0.21.0\nvllm serve m\n")
    assert spec.release == "0.21.0" and spec.release_span.line == 1


# --- robustness ------------------------------------------------------------------------------

def test_syntax_error_is_a_problem():
    res = read("if then fi ((\nvllm serve m\n")
    assert any(p.kind == "parse-error" for p in res.problems)


def test_unreadable_file_is_a_problem(tmp_path):
    res = read_script(str(tmp_path / "absent.sh"))
    assert res.launches == [] and res.problems[0].kind == "read-error"


def test_huge_input_is_bounded():
    res = read("x=1\n" * 600_000)  # over the size limit: not read at all, an error
    assert res.problems and res.problems[0].kind == "read-error"


def test_step_budget_reports_and_returns_what_was_found():
    text = "vllm serve first\n" + "".join(f"f{i}() {{ f{i + 1}; f{i + 1}; }}\n" for i in range(30))
    text += "f30() { :; }\nf0\n"
    res = read(text, max_steps=5000)
    assert [argv(s) for s in res.launches] == [["first"]]
    assert any(p.kind == "budget" for p in res.problems)


# --- the incident seed --------------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists(SEED), reason="shared corpus not present")
def test_seed_launcher():
    res = read_script(SEED, env={"EP_SIZE": "4", "TP": "4", "ISL": "1024", "EVAL_ONLY": "false",
                                 "MODEL": "nvidia/DeepSeek-R1-0528-FP4-V2",
                                 "MAX_MODEL_LEN": "2304"})
    (spec,) = res.launches
    words = argv(spec)
    for flag in ("--trust-remote-code", "--kv-cache-dtype", "--attention-backend",
                 "--attention-config.mla_prefill_backend", "--tokenizer-mode",
                 "--enable-expert-parallel"):
        assert flag in words
    i = words.index("--tokenizer-mode")
    assert words[i + 1] == "fastokens" and pos(spec.argv[i + 1]) == (65, 22)
    assert words[words.index("--max-num-batched-tokens") + 1] == "2048"
    assert words[words.index("--max-model-len") + 1] == "2304"
    assert [(i.name, i.specifier, i.hashed) for i in spec.installs] == [
        ("fastokens", "<0.2.0,>=0.1.1", False), ("datasets", "", False), ("pandas", "", False)]
    assert [(e.name, e.value) for e in spec.env] == [("VLLM_ENGINE_READY_TIMEOUT_S", "3600")]


# --- command substitution and helper statuses ---------------------------------------------

def test_small_substitutions_are_evaluated():
    text = 'X=$( [[ $CONC -gt 4 ]] && echo 30 || echo 10 )\nvllm serve m --x "$X"\n'
    assert argv(one(text, env={"CONC": "8"}))[-1] == "30"
    assert argv(one(text, env={"CONC": "2"}))[-1] == "10"
    assert one(text).argv[-1].symbolic  # the two flows print different things


def test_seq_printf_dirname_command_v():
    text = ('S="$(seq -s, 1 4)"\nC=$(printf \'{"a":%s}\' 3)\nP="$(command -v python3)"\n'
            'D=$(dirname /a/b/c.sh)\nvllm serve m --s "$S" --c "$C" --p "$P" --d "$D"\n')
    assert argv(one(text))[1:] == ["--s", "1,2,3,4", "--c", '{"a":3}', "--p", "python3", "--d",
                                   "/a/b"]


def test_substitution_running_unknown_programs_stays_symbolic():
    assert one('X=$(nvidia-smi -L | wc -l)\nvllm serve m --x "$X"\n').argv[-1].symbolic


def test_function_status_decides_a_condition():
    text = ('is_fast() { [ "$MODE" = fast ]; }\nif is_fast; then A=1; else A=2; fi\n'
            "ret() { return 1; }\nret || B=3\nvllm serve m --a $A --b $B\n")
    assert argv(one(text, env={"MODE": "fast"}))[1:] == ["--a", "1", "--b", "3"]
