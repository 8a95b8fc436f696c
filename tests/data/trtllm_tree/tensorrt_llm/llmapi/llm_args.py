import os
from enum import Enum
from typing import ClassVar, Dict, List, Literal, Optional, Union

from pydantic import BaseModel, Field


class StrictBaseModel(BaseModel):
    class Config:
        extra = "forbid"


class Policy(str, Enum):
    FIRST = "FIRST"
    SECOND = "SECOND"


class KvCacheConfig(StrictBaseModel):
    dtype: str = "auto"
    free_gpu_memory_fraction: Optional[float] = Field(default=0.9)
    enable_block_reuse: bool = True
    batch_sizes: Optional[List[int]] = None


class DecodingBaseConfig(StrictBaseModel):
    max_draft_len: Optional[int] = None

    @classmethod
    def from_dict(cls, data: dict, backend=None):
        config_classes = {"MTP": MTPDecodingConfig, "Eagle": EagleDecodingConfig}
        decoding_type = data.get("decoding_type")
        return config_classes[decoding_type](**data)


class MTPDecodingConfig(DecodingBaseConfig):
    decoding_type: ClassVar[str] = "MTP"
    num_nextn_predict_layers: int = 1


class EagleDecodingConfig(DecodingBaseConfig):
    decoding_type: ClassVar[str] = "Eagle"
    eagle_choices: Optional[List[List[int]]] = None


SpeculativeConfig = Optional[Union[MTPDecodingConfig, EagleDecodingConfig]]


class BaseLlmArgs(StrictBaseModel):
    model_config = {"extra": "forbid"}
    model: str = Field(description="the model")
    kv_cache_config: KvCacheConfig = Field(default_factory=KvCacheConfig)
    speculative_config: SpeculativeConfig = Field(default=None)
    tokenizer_mode: Literal["auto", "slow"] = "auto"
    policy: Policy = Policy.FIRST
    backend: Optional[str] = Field(default=None, status="deprecated")
    extra: Optional[Dict[str, int]] = None


class TrtLlmArgs(BaseLlmArgs):
    workspace: Optional[str] = None


class TorchLlmArgs(BaseLlmArgs):
    print_iter_log: bool = False
    stream_interval: int = 1

    def flag(self):
        return os.getenv("TLLM_TORCH_FLAG", "0")
