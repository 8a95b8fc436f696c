"""What changed in the LLM API model (option-file fields) and the env reads of two releases."""

from __future__ import annotations

import json
from typing import Any

from servelint.profiles import Profile


def _fields(p: Profile) -> dict[str, str]:
    """``Class.field`` -> its type (JSON text) and status, for every class of the model."""
    out = {}
    for cls, entry in p.data.get("llm_api", {}).get("classes", {}).items():
        for name, f in entry.get("fields", {}).items():
            status = f" [{f['status']}]" if f.get("status") else ""
            out[f"{cls}.{name}"] = json.dumps(f.get("type"), sort_keys=True) + status
    return out


def llm_api_diff(old: Profile, new: Profile) -> dict[str, Any]:
    a, b = _fields(old), _fields(new)
    changed = [
        {"field": k, "old": a[k], "new": b[k]} for k in sorted(set(a) & set(b)) if a[k] != b[k]
    ]
    ea, eb = old.env_read_unregistered, new.env_read_unregistered
    return {
        "fields": {
            "added": sorted(set(b) - set(a)),
            "removed": sorted(set(a) - set(b)),
            "changed": changed,
        },
        "env_read": {"added": sorted(eb - ea), "removed": sorted(ea - eb)},
    }


def format_llm_api(d: dict[str, Any], lines: list[str]) -> None:
    fields = d["fields"]
    if fields["added"] or fields["removed"]:
        lines.append("\nLLM API fields (option files):")
        lines.extend(f"  - {x}" for x in fields["removed"])
        lines.extend(f"  + {x}" for x in fields["added"])
    if fields["changed"]:
        lines.append("\nLLM API fields changed:")
        lines.extend(f"  ~ {c['field']}: {c['old']} -> {c['new']}" for c in fields["changed"])
    env = d["env_read"]
    if env["added"] or env["removed"]:
        lines.append("\nenv vars the code reads:")
        lines.extend(f"  - {x}" for x in env["removed"])
        lines.extend(f"  + {x}" for x in env["added"])
