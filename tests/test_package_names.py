"""servelint.util.package_names: package names are matched under PEP 503 normalisation."""

import pytest
from packaging.utils import canonicalize_name as packaging_canonical

from servelint.util.package_names import canonicalize_name


@pytest.mark.parametrize(
    "name",
    [
        "flash_attn",
        "Flash-Attn",
        "flash.attn",
        "FLASH__-.attn",
        "vllm",
        "nvidia-cublas-cu12",
        "a",
        "zope.interface",
        "Pillow",
        "ruamel.yaml.clib",
        "x-_.-y",
    ],
)
def test_canonical_name_is_packaging_s(name: str) -> None:
    assert canonicalize_name(name) == packaging_canonical(name)
