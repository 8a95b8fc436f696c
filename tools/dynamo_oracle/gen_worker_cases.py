"""Adversarial ``dynamo.sglang`` argvs from the release's own parsers (run in the oracle venv):

    DYNAMO_DIRS=... python gen_worker_cases.py CORPUS.json OUT.json

Reads only the real parsers (Dynamo's arg groups and SGLang's ``ServerArgs.add_cli_args``, built
as ``dynamo.sglang.args.parse_args`` builds them) and the corpus argvs: worker-own options with
good and bad values, ``=`` forms, missing values, abbreviations and ``--no-`` spellings; engine
options passed through with good and bad values; misspelt options; corpus argvs mutated.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_worker_argv  # noqa: E402  (sys.path and import stubs)

BASE = ["--model", "m"] if check_worker_argv.WORKER == "vllm" else ["--model-path", "m"]


def parsers() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    if check_worker_argv.WORKER == "vllm":
        v = check_worker_argv._patch()  # vLLM's CpuPlatform first, as the run does

        outer = argparse.ArgumentParser(allow_abbrev=False)
        v.DynamoRuntimeArgGroup().add_arguments(outer)
        v.DynamoVllmArgGroup().add_arguments(outer)
        engine = v.FlexibleArgumentParser(add_help=False)
        v.AsyncEngineArgs.add_cli_args(engine, async_args_only=False)
        return outer, engine
    import dynamo.sglang.args as a

    outer = argparse.ArgumentParser()
    a.DynamoRuntimeArgGroup().add_arguments(outer)
    a.DynamoSGLangArgGroup().add_arguments(outer)
    engine = argparse.ArgumentParser(add_help=False)
    a.ServerArgs.add_cli_args(engine)
    return outer, engine


def good_values(act: argparse.Action) -> list[str]:
    if act.choices:
        return [str(c) for c in list(act.choices)[:3]]
    if act.type in (int, float):
        return ["1"]
    if act.default not in (None, "", [], False, True) and isinstance(
        act.default, (str, int, float)
    ):
        return [str(act.default)]
    return ["x"]


def bad_values(act: argparse.Action) -> list[str]:
    out = []
    if act.choices:
        out.append("bogus-choice")
    if act.type in (int, float):
        out += ["not-a-number", "1.5" if act.type is int else "nan-ish"]
    return out


def option_cases(prefix: str, act: argparse.Action, known: set[str]) -> list[tuple[str, list[str]]]:
    opt = max(act.option_strings, key=len)
    if not opt.startswith("--") or act.nargs == argparse.SUPPRESS or opt == "--help":
        return []
    cid = f"{prefix}:{opt[2:]}"
    takes = act.nargs != 0
    out = []
    if not takes:
        out.append((f"{cid}:flag", BASE + [opt]))
        out.append((f"{cid}:flag-with-value", BASE + [f"{opt}=1"]))
    else:
        for k, v in enumerate(good_values(act)):
            out.append((f"{cid}:good{k}", BASE + [opt, v]))
        out.append((f"{cid}:eq", BASE + [f"{opt}={good_values(act)[0]}"]))
        for k, v in enumerate(bad_values(act)):
            out.append((f"{cid}:bad{k}", BASE + [opt, v]))
        out.append((f"{cid}:missing", BASE + [opt]))
    stem = opt[:-2]
    if len(stem) > 4 and sum(o.startswith(stem) for o in known) == 1:
        tail = [good_values(act)[0]] if takes else []
        out.append((f"{cid}:abbrev", BASE + [stem] + tail))
    out.append((f"{cid}:typo", BASE + [opt + "-typo"] + ([good_values(act)[0]] if takes else [])))
    out.append(
        (
            f"{cid}:underscore",
            BASE + ["--" + opt[2:].replace("-", "_")] + ([good_values(act)[0]] if takes else []),
        )
    )
    if not takes:
        out.append((f"{cid}:no", BASE + ["--no-" + opt[2:]]))
    return out


def corpus_mutations(corpus: list) -> list[tuple[str, list[str]]]:
    out = []
    for cid, argv in corpus:
        out.append((f"{cid}:bogus-flag", argv + ["--not-an-option"]))
        out.append((f"{cid}:bad-disagg-mode", argv + ["--disaggregation-mode", "bogus"]))
        out.append((f"{cid}:bad-request-plane", argv + ["--request-plane", "bogus"]))
    return out


def main() -> None:
    corpus = json.loads(Path(sys.argv[1]).read_text())
    outer, engine = parsers()
    known = set(outer._option_string_actions) | set(engine._option_string_actions)
    cases: list[tuple[str, list[str]]] = [(c, a) for c, a in corpus]
    for act in outer._actions:
        cases += option_cases("dynamo", act, known)
    dyn_opts = set(outer._option_string_actions)
    for act in engine._actions:
        if not set(act.option_strings) & dyn_opts:
            cases += option_cases("engine", act, known)
    cases += corpus_mutations(corpus)
    cases.append(("engine:none", []))
    seen, uniq = set(), []
    for cid, argv in cases:
        if cid not in seen:
            seen.add(cid)
            uniq.append([cid, argv])
    Path(sys.argv[2]).write_text(json.dumps(uniq))
    print(f"{len(uniq)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
