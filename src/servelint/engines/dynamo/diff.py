"""What changed between two ai-dynamo releases, worker by worker."""

from __future__ import annotations

from typing import Any

from servelint.engines.diff import diff_profiles, format_diff
from servelint.profiles import Profile


def _worker_profile(prof: Profile, worker: str) -> Profile:
    w = prof.data.get("workers", {}).get(worker, {})
    return Profile(
        {
            "engine": f"dynamo.{worker}",
            "version": prof.version,
            "parser": {"actions": w.get("actions", [])},
        }
    )


def diff_dynamo(old: Profile, new: Profile) -> dict[str, Any]:
    out: dict[str, Any] = {
        "engine": "dynamo",
        "old": old.version,
        "new": new.version,
        "workers": {},
    }
    names = sorted(set(old.data.get("workers", {})) | set(new.data.get("workers", {})))
    for worker in names:
        a = old.data.get("workers", {}).get(worker)
        b = new.data.get("workers", {}).get(worker)
        entry: dict[str, Any] = {"present": [a is not None, b is not None]}
        if a and b:
            d = diff_profiles(_worker_profile(old, worker), _worker_profile(new, worker))
            entry["options"] = d["options"]
            for key in ("engine_parser",):
                if a.get(key) != b.get(key):
                    entry[key] = [a.get(key), b.get(key)]
            abbrev = [a["parser"].get("allow_abbrev"), b["parser"].get("allow_abbrev")]
            if abbrev[0] != abbrev[1]:
                entry["allow_abbrev"] = abbrev
        out["workers"][worker] = entry
    return out


def format_dynamo_diff(d: dict[str, Any]) -> str:
    lines = [f"dynamo {d['old']} -> {d['new']}"]
    for worker, entry in d["workers"].items():
        lines.append(f"\n== dynamo.{worker} ==")
        present = entry["present"]
        if present != [True, True]:
            lines.append("  added in " + d["new"] if present[1] else "  gone in " + d["new"])
            continue
        for key in ("engine_parser", "allow_abbrev"):
            if key in entry:
                lines.append(f"  {key}: {entry[key][0]} -> {entry[key][1]}")
        body = format_diff(
            {
                "engine": "",
                "old": "",
                "new": "",
                "options": entry["options"],
                "late_values": {},
                "env": {"added": [], "removed": [], "changed": []},
                "image_packages": {"added": [], "removed": []},
                "gates": {"added": [], "removed": []},
            }
        )
        rest = body.split("\n", 1)[1] if "\n" in body else ""
        lines.append(rest.strip("\n") or "  (no option changes)")
    return "\n".join(lines)
