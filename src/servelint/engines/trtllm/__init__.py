"""TensorRT-LLM: ``trtllm-serve`` (a click command group) and its LLM API option files.

``builder`` (profiles from a source tree or a wheel, read with ``ast``: ``build_cli``,
``build_llm_args``, ``build_env``; ``source`` keeps the provenance), ``argv`` (click's parsing
of ``trtllm-serve`` argv; the registry's argv model), ``option_file`` and ``facts`` (the
``--config``/``--extra_llm_api_options`` YAML against the LLM API model, for config-invalid),
``diff`` (LLM API field changes for ``servelint profile diff``). Releases without a profile
are judged by their profiled neighbours (``servelint.releases.release_range``).
"""

from servelint.engines.base import Command, Engine, Images, Module

NAME = "trtllm"
PACKAGE = "tensorrt-llm"
IMAGE_REPOSITORIES = ("nvidia/tensorrt-llm/release",)

ENGINE = Engine(
    name=NAME,
    package=PACKAGE,
    images=Images(
        repositories=(*IMAGE_REPOSITORIES, "nvidia/ai-dynamo/tensorrtllm-runtime"),
        official=IMAGE_REPOSITORIES,
        wrappers=("nvidia/ai-dynamo/tensorrtllm-runtime",),
        name_words=("tensorrt-llm", "tensorrtllm", "trtllm"),
    ),
    launchers=(
        Command(("trtllm-serve", "serve"), "trtllm-serve"),
        Command(("trtllm-serve", "disaggregated")),
        Command(("trtllm-serve",)),
        # Dynamo's TensorRT-LLM worker: its argv is Dynamo's (engines.dynamo.launch), its
        # --extra-engine-args file this release's LLM API (engines.dynamo.engine_file)
        Module("dynamo.trtllm", "python3 -m dynamo.trtllm"),
    ),
    config_flags=("--extra_llm_api_options", "--extra-llm-api-options", "--config"),
    shell_words=("trtllm-serve", "dynamo.trtllm"),
    argv_module="servelint.engines.trtllm.argv",
    # built from a source tree or a wheel by servelint.builders.trtllm.builder
    extractors=("servelint.builders.trtllm.builder",),
    option_file_checks=True,
    # Dynamo's trtllm worker and frontend: their argv is Dynamo's (engines.dynamo), the
    # worker's --extra-engine-args file this release's LLM API (engines.dynamo.engine_file)
    judged_entrypoints=(
        "trtllm-serve",
        *(f"{py} -m dynamo.{w}" for py in ("python3", "python") for w in ("trtllm", "frontend")),
    ),
    sparse_profiles=True,
)
# the LLM API model each ``--backend`` builds (tensorrt_llm/llmapi/llm.py picks the class)
BACKEND_ROOTS = {
    "pytorch": "TorchLlmArgs",
    "tensorrt": "TrtLlmArgs",
    "_autodeploy": "AutoDeployLlmArgs",
}
