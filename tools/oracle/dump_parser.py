#!/usr/bin/env python
"""Dump the real `vllm serve` parser of the installed vLLM as JSON.

Run INSIDE an oracle venv (see build_env.sh):

    /tmp/oracle-venvs/vllm-0.27.1/bin/python oracle/dump_parser.py \
        --out oracle/out/0.27.1

Writes into --out:
    parser.json        every action of the serve sub-parser (+ top level),
                       argument groups, FlexibleArgumentParser facts
    config_classes.json  fields of every config dataclass that a JSON/dotted
                       argument (--attention-config.x, --compilation-config ...)
                       is validated against (name, type, default)
    envs.json          vllm.envs.environment_variables: names, default under
                       an empty environment, choices where declared
    enums.json         attention backend enum (+ other backend enums found)
    meta.json          versions, platform used, timings

`--help=all` is put in sys.argv before vLLM is imported because vLLM only
collects per-option help text when some argv element contains "--help"
(engine/arg_utils.py NEEDS_HELP); this changes help strings only. Note that
the parser itself depends on sys.argv at build time in some releases
(`--model` is not registered when sys.argv has "serve" and exactly "--help").
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import importlib
import inspect
import json
import os
import platform as _pyplatform
import re
import sys
import time
import typing
from pathlib import Path

T_START = time.perf_counter()
_REAL_ARGV = sys.argv[:]
# "--help=all" (a substring match for "--help") makes vLLM collect help texts
# (engine/arg_utils.py NEEDS_HELP) without hiding `--model`, which
# EngineArgs.add_cli_args leaves out when sys.argv holds "serve" and an exact
# "--help" (so `vllm serve --help` does not list it).
sys.argv = ["vllm", "serve", "--help=all"]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import oracle_common  # noqa: E402

_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")


def s(v) -> str | None:
    """Stable stringification of defaults / choices (no memory addresses)."""
    if v is None:
        return None
    if isinstance(v, enum.Enum):
        return f"{type(v).__name__}.{v.name}"
    if isinstance(v, str):
        return v
    try:
        return _ADDR.sub("", repr(v))
    except Exception as e:  # pragma: no cover
        return f"<unrepr {type(v).__name__}: {e}>"


def describe_type(t, depth: int = 0) -> str | None:
    """Name of an argparse `type=` callable, unwrapping vLLM's closures."""
    if t is None:
        return None
    if depth > 4:
        return getattr(t, "__qualname__", repr(t))
    if isinstance(t, type):
        return t.__name__
    name = getattr(t, "__name__", None) or type(t).__name__
    inner = {}
    try:
        cv = inspect.getclosurevars(t)
        inner.update(cv.nonlocals)
    except Exception:
        pass
    # parse_dataclass(val, cls=dataclass_cls) keeps the class as a default
    try:
        sig = inspect.signature(t)
        for p in sig.parameters.values():
            if p.default is not inspect.Parameter.empty and p.name != "val":
                inner.setdefault(p.name, p.default)
    except (TypeError, ValueError):
        pass
    if name == "_optional_type" and "return_type" in inner:
        return f"optional({describe_type(inner['return_type'], depth + 1)})"
    if name == "_parse_type" and "return_type" in inner:
        return f"parse({describe_type(inner['return_type'], depth + 1)})"
    if name == "parse_dataclass" and "cls" in inner:
        return f"dataclass-json({getattr(inner['cls'], '__name__', inner['cls'])})"
    mod = getattr(t, "__module__", "") or ""
    qual = getattr(t, "__qualname__", name)
    if mod.startswith("vllm") or mod == "argparse":
        return f"{qual}"
    return f"{mod}.{qual}" if mod and mod != "builtins" else qual


def dataclass_of_type(t):
    try:
        sig = inspect.signature(t)
        p = sig.parameters.get("cls")
        if p is not None and p.default is not inspect.Parameter.empty:
            return p.default
    except (TypeError, ValueError):
        pass
    return None


def help_first_line(h) -> str | None:
    if h is None:
        return None
    if h == argparse.SUPPRESS:
        return "==SUPPRESS=="
    h = str(h).strip()
    for line in h.splitlines():
        if line.strip():
            return line.strip()
    return ""


def deprecated_actions(parser) -> set[int]:
    FlexibleArgumentParser = oracle_common.flexible_parser_cls()

    # class-level set up to ~0.3x, per-instance set later (0.33)
    ids = {id(a) for a in getattr(FlexibleArgumentParser, "_deprecated", set())}
    ids |= {id(a) for a in getattr(parser, "_deprecated", set())}
    return ids


def dump_action(a, group_title, dep_ids, registered=None) -> dict:
    reg = sorted(registered or [])
    d = {
        "option_strings": list(a.option_strings),
        # every string the parser accepts for this action; some releases
        # register strings they hide from help (0.33 EnableDisableAction
        # keeps --no-enable-x working)
        "registered_option_strings": reg,
        "hidden_option_strings": [o for o in reg if o not in a.option_strings],
        "negative_option_strings": sorted(getattr(a, "negative_option_strings", []) or [])
        or ([o for o in a.option_strings if o.startswith("--no-")]
            if isinstance(a, argparse.BooleanOptionalAction) else []),
        "dest": a.dest,
        "positional": not a.option_strings,
        "action_class": type(a).__name__,
        "is_boolean_optional": isinstance(a, argparse.BooleanOptionalAction),
        "takes_value": a.nargs != 0,
        "nargs": a.nargs,
        "const": s(a.const),
        "choices": [s(c) for c in a.choices] if a.choices is not None
        and not isinstance(a.choices, dict) else (
            sorted(a.choices) if isinstance(a.choices, dict) else None),
        "type": describe_type(a.type),
        "default": s(a.default),
        "default_type": type(a.default).__name__,
        "required": bool(a.required),
        "metavar": s(a.metavar) if not isinstance(a.metavar, tuple)
        else list(a.metavar),
        "help": help_first_line(a.help),
        "group": group_title,
        "deprecated": bool(id(a) in dep_ids or getattr(a, "deprecated", False)),
        "help_mentions_deprecated": bool(a.help) and a.help != argparse.SUPPRESS
        and "deprecat" in str(a.help).lower(),
    }
    dc = dataclass_of_type(a.type) if a.type is not None else None
    if dc is not None:
        d["json_dataclass"] = getattr(dc, "__qualname__", str(dc))
    return d


def group_of(parser) -> dict[int, str]:
    m = {}
    for g in parser._action_groups:
        for a in g._group_actions:
            m[id(a)] = g.title
    return m


def dump_parser(top, serve) -> dict:
    dep_ids = deprecated_actions(serve)
    gmap = group_of(serve)
    reg: dict[int, list[str]] = {}
    for o, act in serve._option_string_actions.items():
        reg.setdefault(id(act), []).append(o)
    actions = [dump_action(a, gmap.get(id(a)), dep_ids, reg.get(id(a)))
               for a in serve._actions]
    groups = []
    for g in serve._action_groups:
        groups.append({
            "title": g.title,
            "description": help_first_line(g.description),
            "dests": [a.dest for a in g._group_actions],
            "options": [a.option_strings[0] if a.option_strings else a.dest
                        for a in g._group_actions],
        })
    top_actions = [dump_action(a, None, dep_ids) for a in top._actions]
    option_index = {o: a.dest for o, a in serve._option_string_actions.items()}
    return {
        "prog": serve.prog,
        "parser_class": type(serve).__name__,
        "allow_abbrev": serve.allow_abbrev,
        "prefix_chars": serve.prefix_chars,
        "n_actions": len(actions),
        "n_option_strings": len(option_index),
        "actions": actions,
        "groups": groups,
        "option_index": dict(sorted(option_index.items())),
        "top_level_actions": top_actions,
        "subcommands_registered": sorted(
            next(a for a in top._actions
                 if isinstance(a, argparse._SubParsersAction)).choices
        ),
        "flexible_parser_source_features": flexible_features(),
    }


def flexible_features() -> dict:
    """Facts about FlexibleArgumentParser.parse_args worth mirroring."""
    src = inspect.getsource(oracle_common.flexible_parser_cls())
    feats = {
        "underscore_to_dash_before_first_dot": "[^\\.]*" in src,
        "dotted_json_args": "create_nested_dict" in src,
        "list_append_plus_suffix": 'endswith("+")' in src,
        "config_yaml": "_pull_args_from_config" in src,
        "dash_O_shorthand": '"-O"' in src or "'-O'" in src,
        "model_flag_moved_to_positional": "--model" in src,
        "duplicate_key_warning": "duplicate" in src.lower(),
        "help_equals_search": "--help=" in src,
        "human_readable_int_in_dotted": "human_readable_int" in src,
        "python_lt_3_13_deprecated_shim": "_deprecated" in src,
    }
    return feats


# ---------------------------------------------------------------- configs


def type_str(tp) -> str:
    try:
        r = repr(tp)
    except Exception:
        r = str(tp)
    r = _ADDR.sub("", r)
    return (r.replace("typing.", "")
             .replace("vllm.config.", "")
             .replace("<class '", "").replace("'>", ""))


def literal_values(tp) -> list | None:
    out = []

    def walk(t):
        origin = typing.get_origin(t)
        if origin is typing.Literal:
            out.extend(typing.get_args(t))
        elif origin in (typing.Union, getattr(__import__("types"), "UnionType", None),
                        typing.Annotated):
            for x in typing.get_args(t):
                walk(x)

    walk(tp)
    return [s(v) for v in out] if out else None


def enum_members(tp) -> dict | None:
    found = {}

    def walk(t):
        if isinstance(t, type) and issubclass(t, enum.Enum):
            found[t.__name__] = [m.name for m in t]
            return
        for x in typing.get_args(t) or ():
            walk(x)

    walk(tp)
    return found or None


def dump_config_classes(serve) -> dict:
    seen: dict[str, dict] = {}
    queue = []
    for a in serve._actions:
        dc = dataclass_of_type(a.type) if a.type is not None else None
        if dc is not None:
            queue.append(dc)
    # also the big ones, for nested dotted keys
    try:
        from vllm.config import VllmConfig

        queue.append(VllmConfig)
    except Exception:
        pass
    while queue:
        cls = queue.pop()
        name = cls.__qualname__
        if name in seen or not dataclasses.is_dataclass(cls):
            continue
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception:
            hints = {}
        fields = []
        for f in dataclasses.fields(cls):
            tp = hints.get(f.name, f.type)
            if f.default is not dataclasses.MISSING:
                default = s(f.default)
            elif f.default_factory is not dataclasses.MISSING:
                default = f"<factory {getattr(f.default_factory, '__qualname__', f.default_factory)}>"
            else:
                default = "<required>"
            entry = {"name": f.name, "type": type_str(tp), "default": default}
            lv = literal_values(tp)
            if lv:
                entry["literal_values"] = lv
            em = enum_members(tp)
            if em:
                entry["enum_members"] = em
            fields.append(entry)
            # recurse into nested dataclasses
            def walk(t):
                if isinstance(t, type) and dataclasses.is_dataclass(t):
                    queue.append(t)
                for x in typing.get_args(t) or ():
                    walk(x)
            walk(tp)
        validators = []
        try:
            pyd = getattr(cls, "__pydantic_decorators__", None)
            if pyd is not None:
                for vname, dec in pyd.field_validators.items():
                    validators.append({"name": vname,
                                       "fields": list(dec.info.fields),
                                       "mode": dec.info.mode})
                for vname, dec in pyd.model_validators.items():
                    validators.append({"name": vname, "model": True,
                                       "mode": dec.info.mode})
        except Exception:
            pass
        seen[name] = {
            "module": cls.__module__,
            "is_pydantic_dataclass": hasattr(cls, "__pydantic_validator__"),
            "extra_forbid": _extra_forbid(cls),
            "fields": fields,
            "validators": validators,
        }
    return dict(sorted(seen.items()))


def _extra_forbid(cls):
    cfg = getattr(cls, "__pydantic_config__", None)
    if cfg is None:
        return None
    try:
        return cfg.get("extra")
    except Exception:
        return None


# ---------------------------------------------------------------- envs


def dump_envs() -> dict:
    import vllm.envs as envs

    env_vars = getattr(envs, "environment_variables", {})
    saved = dict(os.environ)
    out = {}
    try:
        for name, fn in env_vars.items():
            entry: dict = {}
            os.environ.clear()
            # keep HOME so that path defaults look like a user's
            if "HOME" in saved:
                os.environ["HOME"] = saved["HOME"]
            try:
                v = fn()
                # evaluate again in a fresh empty environment: some defaults
                # are generated (uuid) and would make dumps differ run to run
                os.environ.clear()
                if "HOME" in saved:
                    os.environ["HOME"] = saved["HOME"]
                v2 = fn()
                if s(v) != s(v2):
                    entry["default"] = "<generated per process>"
                    entry["default_example"] = re.sub(
                        r"[0-9a-f]{32}", "<hex32>", s(v) or "")
                else:
                    entry["default"] = oracle_common.jsonable(v)
                    entry["default_repr"] = s(v)
            except Exception as e:
                entry["default_error"] = f"{type(e).__name__}: {e}"
            try:
                nl = inspect.getclosurevars(fn).nonlocals
                if "choices" in nl:
                    ch = nl["choices"]
                    if callable(ch):
                        try:
                            ch = ch()
                        except Exception as e:
                            ch = f"<error {type(e).__name__}: {e}>"
                    entry["choices"] = oracle_common.jsonable(ch)
                    entry["case_sensitive"] = nl.get("case_sensitive", True)
                    entry["kind"] = getattr(fn, "__name__", "")
            except Exception:
                pass
            try:
                src = inspect.getsource(fn).strip()
                entry["source"] = src[:400]
            except Exception:
                pass
            out[name] = entry
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return {"count": len(out), "variables": out,
            "has_validate_environ": hasattr(envs, "validate_environ")}


# ---------------------------------------------------------------- enums


ENUM_LOCATIONS = [
    ("vllm.v1.attention.backends.registry", "AttentionBackendEnum"),
    ("vllm.attention.backends.registry", "AttentionBackendEnum"),
    ("vllm.attention.backends.registry", "_Backend"),
    ("vllm.platforms.interface", "_Backend"),
    ("vllm.v1.attention.backends.registry", "MambaAttentionBackendEnum"),
    ("vllm.attention.backends.registry", "MambaAttentionBackendEnum"),
    ("vllm.v1.attention.backends.mla.prefill.registry", "MLAPrefillBackendEnum"),
    ("vllm.config.mamba", "MambaBackendEnum"),
]


def dump_enums() -> dict:
    out = {}
    for mod, name in ENUM_LOCATIONS:
        try:
            m = importlib.import_module(mod)
            e = getattr(m, name)
        except Exception:
            continue
        key = f"{mod}.{name}"
        try:
            members = []
            for mem in e:
                val = mem.value
                members.append({"name": mem.name, "value": s(val)})
            out[key] = {"members": members, "names": [m["name"] for m in members]}
        except Exception as ex:
            out[key] = {"error": repr(ex)}
    return out


# ---------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args(_REAL_ARGV[1:])
    outdir = Path(a.out)
    outdir.mkdir(parents=True, exist_ok=True)

    t_import0 = time.perf_counter()
    top, serve, build_mode, build_s, fb_err = oracle_common.build_cli_parser()
    t_built = time.perf_counter()

    parser_json = dump_parser(top, serve)
    files = {
        "parser.json": parser_json,
        "config_classes.json": dump_config_classes(serve),
        "envs.json": dump_envs(),
        "enums.json": dump_enums(),
    }
    import torch  # already imported by vLLM

    meta = {
        "vllm_version": oracle_common.vllm_version(),
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "platform_used": getattr(top, "_oracle_platform", None),
        "build_mode": build_mode,
        "fallback_error": fb_err,
        "machine": _pyplatform.platform(),
        "seconds_to_build_parser": round(t_built - t_import0, 2),
        "seconds_total": None,
        "build_sys_argv": sys.argv,
        "note": ("help strings collected with --help=all in sys.argv; "
                 "defaults of nested config objects were computed on the "
                 "platform named in platform_used"),
    }
    for fname, data in files.items():
        (outdir / fname).write_text(json.dumps(data, indent=1, sort_keys=False,
                                               default=str) + "\n")
    meta["seconds_total"] = round(time.perf_counter() - T_START, 2)
    (outdir / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps({"out": str(outdir), "actions": parser_json["n_actions"],
                      "option_strings": parser_json["n_option_strings"],
                      "envs": files["envs.json"]["count"],
                      "enums": list(files["enums.json"]),
                      "config_classes": len(files["config_classes.json"]),
                      **{k: meta[k] for k in ("vllm_version", "build_mode",
                                              "platform_used",
                                              "seconds_to_build_parser",
                                              "seconds_total")}}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
