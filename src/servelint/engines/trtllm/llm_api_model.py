"""A TensorRT-LLM release's LLM API model as its profile records it (the option file checker
and the option-file recogniser read it)."""

from __future__ import annotations

from typing import Any

from servelint.profiles import Profile


class LlmApiModel:
    """A release's LLM API classes (``llm_api`` of its profile): fields with their bases',
    validators' refusals, extras forbidden, ``speculative_config`` dispatch, sources."""

    def __init__(self, profile: Profile):
        llm = profile.data.get("llm_api", {})
        self.classes: dict[str, Any] = llm.get("classes", {})
        self.roots: dict[str, str] = llm.get("roots", {})
        self.evidence: dict[str, str] = llm.get("evidence", {})
        self.label = profile.label
        self._fields: dict[str, dict[str, Any]] = {}

    def fields(self, cls: str) -> dict[str, Any]:
        """Fields of ``cls`` with its bases' (a subclass overrides)."""
        if cls not in self._fields:
            entry = self.classes.get(cls, {})
            merged: dict[str, Any] = {}
            for base in entry.get("bases", []):
                merged.update(self.fields(base))
            for name, f in entry.get("fields", {}).items():
                merged[name] = dict(f, owner=cls)
            self._fields[cls] = merged
        return self._fields[cls]

    def refusals(self, cls: str, field: str) -> list[tuple[dict[str, Any], str]]:
        """(refusal, validator name) of the ``field_validator``s of ``cls`` and its bases
        whose bounds the builder read (``build_bounds``)."""
        entry = self.classes.get(cls, {})
        out = [
            (r, v["name"])
            for v in entry.get("validators", ())
            if field in v.get("fields", ())
            for r in v.get("refuses", ())
        ]
        for base in entry.get("bases", []):
            out += self.refusals(base, field)
        return out

    def forbids(self, cls: str) -> bool:
        entry = self.classes.get(cls, {})
        if "forbid" in entry:
            return bool(entry["forbid"])
        return any(self.forbids(b) for b in entry.get("bases", []))

    def dispatch(self, cls: str) -> dict[str, Any] | None:
        entry = self.classes.get(cls, {})
        if "dispatch" in entry:
            return entry["dispatch"]
        for b in entry.get("bases", []):
            found = self.dispatch(b)
            if found:
                return found
        return None

    def source(self, cls: str, field: str | None = None) -> str:
        entry = self.classes.get(cls, {})
        f = self.fields(cls).get(field or "", {}) if field else {}
        owner = self.classes.get(f.get("owner", cls), entry)
        line = f.get("line") if field else entry.get("line")
        return f"{owner.get('file', '?')}:{line}" if line else owner.get("file", "")


def model_of(profile: Profile) -> LlmApiModel:
    """The LLM API model of a release, its merged field tables built once per profile."""
    return profile.derived("trtllm.option_file.model", LlmApiModel)
