import os


def env_with_choices(env_name, default, choices, case_sensitive=True):
    return lambda: os.getenv(env_name, default)


def deprecated_env(env_name, removal_version, replacement, getter):
    return getter


environment_variables = {
    "VLLM_USE_FASTOKENS": lambda: bool(int(os.getenv("VLLM_USE_FASTOKENS", "0"))),
    "VLLM_PORT": lambda: int(os.getenv("VLLM_PORT", "8000")),
    "VLLM_LEVEL": env_with_choices("VLLM_LEVEL", "high", ["high", "low"], case_sensitive=False),
    "VLLM_OLD_KNOB": deprecated_env(
        "VLLM_OLD_KNOB", "v0.2", "Use --new-knob.",
        lambda: os.getenv("VLLM_OLD_KNOB", "x"),
    ),
}


def validate_environ(hard_fail):
    for env in os.environ:
        if env.startswith("VLLM_") and env not in environment_variables:
            print(f"Unknown vLLM environment variable detected: {env}")
