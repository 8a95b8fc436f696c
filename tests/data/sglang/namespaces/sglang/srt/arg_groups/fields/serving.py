# ruff: noqa
from typing import List, Literal, Optional

import msgspec

from sglang.srt.arg_groups.arg_utils import A, Arg


class Serving(msgspec.Struct):
    _NS_PATH = "serving"
    model_path: A[str, Arg(help="Model path.", aliases=["--model"])]
    tokenizer_backend: A[str, Arg(help="Backend.", choices=["huggingface", "fastokens"])] = (
        "huggingface")
    tp_size: A[int, Arg(help="TP.", cli_name="--tensor-parallel-size", aliases=["--tp-size"])] = 1
    dtype: A[Literal["auto", "bfloat16"], "Data type."] = "auto"
    enable_x: A[bool, "Enable x."] = False
    cuda_graph_bs: A[Optional[List[int]], "Batch sizes."] = None
    internal: A[int, Arg(help="hidden", no_cli=True)] = 0
    plain: int = 3
    cuda_graph_max_bs: A[
        Optional[int],
        Arg(help="Deprecated.", action="DeprecatedAliasStoreAction",
            action_kwargs={"new_flag": "--cuda-graph-max-bs-decode"}),
    ] = None
