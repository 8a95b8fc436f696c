"""Verdicts of a TensorRT-LLM tree's own code on trtllm-serve cases (argv + option file).

    VENV/bin/python tools/trtllm_oracle/check_cases.py TREE CASES.json OUT.json

argv: ``main.main(args=argv, standalone_mode=False)`` of ``tensorrt_llm/commands/serve.py``
with the ``serve`` callback replaced by a recorder (click parses and converts; nothing runs).
Option file (YAML text): the steps ``serve`` takes with the recorded arguments —
``get_llm_args`` (``gpus_per_node`` given: there is no GPU), ``yaml.safe_load``,
``update_llm_args_with_extra_dict``, the pops of ``serve``/``launch_server``, the PyTorch
backend's TensorRT-only-field check and the LLM class's key check, then the backend's pydantic
class; a merged ``backend`` that ``launch_server`` does not know is its ``click.BadParameter``.
Errors the same argv raises with an empty option file (no GPU, no model on disk) are the
baseline: only errors beyond it count against the file.
"""

from __future__ import annotations

import json
import sys
import warnings

import oracle_env

warnings.filterwarnings("ignore")
oracle_env.setup(sys.argv[1])

import click  # noqa: E402
import pydantic  # noqa: E402
import yaml  # noqa: E402
from tensorrt_llm.commands import serve as serve_mod  # noqa: E402
from tensorrt_llm.llmapi import llm as llm_mod  # noqa: E402
from tensorrt_llm.llmapi import llm_args as args_mod  # noqa: E402

RECORDED: dict = {}
serve_mod.serve.callback = lambda **kw: RECORDED.update(kw)
_FORWARDED = set(
    serve_mod.get_llm_args.__code__.co_varnames[: serve_mod.get_llm_args.__code__.co_argcount]
)


def parse_argv(argv: list[str]) -> tuple[bool, str, dict]:
    RECORDED.clear()
    try:
        serve_mod.main.main(args=list(argv), prog_name="trtllm-serve", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code == 0, f"exit {exc.exit_code}", {}
    except click.ClickException as exc:
        return False, exc.format_message(), {}
    return True, "", dict(RECORDED)


def _errors(params: dict, extra: dict | None) -> set[str]:
    """The failures building the LLM arguments from ``params`` and an option file."""
    kw = {k: v for k, v in params.items() if k in _FORWARDED}
    kw["gpus_per_node"] = kw.get("gpus_per_node") or 8
    try:
        llm_args, _ = serve_mod.get_llm_args(**kw)
        llm_args = args_mod.update_llm_args_with_extra_dict(llm_args, extra or {})
        llm_args.pop("disagg_cluster", None)
        backend = llm_args["backend"]
        if backend not in ("pytorch", "_autodeploy", "tensorrt", "trt"):
            # launch_server's own else branch (commands/serve.py): click.BadParameter
            return {f"BadParameter: {backend} is not a known backend"}
        if backend in ("pytorch", "_autodeploy"):
            llm_args.pop("build_config", None)
        elif backend in ("tensorrt", "trt"):
            llm_args.pop("backend")
        cls = args_mod.TorchLlmArgs if backend == "pytorch" else args_mod.TrtLlmArgs
        if backend == "pytorch":
            llm_mod._TorchLLM._validate_args_for_torch_backend(None, dict(llm_args))
        valid = set(cls.model_fields) | {"_mpi_session", "backend"}
        bad = [k for k in llm_args if k not in valid]
        if bad:
            return {f"invalid argument: {k}" for k in bad}
        cls(**llm_args)
    except pydantic.ValidationError as exc:
        return {f"{'.'.join(map(str, e['loc']))}: {e['type']}" for e in exc.errors()}
    except Exception as exc:  # noqa: BLE001 - every failure is a verdict
        return {f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"}
    return set()


def verdict(case: dict) -> dict:
    ok, message, params = parse_argv(case["argv"])
    out = {"id": case["id"], "argv_ok": ok, "argv_message": message}
    if not ok or case.get("option_file") is None:
        return out
    try:
        extra = yaml.safe_load(case["option_file"])
    except yaml.YAMLError as exc:
        out.update(file_ok=False, file_errors=[f"yaml: {str(exc).splitlines()[0]}"])
        return out
    if extra is not None and not isinstance(extra, dict):
        out.update(file_ok=False, file_errors=["not a mapping"])
        return out
    base = _errors(params, None)
    new = sorted(_errors(params, extra) - base)
    out.update(file_ok=not new, file_errors=new, baseline=sorted(base))
    return out


def main() -> None:
    cases = json.load(open(sys.argv[2]))
    results = [verdict(c) for c in cases]
    with open(sys.argv[3], "w") as fh:
        json.dump(
            {
                "release": sys.modules["tensorrt_llm"].__version__,
                "stub_types": sorted(oracle_env.STUB_TYPES),
                "stubbed_modules": sorted({m.split(".")[0] for m in oracle_env.STUBBED}),
                "results": results,
            },
            fh,
            indent=0,
        )


if __name__ == "__main__":
    main()
