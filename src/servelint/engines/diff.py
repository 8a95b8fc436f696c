"""What changed between two releases of one engine: flags, choices, value sets, env vars."""

from __future__ import annotations

from typing import Any

from servelint.engines.trtllm.diff import format_llm_api, llm_api_diff
from servelint.profiles import Profile


def _options(p: Profile) -> dict[str, Any]:
    out = {}
    for act in p.actions:
        for opt in act.accepted:
            out[opt] = act
    return out


def _sets(old: set[str], new: set[str]) -> dict[str, list[str]]:
    return {"added": sorted(new - old), "removed": sorted(old - new)}


def _option_changes(a: Any, b: Any) -> list[str]:
    """What changed in one option spelled in both releases."""
    notes = []
    if a.kind != b.kind:
        notes.append(f"kind {a.kind} -> {b.kind}")
    if a.nargs != b.nargs:
        notes.append(f"nargs {a.nargs} -> {b.nargs}")
    ca, cb = set(a.choices or []), set(b.choices or [])
    if (a.choices or []) != (b.choices or []):
        if ca - cb:
            notes.append("choices removed: " + ", ".join(sorted(ca - cb)))
        if cb - ca:
            notes.append("choices added: " + ", ".join(sorted(cb - ca)))
    if a.deprecated != b.deprecated:
        notes.append("now deprecated" if b.deprecated else "no longer deprecated")
    if a.raw.get("default") != b.raw.get("default"):
        notes.append(f"default {a.raw.get('default')} -> {b.raw.get('default')}")
    return notes


def _late_changes(old: Profile, new: Profile) -> dict[str, dict[str, list[str]]]:
    late = {}
    for name in sorted(set(old.late_values) | set(new.late_values)):
        va = set(old.late_values.get(name, {}).get("values", []))
        vb = set(new.late_values.get(name, {}).get("values", []))
        if va != vb:
            late[name] = _sets(va, vb)
    return late


def _env_changes(old: Profile, new: Profile) -> list[dict[str, Any]]:
    env_changed = []
    for name in sorted(set(old.env_registry) & set(new.env_registry)):
        a, b = old.env_registry[name], new.env_registry[name]
        for key in ("type", "default", "choices", "deprecated"):
            if a.get(key) != b.get(key):
                env_changed.append({"env": name, "field": key, "old": a.get(key), "new": b.get(key)})
    return env_changed


def diff_profiles(old: Profile, new: Profile) -> dict[str, Any]:
    o_opts, n_opts = _options(old), _options(new)
    changed = []
    for opt in sorted(set(o_opts) & set(n_opts)):
        notes = _option_changes(o_opts[opt], n_opts[opt])
        if notes:
            changed.append({"option": opt, "changes": notes})
    late = _late_changes(old, new)
    env_changed = _env_changes(old, new)
    old_pk, new_pk = set(old.image_packages()), set(new.image_packages())
    extra = {}
    if "llm_api" in new.data:  # TensorRT-LLM: the option-file model and the env reads
        extra["llm_api"] = llm_api_diff(old, new)
    return {
        **extra,
        "engine": new.engine,
        "old": old.version,
        "new": new.version,
        "options": {**_sets(set(o_opts), set(n_opts)), "changed": changed},
        "late_values": late,
        "env": {**_sets(set(old.env_registry), set(new.env_registry)), "changed": env_changed},
        "image_packages": _sets(old_pk, new_pk),
        "gates": _sets({_gate_key(g) for g in old.gates}, {_gate_key(g) for g in new.gates}),
    }


def _gate_key(gate: dict[str, Any]) -> str:
    trig = gate.get("trigger") or {}
    what = trig.get("name") or trig.get("path") or "?"
    value = trig.get("value")
    spec = gate.get("specifier") or ""
    return f"{trig.get('kind', '?')}:{what}{'=' + str(value) if value else ''} -> {gate.get('package')}{spec}"


def format_diff(d: dict[str, Any]) -> str:
    lines = [f"{d['engine']} {d['old']} -> {d['new']}"]

    def section(title: str, added: list[str], removed: list[str]) -> None:
        if not added and not removed:
            return
        lines.append(f"\n{title}:")
        lines.extend(f"  - {x}" for x in removed)
        lines.extend(f"  + {x}" for x in added)

    section("options", d["options"]["added"], d["options"]["removed"])
    if d["options"]["changed"]:
        lines.append("\noptions changed:")
        for c in d["options"]["changed"]:
            lines.append(f"  ~ {c['option']}: {'; '.join(c['changes'])}")
    for name, s in d["late_values"].items():
        section(f"values of {name}", s["added"], s["removed"])
    section("env vars", d["env"]["added"], d["env"]["removed"])
    if d["env"]["changed"]:
        lines.append("\nenv vars changed:")
        for c in d["env"]["changed"]:
            lines.append(f"  ~ {c['env']}: {c['field']} {c['old']!r} -> {c['new']!r}")
    section("image packages", d["image_packages"]["added"], d["image_packages"]["removed"])
    section("package gates", d["gates"]["added"], d["gates"]["removed"])
    if "llm_api" in d:
        format_llm_api(d["llm_api"], lines)
    return "\n".join(lines)
