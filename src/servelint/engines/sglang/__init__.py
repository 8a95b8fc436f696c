"""SGLang: ``python -m sglang.launch_server`` and ``sglang serve``, images ``lmsysorg/sglang*``."""

from servelint.engines.base import Command, Engine, Images, Module

ENGINE = Engine(
    name="sglang",
    package="sglang",
    images=Images(
        repositories=(
            "lmsysorg/sglang",
            "lmsysorg/sglang-rocm",
            "rocm/sgl-dev",
            "nvidia/ai-dynamo/sglang-runtime",
        ),
        official=("lmsysorg/sglang", "lmsysorg/sglang-rocm"),
        wrappers=("nvidia/ai-dynamo/sglang-runtime",),
        name_words=("sglang",),
    ),
    launchers=(
        Command(("sglang", "serve")),
        Module("sglang.launch_server"),
    ),
    config_flags=("--config",),
    config_read_by_parser=True,
    shell_words=("sglang", "launch_server"),
    argv_module="servelint.engines.sglang.argv",
    extractors=(
        "servelint.builders.sglang.parser",
        "servelint.builders.sglang.env",
        "servelint.builders.sglang.facts",
    ),
)
