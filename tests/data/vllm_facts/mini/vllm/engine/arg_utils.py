from vllm.config.model import ModelConfig, TokenizerMode


class EngineArgs:
    tokenizer_mode: TokenizerMode | str = ModelConfig.tokenizer_mode
