# ruff: noqa
"""Fixture: the hand-written add_argument shape (trimmed from the 0.5.x layout)."""
import argparse
import dataclasses

from sglang.srt.parser.reasoning_parser import ReasoningParser

ATTENTION_BACKEND_CHOICES = ["triton", "fa3"]
QUANTIZATION_CHOICES = ["fp8", "awq"]
EXTRA = [*ATTENTION_BACKEND_CHOICES, "flashinfer"]
ATTENTION_BACKEND_CHOICES.append("aiter")


@dataclasses.dataclass
class ServerArgs:
    model_path: str
    tp_size: int = 1
    attention_backend: str = None
    mem_fraction_static: float = 0.9

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        parser.add_argument("--model-path", "--model", type=str, required=True)
        parser.add_argument("--tensor-parallel-size", "--tp-size", type=int,
                            default=ServerArgs.tp_size, dest="tp_size")
        parser.add_argument("--attention-backend", choices=ATTENTION_BACKEND_CHOICES)
        parser.add_argument("--prefill-attention-backend", choices=EXTRA)
        parser.add_argument("--quantization", choices=QUANTIZATION_CHOICES)
        parser.add_argument("--mem-fraction-static", type=float,
                            default=ServerArgs.mem_fraction_static)
        parser.add_argument("--trust-remote-code", action="store_true")
        parser.add_argument("--cuda-graph-bs", type=int, nargs="+")
        parser.add_argument("--reasoning-parser", choices=list(ReasoningParser.DetectorMap.keys()))
        parser.add_argument("--enable-ep-moe", action=DeprecatedAction,
                            help="NOTE: --enable-ep-moe is deprecated. Please set `--ep-size`.")
        parser.add_argument("--enable-gone", action=DeprecatedAction,
                            error_message="--enable-gone was removed, use --new.")
        parser.add_argument("--max-prefill-tokens", type=human_readable_int)
        parser.add_argument("--config", type=str)


def prepare_server_args(argv):
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    if "--config" in argv:
        pass
    return parser.parse_args(argv)


class DeprecatedAction(argparse.Action):
    def __init__(self, option_strings, dest, error_message=None, nargs=0, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)
