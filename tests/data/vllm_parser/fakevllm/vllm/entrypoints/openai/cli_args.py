from dataclasses import dataclass, field

from vllm.config.utils import config
from vllm.engine.arg_utils import AsyncEngineArgs


@config
@dataclass
class FrontendArgs:
    """Frontend arguments."""

    host: str | None = None
    """Host name."""
    port: int = 8000
    """Port number."""
    allowed_origins: list[str] = field(default_factory=lambda: ["*"])
    """Origins."""

    @staticmethod
    def add_cli_args(parser):
        from vllm.engine.arg_utils import get_kwargs

        frontend_kwargs = get_kwargs(FrontendArgs)
        del frontend_kwargs["allowed_origins"]["nargs"]
        frontend_group = parser.add_argument_group(title="Frontend")
        for key, value in frontend_kwargs.items():
            frontend_group.add_argument(f"--{key.replace('_', '-')}", **value)
        return parser


def make_arg_parser(parser):
    parser.add_argument("model_tag", type=str, nargs="?", help="The model tag.")
    parser.add_argument("--headless", action="store_true", default=False)
    parser.add_argument("--config", help="Read CLI options from a config file.")
    parser = FrontendArgs.add_cli_args(parser)
    parser = AsyncEngineArgs.add_cli_args(parser)
    return parser
