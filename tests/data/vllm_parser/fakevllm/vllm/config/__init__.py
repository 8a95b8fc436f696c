from vllm.config.attention import AttentionConfig
from vllm.config.model import ModelConfig
from vllm.config.vllm import SpeculativeConfig, VllmConfig

__all__ = ["AttentionConfig", "ModelConfig", "SpeculativeConfig", "VllmConfig"]
