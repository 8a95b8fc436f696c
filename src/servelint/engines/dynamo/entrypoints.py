"""The ``python -m dynamo.<worker>`` entrypoints, by worker: a module of its own so the
pipeline can tell a Dynamo launch without importing :mod:`.launch`."""

WORKER_MODULES = {
    "python3 -m dynamo.vllm": "vllm",
    "python -m dynamo.vllm": "vllm",
    "python3 -m dynamo.sglang": "sglang",
    "python -m dynamo.sglang": "sglang",
    "python3 -m dynamo.trtllm": "trtllm",
    "python -m dynamo.trtllm": "trtllm",
    "python3 -m dynamo.frontend": "frontend",
    "python -m dynamo.frontend": "frontend",
}
