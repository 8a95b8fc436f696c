"""vLLM: ``vllm serve`` and the OpenAI api_server module, images ``vllm/vllm-openai*``."""

from servelint.engines.base import Command, Engine, Images, Module
from servelint.engines.vllm import image_entrypoints

ENGINE = Engine(
    name="vllm",
    package="vllm",
    images=Images(
        repositories=(
            "vllm/vllm-openai",
            "vllm/vllm-openai-rocm",
            "vllm/vllm-openai-cpu",
            "vllm/vllm-tpu",
            "rocm/vllm",
            "rocm/vllm-dev",
            "nvidia/ai-dynamo/vllm-runtime",
        ),
        official=("vllm/vllm-openai", "vllm/vllm-openai-rocm"),
        wrappers=("nvidia/ai-dynamo/vllm-runtime",),
        name_words=("vllm",),
        # each release's own docker/Dockerfile (tools/gen_image_entrypoints.py): the
        # api_server module up to 0.11.0, ``vllm serve`` from 0.11.1
        entrypoint_table=image_entrypoints.entrypoint,
        # a release whose Dockerfile was not read (newer than the table): ENTRYPOINT
        # ["vllm", "serve"] as every release from 0.11.1 has it
        entrypoints={"vllm/vllm-openai": ("vllm", "serve")},
        # the ROCm/CPU/TPU builds' Dockerfiles are not read: arguments that start with a flag
        # or a model id are taken as `vllm serve` arguments, saying so
        assumed_entrypoint=("vllm", "serve"),
    ),
    launchers=(
        Command(("vllm", "serve")),
        Module("vllm.entrypoints.openai.api_server"),
        Module("vllm.entrypoints.cli.main", "vllm serve", then=("serve",)),
    ),
    config_flags=("--config",),
    config_expander="servelint.engines.vllm.config_file:config_tokens",
    # `vllm serve … --omni` is served by vLLM-Omni: the stock main hands `--omni` over to the
    # vllm-omni package and stops without it (the parser's omni_handoff rule)
    handoff_flags=(("--omni", "vllm-omni"),),
    source_repositories=("vllm-project/vllm",),
    shell_words=("vllm", "api_server"),
    argv_module="servelint.engines.vllm.argv",
    extractors=(
        "servelint.builders.vllm.parser",  # parser (options, argv rules) + configs
        "servelint.builders.vllm.env",  # env registry
        "servelint.builders.vllm.values",  # late-checked value sets
        "servelint.builders.vllm.gates",  # optional-package gates
        "servelint.builders.vllm.image",  # image package set
        "servelint.builders.vllm.backends",  # backend hardware limits
        "servelint.builders.vllm.conditions",  # validator raise/assert conditions
        "servelint.builders.vllm.serve_checks",  # `vllm serve`'s namespace checks
        "servelint.builders.vllm.version_fields",  # fields parsed as versions
        "servelint.builders.vllm.condition_index",  # each check's reads, outcome on defaults
    ),
)
