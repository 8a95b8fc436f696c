import os

import click

from tensorrt_llm.logger import levels


def tagged(text, tag):
    return f"[{tag}] {text}"


class AliasChoice(click.Choice):
    def __init__(self, choices, aliases, case_sensitive=True):
        super().__init__(choices, case_sensitive)
        self.aliases = aliases


@click.command("serve")
@click.argument("model", type=str)
@click.option("--max_batch_size", type=int, default=8, help=tagged("batch", "beta"))
@click.option("--tp_size", "--tensor_parallel_size", "tensor_parallel_size", type=int,
              default=1)
@click.option("--backend", type=AliasChoice(["pytorch", "tensorrt"], {"trt": "tensorrt"}),
              default="pytorch")
@click.option("--log_level", type=click.Choice(levels.keys()), default="info")
@click.option("--trust_remote_code", is_flag=True, default=False)
@click.option("--old_knob", type=float, default=0.5, help=tagged("gone", "deprecated"))
@click.option("--config", "--extra_llm_api_options", "extra_llm_api_options", type=str,
              default=None)
def serve(model, max_batch_size, tensor_parallel_size, backend, log_level,
          trust_remote_code, old_knob, extra_llm_api_options):
    if os.environ.get("TRTLLM_SERVE_DEBUG"):
        print(model, max_batch_size, tensor_parallel_size, backend, log_level)
    print(trust_remote_code, extra_llm_api_options)


@click.command("disaggregated")
@click.option("-c", "--config_file", type=str, default=None)
def disaggregated(config_file):
    print(config_file)


class FallbackGroup(click.Group):
    def resolve_command(self, ctx, args):
        if args and args[0] not in self.commands:
            return "serve", self.commands["serve"], args
        return super().resolve_command(ctx, args)


main = FallbackGroup(commands={"serve": serve, "disaggregated": disaggregated})
