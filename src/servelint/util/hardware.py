"""GPU facts by hardware id (recipes taxonomy ids and InferenceX runner names).

Compute capability and per-GPU memory are public vendor specifications, not engine
facts. ``None`` for a vendor with no CUDA compute capability (AMD, TPU, CPU, ...).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, eq=False)
class Gpu:
    """One GPU model servelint knows (``--gpu`` names it by ``id``; one instance per id)."""

    id: str
    vendor: str  # nvidia | amd | google | intel | huawei | cpu
    name: str
    compute_capability: tuple[int, int] | None
    memory_gb: int | None


_GPUS = [
    Gpu("a100", "nvidia", "NVIDIA A100", (8, 0), 80),
    Gpu("h100", "nvidia", "NVIDIA H100", (9, 0), 80),
    Gpu("h200", "nvidia", "NVIDIA H200", (9, 0), 141),
    Gpu("h20", "nvidia", "NVIDIA H20", (9, 0), 96),
    Gpu("b200", "nvidia", "NVIDIA B200", (10, 0), 180),
    Gpu("gb200", "nvidia", "NVIDIA GB200", (10, 0), 186),
    Gpu("b300", "nvidia", "NVIDIA B300", (10, 3), 270),
    Gpu("gb300", "nvidia", "NVIDIA GB300", (10, 3), 279),
    Gpu("dgx_station_gb300", "nvidia", "NVIDIA DGX Station GB300", (10, 3), 279),
    Gpu("dgx_spark_gb10", "nvidia", "NVIDIA DGX Spark GB10", (12, 1), 128),
    Gpu("rtx_pro_6000", "nvidia", "NVIDIA RTX PRO 6000 Blackwell", (12, 0), 96),
    Gpu("rtx_pro_6000_2x", "nvidia", "NVIDIA RTX PRO 6000 Blackwell", (12, 0), 96),
    Gpu("rtx_pro_6000_8x", "nvidia", "NVIDIA RTX PRO 6000 Blackwell", (12, 0), 96),
    Gpu("rtx_pro_5000", "nvidia", "NVIDIA RTX PRO 5000 Blackwell", (12, 0), 48),
    Gpu("rtx_pro_5000_4x", "nvidia", "NVIDIA RTX PRO 5000 Blackwell", (12, 0), 48),
    Gpu("rtx_5090", "nvidia", "NVIDIA GeForce RTX 5090", (12, 0), 32),
    Gpu("rtx_5090_2x", "nvidia", "NVIDIA GeForce RTX 5090", (12, 0), 32),
    Gpu("rtx_4090_2x", "nvidia", "NVIDIA GeForce RTX 4090", (8, 9), 24),
    Gpu("l40s", "nvidia", "NVIDIA L40S", (8, 9), 48),
    Gpu("mi300x", "amd", "AMD Instinct MI300X", None, 192),
    Gpu("mi325x", "amd", "AMD Instinct MI325X", None, 256),
    Gpu("mi350x", "amd", "AMD Instinct MI350X", None, 288),
    Gpu("mi355x", "amd", "AMD Instinct MI355X", None, 288),
    Gpu("trillium", "google", "Google TPU v6e", None, 32),
    Gpu("ironwood", "google", "Google TPU v7", None, 192),
    Gpu("xeon6", "cpu", "Intel Xeon 6", None, None),
    Gpu("xeon5", "cpu", "Intel Xeon 5", None, None),
    Gpu("arc_pro_b60", "intel", "Intel Arc Pro B60", None, 24),
    Gpu("arc_pro_b70", "intel", "Intel Arc Pro B70", None, 32),
    Gpu("ascend_950pr", "huawei", "Huawei Ascend 950PR", None, None),
]

GPUS: dict[str, Gpu] = {g.id: g for g in _GPUS}


def lookup(gpu_id: str | None) -> Gpu | None:
    if not gpu_id:
        return None
    key = gpu_id.strip().lower().replace("-", "_")
    if key in GPUS:
        return GPUS[key]
    # runner names such as "b300-nv_0" or "h200-cw" start with the GPU id
    for gid in sorted(GPUS, key=len, reverse=True):
        if key.startswith(gid):
            return GPUS[gid]
    return None
