"""SGLang release facts beyond the parser: optional-package gates and the image package set.

Gates: every ``raise`` whose message says ``pip install X`` (or raises ImportError /
ModuleNotFoundError with a message naming a package), tied to a trigger by code shape:
a comparison ``<x>.<dest> == "<value>"`` / ``in (...)`` in the raising function or in a
same-module caller, or an ``--flag=value`` / ``--flag value`` spelled in the message itself,
where ``dest``/``value`` are an option and one of its choices. Untied gates keep
``trigger: null``. Late value sets: none extracted (SGLang enforces its value sets with
argparse ``choices``); the section is left empty.

Image: ``lmsysorg/sglang:v<version>`` is assumed to hold the wheel's unconditional
``Requires-Dist`` evaluated for Linux x86_64 / CPython 3.12 (marked inferred: the image's
own Dockerfile is not in the wheel). The entrypoint cannot be derived from the wheel.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement

from servelint.builders.wheel import WheelSource

_PIP = re.compile(
    r"pip install\s+['\"]?([A-Za-z0-9_.\-]+(?:\[[A-Za-z0-9_,\-]+\])?"
    r"(?:[<>=!~]=?[A-Za-z0-9_.*]+)?)"
)
_FLAG_VALUE = re.compile(r"(--[a-z0-9][a-z0-9\-]*)(?:=|\s+)['\"]?([A-Za-z0-9_.\-]+)")
TARGET_ENV = {
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "python_version": "3.12",
    "python_full_version": "3.12.3",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "os_name": "posix",
}


def _strings(node: ast.AST) -> str:
    return " ".join(
        c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)
    )


def _comparisons(fn: ast.AST, choices: dict[str, set[str]]) -> set[tuple[str, str]]:
    found = set()
    for node in ast.walk(fn):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        left = node.left
        dest = (
            left.attr
            if isinstance(left, ast.Attribute)
            else (left.id if isinstance(left, ast.Name) else None)
        )
        if dest not in choices:
            continue
        comp = node.comparators[0]
        if isinstance(node.ops[0], ast.Eq) and isinstance(comp, ast.Constant):
            values = [comp.value]
        elif isinstance(node.ops[0], ast.In) and isinstance(comp, ast.List | ast.Tuple | ast.Set):
            values = [e.value for e in comp.elts if isinstance(e, ast.Constant)]
        else:
            continue
        for v in values:
            if isinstance(v, str) and v in choices[dest]:
                found.add((dest, v))
    return found


def _index_functions(
    node: ast.AST, fn: ast.AST | None, raises: list, callers: dict[str, list[ast.AST]]
) -> None:
    """One pass: each raise with its innermost enclosing function; callee name -> callers."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            _index_functions(child, child, raises, callers)
            continue
        if isinstance(child, ast.Raise) and child.exc is not None and fn is not None:
            raises.append((fn, child))
        elif isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and fn is not None:
            callers.setdefault(child.func.id, []).append(fn)
        _index_functions(child, fn, raises, callers)


def _package(message: str, extras: dict[str, list[str]]) -> tuple[str, str, str | None] | None:
    m = _PIP.search(message)
    if not m or message[m.end() : m.end() + 1] in {"/", "+", ":"}:
        return None  # a URL / path / VCS install names no registry package
    try:
        req = Requirement(m.group(1).rstrip(".,'\""))
    except InvalidRequirement:
        return None
    if req.name.lower() == "sglang" and req.extras:
        extra = sorted(req.extras)[0]
        reqs = extras.get(extra) or []
        if reqs:
            inner = Requirement(reqs[0])
            return inner.name, str(inner.specifier), extra
        return f"sglang[{extra}]", "", extra
    return req.name, str(req.specifier), None


def _gate(
    trigger: dict | None, pkg: tuple[str, str, str | None], path: str, node: ast.AST, message: str
) -> dict[str, Any]:
    return {
        "trigger": trigger,
        "package": pkg[0],
        "specifier": pkg[1],
        "extra": pkg[2],
        "source": f"{path}:{node.lineno}",
        "message": " ".join(message.split())[:300],
    }


def gates(src: WheelSource, profile: dict, extras: dict[str, list[str]]) -> list[dict[str, Any]]:
    env = profile.get("env", {})
    registry = set(env.get("registry", {})) | set(env.get("read_unregistered", []))
    actions = profile.get("parser", {}).get("actions", [])
    choices = {a["dest"]: set(a["choices"]) for a in actions if a.get("choices")}
    by_flag = {o: a for a in actions for o in a.get("option_strings", [])}
    out: list[dict[str, Any]] = []
    for name in src.names:
        if not (name.startswith("sglang/") and name.endswith(".py")):
            continue
        text = src.read(name)
        if "pip install" not in text:
            continue
        try:
            tree = src.parse(name)
        except SyntaxError:
            continue
        raises: list[tuple[ast.AST, ast.Raise]] = []
        callers: dict[str, list[ast.AST]] = {}
        _index_functions(tree, None, raises, callers)
        for fn, node in raises:
            message = _strings(node.exc)  # type: ignore[arg-type]
            pkg = _package(message, extras)
            if pkg is None:
                continue
            triggers: set[tuple[str, str]] = set()
            for flag, value in _FLAG_VALUE.findall(message):  # the message names it
                act = by_flag.get(flag)
                value = value.rstrip(".")
                if act and value in (act.get("choices") or []):
                    triggers.add((act["dest"], value))
            if not triggers:  # a flag named without a value (--use-ray, --enable-http2)
                named = {
                    by_flag[f]["dest"]
                    for f in re.findall(r"--[a-z0-9][a-z0-9\-]*", message)
                    if f in by_flag
                }
                if len(named) == 1:
                    dest = named.pop()
                    out.append(
                        _gate(
                            {"kind": "option", "name": dest, "dest": dest, "value": None},
                            pkg,
                            name,
                            node,
                            message,
                        )
                    )
                    continue
                envs_named = set(re.findall(r"\b(SGLANG_[A-Z0-9_]+)", message)) & registry
                if len(envs_named) == 1:
                    out.append(
                        _gate(
                            {
                                "kind": "env",
                                "name": envs_named.pop(),
                                "value": "truthy" if "=1" in message else None,
                            },
                            pkg,
                            name,
                            node,
                            message,
                        )
                    )
                    continue
            if not triggers:
                triggers = _comparisons(fn, choices)
            if not triggers:
                for caller in callers.get(getattr(fn, "name", ""), []):
                    triggers |= _comparisons(caller, choices)
            trig = None
            if len(triggers) == 1:
                dest, value = next(iter(triggers))
                trig = {"kind": "option", "name": dest, "dest": dest, "value": value}
            out.append(_gate(trig, pkg, name, node, message))
    return out


def image(src: WheelSource) -> dict[str, Any]:
    env = dict(default_environment())
    env.update(TARGET_ENV)
    packages: dict[str, Any] = {
        "sglang": {"specifier": f"=={src.version}", "source": "the wheel itself"}
    }
    for text in src.requires_dist:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is not None:
            env["extra"] = ""
            if not req.marker.evaluate(env):
                continue
        packages[req.name.lower()] = {
            "specifier": str(req.specifier),
            "source": "requires-dist",
            "inferred": True,
        }
    # releases whose runtime deps sit behind an `srt` extra (<= 0.5.2): which extras the
    # image installed is not recorded in the wheel, so the set is known to be incomplete
    runtime_extra = [
        e
        for e in src.provides_extra
        if e in {"srt", "runtime-common", "all"} and "srt" in src.provides_extra
    ]
    return {
        "repository": "lmsysorg/sglang",
        "tag": f"v{src.version}",
        "entrypoint": None,
        "packages": packages,
        "complete": not runtime_extra,
        "unknown_extras": runtime_extra,
        "method": "wheel Requires-Dist (no extras) evaluated for linux x86_64 CPython 3.12; "
        "image additions unknown (no Dockerfile in the wheel); entrypoint not "
        "derivable from the wheel",
    }


def extras_map(src: WheelSource) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for text in src.requires_dist:
        m = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", text)
        if m:
            out.setdefault(m.group(1), []).append(text.split(";")[0].strip())
    return out


def extract(src: WheelSource, profile: dict) -> dict:
    extras = extras_map(src)
    return {
        "gates": gates(src, profile, extras),
        "late_values": {},
        "image": image(src),
        "extras": extras,
    }
