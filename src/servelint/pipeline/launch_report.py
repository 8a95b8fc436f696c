"""One launch's report: the releases it was judged on, its errors, its works-on range and
the summary the JSON report lists. Its own module, so that a run served from the cache
does not import the judging machinery (``judge``) to read results back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from servelint.model import LaunchSpec


@dataclass(slots=True, eq=False, repr=False)
class LaunchReport:
    """One launch of a unit as reports summarise it: the releases judged and its errors."""

    spec: LaunchSpec | None  # dropped once summarised
    judged: list[str]  # "vllm 0.27.1 (image tag v0.27.1)"
    errors: int = 0
    works_on: dict[str, str | int | None] | None = None
    summary: dict[str, Any] = field(default_factory=dict)
