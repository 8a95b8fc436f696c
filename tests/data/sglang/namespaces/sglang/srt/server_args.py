# ruff: noqa
"""Fixture: the namespace-struct shape (trimmed from the 0.5.20+ layout)."""
import argparse

from sglang.srt.arg_groups.arg_utils import add_cli_args_from_dataclass
from sglang.srt.arg_groups.fields.serving import Serving
from sglang.srt.arg_groups.argparse_actions import DeprecatedStoreTrueAction

SAMPLING_BACKEND_CHOICES = {"flashinfer", "pytorch"}


def _tool_call_parser_choices():
    import sys
    module = sys.modules.get("x")
    if module is not None:
        return list(module.Enum)
    from sglang.srt.function_call.parser_names import TOOL_CALL_PARSER_NAMES

    return list(TOOL_CALL_PARSER_NAMES)


class ServerArgs:
    @staticmethod
    def add_cli_args(parser):
        add_cli_args_from_dataclass(parser, ServerArgs)
        choices = set(SAMPLING_BACKEND_CHOICES)
        if envs.SGLANG_FLAG.get():
            choices.add("token_oracle")
        parser.add_argument("--sampling-backend", type=str, choices=choices,
                            default=_declared_default("sampling_backend"))
        parser.add_argument("--tool-call-parser", choices=["auto"] + _tool_call_parser_choices())
        parser.add_argument("--config", type=str)
        parser.add_argument("--enable-dp-attention", action=DeprecatedStoreTrueAction,
                            new_flag="--attn-dp-size <dp-size>")


_INPUT_NAMESPACES = [Serving]


def prepare_server_args(argv):
    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    if "--config" in argv:
        pass
    return parser.parse_args(argv)
