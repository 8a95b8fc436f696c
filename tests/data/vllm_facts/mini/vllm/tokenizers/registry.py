import vllm.envs as envs

_VLLM_TOKENIZERS = {
    "hf": ("hf", "HfTokenizer"),
    "fastokens": ("fastokens", "FastokensTokenizer"),
}


def load_tokenizer_cls(tokenizer_mode):
    if tokenizer_mode == "slow":
        tokenizer_mode = "hf"
    if tokenizer_mode not in _VLLM_TOKENIZERS:
        raise ValueError(f"No tokenizer registered for {tokenizer_mode=!r}.")


def get_tokenizer():
    if envs.VLLM_USE_FASTOKENS:
        from .fastokens import apply_patch

        apply_patch()
    return None
