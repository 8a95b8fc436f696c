"""A three-option stand-in for sglang 0.5.9's server_args.py (the hand-written shape): what
the tests of profiles built from images read; the real module has hundreds of options."""

import argparse
import dataclasses


@dataclasses.dataclass
class ServerArgs:
    model_path: str
    tp_size: int = 1
    port: int = 30000

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        parser.add_argument("--model-path", type=str, required=True, help="The model path.")
        parser.add_argument("--tp-size", type=int, default=ServerArgs.tp_size, help="TP size.")
        parser.add_argument("--port", type=int, default=ServerArgs.port, help="The port.")
