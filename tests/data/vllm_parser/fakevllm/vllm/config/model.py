from dataclasses import field
from typing import Any, Literal

from vllm.config.utils import config

TokenizerMode = Literal["auto", "slow"]


@config
class ModelConfig:
    """Model configuration."""

    model: str = "m"
    """Model name."""
    dtype: Literal["auto", "half", "float"] = "auto"
    """Data type."""
    tokenizer_mode: TokenizerMode | str = "auto"
    """Tokenizer mode."""
    max_model_len: int | None = None
    """Context length."""
    enforce_eager: bool = False
    """Eager mode."""
    served_model_name: list[str] | None = None
    """Names."""
    hf_overrides: dict[str, Any] = field(default_factory=dict)
    """HF overrides."""
    quantization: Literal["fp8", "awq"] | None = None
    """Quantization."""
    all2all_backend: Literal["naive", "pplx", "passthrough"] = "naive"
    """All2all backend."""
    reasoning: bool | str | None = None
    """Bool-or-string flag."""
    pooling: Literal["CLS", "LAST"] | Literal["ALL", "STEP"] | None = None
    """Two literal sets in one union (a hint set: its order depends on the hash seed)."""
