import argparse
import json
import sys
from dataclasses import dataclass, fields
from typing import Literal

from vllm.config import AttentionConfig, ModelConfig, VllmConfig
from vllm.utils.argparse_utils import FlexibleArgumentParser, human_readable_int

PASSTHROUGH = "passthrough"


def optional_type(return_type):
    def _optional_type(val):
        if val == "" or val == "None":
            return None
        return return_type(val)

    return _optional_type


def _compute_kwargs(cls):
    kwargs = {}
    for field in fields(cls):
        name = field.name
        type_hints = set()
        if type_hints == {bool, str, type(None)}:
            kwargs[name]["nargs"] = "?"
        elif name in {"max_num_batched_tokens"}:
            kwargs[name]["type"] = human_readable_int
        if kwargs[name].get("choices"):
            kwargs[name]["choices"].append(None)
    return kwargs


def get_kwargs(cls):
    return _compute_kwargs(cls)


@dataclass
class EngineArgs:
    @staticmethod
    def add_cli_args(parser: FlexibleArgumentParser) -> FlexibleArgumentParser:
        model_kwargs = get_kwargs(ModelConfig)
        model_group = parser.add_argument_group(title="ModelConfig")
        if not ("serve" in sys.argv[1:] and "--help" in sys.argv[1:]):
            model_group.add_argument("--model", **model_kwargs["model"])
        model_group.add_argument("--dtype", **model_kwargs["dtype"])
        model_group.add_argument("--tokenizer-mode", **model_kwargs["tokenizer_mode"])
        model_group.add_argument("--max-model-len", **model_kwargs["max_model_len"])
        model_group.add_argument("--enforce-eager", **model_kwargs["enforce_eager"])
        model_group.add_argument("--served-model-name", **model_kwargs["served_model_name"])
        model_group.add_argument("--hf-overrides", **model_kwargs["hf_overrides"])
        model_group.add_argument("--quantization", "-q", **model_kwargs["quantization"])
        model_group.add_argument("--reasoning", **model_kwargs["reasoning"])
        model_kwargs["all2all_backend"]["choices"].remove(PASSTHROUGH)
        model_group.add_argument("--all2all-backend", **model_kwargs["all2all_backend"])
        model_group.add_argument(
            "--tensor-parallel-size", "-tp", type=int, default=1, help="TP size.\nMore."
        )
        model_group.add_argument(
            "--moe-backend", type=lambda s: s.lower().replace("-", "_"),
            choices=["auto", "flashinfer_cutlass"], default="auto",
        )
        model_group.add_argument("--old-flag", type=str, deprecated=True, help="Deprecated.")
        model_group.add_argument("--enable-thing", action=argparse.BooleanOptionalAction)
        attention_kwargs = get_kwargs(AttentionConfig)
        attention_group = parser.add_argument_group(title="AttentionConfig")
        attention_group.add_argument("--attention-backend", **attention_kwargs["backend"])
        vllm_kwargs = get_kwargs(VllmConfig)
        vllm_kwargs["speculative_config"]["type"] = optional_type(json.loads)
        vllm_group = parser.add_argument_group(title="VllmConfig")
        vllm_group.add_argument("--attention-config", "-ac", **vllm_kwargs["attention_config"])
        vllm_group.add_argument("--speculative-config", **vllm_kwargs["speculative_config"])
        vllm_group.add_argument("--optimization-level", type=str, default="2")
        model_group.add_argument("--pooling", **model_kwargs["pooling"])
        return parser


class AsyncEngineArgs(EngineArgs):
    @staticmethod
    def add_cli_args(parser, async_args_only: bool = False):
        if not async_args_only:
            parser = EngineArgs.add_cli_args(parser)
        parser.add_argument("--enable-log-requests", action="store_true", default=False)
        return parser


Unused = Literal["x"]
