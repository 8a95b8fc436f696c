from dataclasses import field
from typing import Literal

from vllm.config.attention import AttentionConfig
from vllm.config.utils import config


@config
class SpeculativeConfig:
    """Speculative decoding."""

    method: Literal["ngram", "eagle"] | None = None
    """Method."""
    num_speculative_tokens: int = 1
    """Tokens."""


@config
class VllmConfig:
    """Everything."""

    attention_config: AttentionConfig = field(default_factory=AttentionConfig)
    """Attention configuration."""
    speculative_config: SpeculativeConfig | None = None
    """Speculative configuration."""
