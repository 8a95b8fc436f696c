"""Option-file cases read off the release's own LLM API models (run in the oracle venv).

    VENV/bin/python tools/trtllm_oracle/model_cases.py TREE OUT.json [--seed N]

Independent of servelint: the fields come from the tree's pydantic classes as imported
(``TorchLlmArgs.model_fields``, the nested config models their annotations name, the
``DecodingBaseConfig`` subclasses with their ``decoding_type``, the fields one backend's class
has and the other's lacks), the values blindly from ``make_cases.YAML_VALUES``. Families:

- ``null-*``: one top-level argument of the PyTorch backend set to ``null``;
- ``nested-*``: one field of a nested config model set to ``null`` or a drawn value, and an
  unknown key in it;
- ``backend-*``: an argument only the other backend's class has (TensorRT-only fields on the
  default PyTorch backend, PyTorch-only ones on ``--backend tensorrt``);
- ``spec-*``: a ``speculative_config`` of each decoding type (its spelling, other
  spellings), with one of its class's fields set to ``null`` or a drawn value.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
import typing
import warnings
from pathlib import Path

import oracle_env

# this folder's make_cases (oracle_env puts tools/sglang_oracle, which has one too, first)
_SPEC = importlib.util.spec_from_file_location("trt_make_cases", Path(__file__).with_name("make_cases.py"))
_MAKE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MAKE)
YAML_VALUES = _MAKE.YAML_VALUES

warnings.filterwarnings("ignore")
oracle_env.setup(sys.argv[1])

import pydantic  # noqa: E402
from tensorrt_llm.llmapi import llm_args as args_mod  # noqa: E402

MODEL = ["Qwen/Qwen3-8B"]
TRT = ["--backend", "tensorrt"]


def _models(annotation, out: list) -> None:
    """The pydantic model classes an annotation names (through Optional, Union, lists)."""
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        if annotation not in out:
            out.append(annotation)
        return
    for arg in typing.get_args(annotation):
        _models(arg, out)


def _case(cid: str, text: str, argv: list[str] | None = None) -> dict:
    return {"id": cid, "argv": list(argv or MODEL), "option_file": text}


def null_cases() -> list[dict]:
    return [_case(f"null-{name}", f"{name}: null") for name in args_mod.TorchLlmArgs.model_fields]


def nested_cases(rng: random.Random) -> list[dict]:
    out = []
    for top, field in args_mod.TorchLlmArgs.model_fields.items():
        found: list = []
        _models(field.annotation, found)
        if len(found) != 1 or issubclass(found[0], args_mod.DecodingBaseConfig):
            continue  # unions (speculative, sparse attention) pick a class by key: spec-*
        cls = found[0]
        for name in cls.model_fields:
            for k, value in enumerate(["null", *rng.sample(YAML_VALUES, 3)]):
                out.append(_case(f"nested-{top}.{name}-{k}", f"{top}:\n  {name}: {value}"))
        out.append(_case(f"nested-{top}.unknown", f"{top}:\n  not_a_field_{top}: 1"))
    return out


def backend_cases(rng: random.Random) -> list[dict]:
    torch, trt = args_mod.TorchLlmArgs.model_fields, args_mod.TrtLlmArgs.model_fields
    out = []
    for name in sorted(set(trt) - set(torch)):
        out.append(_case(f"backend-trt-{name}", f"{name}: {rng.choice(YAML_VALUES)}"))
    for name in sorted(set(torch) - set(trt)):
        out.append(_case(f"backend-torch-{name}", f"{name}: {rng.choice(YAML_VALUES)}", MODEL + TRT))
    return out


def spec_cases(rng: random.Random) -> list[dict]:
    out = []
    classes = [
        c for c in vars(args_mod).values()
        if isinstance(c, type) and issubclass(c, args_mod.DecodingBaseConfig)
        and isinstance(getattr(c, "decoding_type", None), str)
    ]
    for cls in classes:
        dt = cls.decoding_type
        head = f"speculative_config:\n  decoding_type: {dt}\n"
        out.append(_case(f"spec-{dt}-bare", head))
        out.append(_case(f"spec-{dt}-lower", f"speculative_config:\n  decoding_type: {dt.lower()}\n"))
        out.append(_case(f"spec-{dt}-trt", head, MODEL + TRT))
        for name in cls.model_fields:
            for k, value in enumerate(["null", *rng.sample(YAML_VALUES, 2)]):
                out.append(_case(f"spec-{dt}.{name}-{k}", f"{head}  {name}: {value}\n"))
    return out


def main() -> None:
    dest = sys.argv[2]
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 30
    rng = random.Random(seed)
    cases = null_cases() + nested_cases(rng) + backend_cases(rng) + spec_cases(rng)
    with open(dest, "w") as fh:
        json.dump(cases, fh)
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
