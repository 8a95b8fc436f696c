import enum
from typing import Any, Literal

from pydantic import field_validator

from vllm.config.utils import config


class Backend(enum.Enum):
    FLASH = "flash"
    TRITON = "triton"


KVDtype = Literal["bf16", "fp8"]


@config
class AttentionConfig:
    """Attention configuration."""

    backend: Backend | None = None
    """Attention backend."""
    kv_dtype: KVDtype = "bf16"
    """Indexer dtype."""
    use_fast: bool = False
    """Use the fast path."""

    @field_validator("backend", mode="before")
    @classmethod
    def _backend(cls, value: Any) -> Any:
        if isinstance(value, str):
            if value.lower() == "auto":
                return None
            return Backend[value.upper()]
        return value
