"""Distribution names compared the way pip compares them (PEP 503 normalisation).

Its own module because ``packaging.utils`` imports ``packaging.tags`` (platform, logging,
subprocess, sysconfig: ~10 ms of start-up) for this one substitution.
"""

from __future__ import annotations

import re

_SEPARATORS = re.compile(r"[-_.]+")


def canonicalize_name(name: str) -> str:
    """The PEP 503 normalised form of a distribution name (``Flash_Attn`` -> ``flash-attn``)."""
    return _SEPARATORS.sub("-", name).lower()
