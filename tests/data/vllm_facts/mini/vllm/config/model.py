from typing import Literal

TokenizerMode = Literal["auto", "hf", "slow", "fastokens"]


class ModelConfig:
    tokenizer_mode: TokenizerMode | str = "auto"
