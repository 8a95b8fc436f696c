"""The hardware a recipe guide's section is written for, read from its heading ("### AMD
MI300X / MI355X", "### 1x RTX 5090", "### TPU v6e (Trillium)") and the ROCm/TPU env names
its block exports, so that the guide-drift rule compares a guide command only with the
recipe's renderings for that hardware (``guide_flags.annotate``).

GPU names come from ``servelint.util.hardware`` (ids and product names); a heading that names a
vendor or generation only ("AMD ROCm", "Hopper") selects every GPU of it. A section that
names nothing is compared with every rendering, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from servelint.util import hardware

# vendor words -> hardware.Gpu.vendor
_VENDOR_WORDS = {
    "amd": "amd",
    "rocm": "amd",
    "instinct": "amd",
    "tpu": "google",
    "xeon": "cpu",  # (not "cpu": "CPU KV offload" runs on a GPU)
    "ascend": "huawei",
    "npu": "huawei",
    "xpu": "intel",
    "intel": "intel",
    "nvidia": "nvidia",
    "cuda": "nvidia",
}
# generation words -> compute capability majors (NVIDIA)
_GENERATIONS = {"hopper": (9,), "blackwell": (10, 12), "ampere": (8,), "ada": (8,)}
# env name prefixes a block exports for one vendor's stack
_ENV_VENDORS = (("VLLM_ROCM_", "amd"), ("HIP_", "amd"), ("ROCM_", "amd"), ("TPU_", "google"))
_MULTIPLE = re.compile(r"_\d+x$")


def _base(gpu_id: str) -> str:
    """``rtx_5090_2x`` -> ``rtx_5090`` (a count of the same GPU)."""
    return _MULTIPLE.sub("", gpu_id)


def _gpu_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(pattern, base GPU id): each id spelt with spaces, dashes or nothing between its parts,
    and each product name without its vendor ("TPU v6e", "Xeon 6")."""
    out: dict[str, set[str]] = {}
    for gpu in hardware.GPUS.values():
        base = _base(gpu.id)
        words = [re.escape(w) for w in base.split("_")]
        out.setdefault(base, set()).add(r"[\s_-]*".join(words))
        model = gpu.name.split(" ", 1)[1] if " " in gpu.name else gpu.name
        if gpu.vendor in ("google", "cpu"):  # "TPU v6e", "Xeon 6": the id says no more
            out[base].add(r"\s*".join(re.escape(w) for w in model.lower().split()))
    return tuple(
        (re.compile(rf"(?<![a-z0-9])(?:{'|'.join(sorted(alts))})(?![a-z0-9])"), base)
        for base, alts in out.items()
    )


_PATTERNS = _gpu_patterns()


@dataclass(slots=True, eq=False)
class SectionHardware:
    """GPUs a guide section names: base ids, vendors and compute capability majors."""

    ids: set[str]
    vendors: set[str]
    majors: set[int]

    def names_any(self) -> bool:
        return bool(self.ids or self.vendors or self.majors)

    def covers(self, gpu_id: str) -> bool:
        """Whether a rendering for ``gpu_id`` is for this section's hardware."""
        gpu = hardware.lookup(gpu_id)
        if gpu is None:
            return not self.names_any()
        if self.ids:
            return _base(gpu.id) in self.ids
        cc = gpu.compute_capability
        if self.majors:
            return cc is not None and cc[0] in self.majors
        return not self.vendors or gpu.vendor in self.vendors


def section_hardware(heading: str | None, env_names: list[str]) -> SectionHardware:
    """What ``heading`` (and the block's exported env names) say the section runs on."""
    text = (heading or "").lower()
    ids = {base for pattern, base in _PATTERNS if pattern.search(text)}
    vendors = {v for w, v in _VENDOR_WORDS.items() if re.search(rf"(?<![a-z]){w}(?![a-z])", text)}
    majors = {m for w, ms in _GENERATIONS.items() if w in text for m in ms}
    for name in env_names:
        vendors |= {v for prefix, v in _ENV_VENDORS if name.startswith(prefix)}
    return SectionHardware(ids, vendors, majors)


def headings(markdown: str) -> list[str | None]:
    """For each line of ``markdown``, the last heading above it outside a fenced block."""
    out: list[str | None] = []
    current: str | None = None
    fence = ""
    for line in markdown.splitlines():
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence):
                fence = ""
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif re.match(r"#{1,6}\s", stripped):
            current = stripped.lstrip("#").strip()
        out.append(current)
    return out
