"""``--config FILE`` of ``sglang.launch_server``: the release's ``ConfigArgumentMerger``
re-stated (its rules are in the profile, ``rules.config_merge``), turning the YAML file's
keys into argv tokens placed before the command line's own."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from servelint.engines.argparse_emul import ArgFail
from servelint.engines.sglang import config_file
from servelint.profiles import Profile


class ConfigPassthrough(Exception):
    """``--config ''``: the release's merger returns argv unchanged (argparse then reads it)."""


class ConfigAbsent(Exception):
    """The file does not exist where servelint runs; ``rest``: argv without ``--config FILE``."""

    def __init__(self, rest: list[str]):
        self.rest = rest


def load_yaml(path: str) -> Any:
    return config_file.load(path)


@dataclass(slots=True, eq=False)
class WrittenConfig:
    """The loader of a launch whose document writes its ``--config`` file (a heredoc): that
    text stands in for the file of that name; other paths are read from disk."""

    name: str
    text: str

    def provides(self, path: str) -> bool:
        return path == self.name

    def __call__(self, path: str) -> Any:
        if path == self.name:
            return config_file.load_text(lambda: self.text)
        return load_yaml(path)


def _first_line(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:200] or type(exc).__name__


def config_args(
    profile: Profile, argv: list[str], loader: Callable[[str], Any]
) -> tuple[list[str], int]:
    """The argv after the release's ConfigArgumentMerger; (merged argv, #config tokens)."""
    rules = profile.rules.get("config_merge", {})
    at = _config_flag_at(argv)
    path = argv[at + 1]
    if not path and rules.get("empty_path_passthrough"):
        raise ConfigPassthrough()
    suffix = Path(path).suffix.lower()
    if suffix not in rules.get("suffixes", [".yaml", ".yml"]):
        raise ArgFail(f"Config file must be YAML format, got: {suffix}", at + 1, "exception")
    provides = getattr(loader, "provides", None)  # a file the document writes (WrittenConfig)
    if not (provides is not None and provides(path)) and not Path(path).exists():
        # absent where servelint runs, which says nothing of the launch machine: its
        # options are unknown (parse() then lets the required ones be)
        raise ConfigAbsent(argv[:at] + argv[at + 2 :])
    data = _read_config(loader, path, at)
    out = _config_tokens(profile, rules, data, at)
    merged = out + argv[:at] + argv[at + 2 :]
    return merged, len(out)


def _config_flag_at(argv: list[str]) -> int:
    """The index of the one ``--config`` with a file after it (else the release's error)."""
    idx = [i for i, a in enumerate(argv) if a == "--config"]
    if len(idx) > 1:
        raise ArgFail("Multiple config files specified! Only one allowed.", idx[1], "exception")
    at = idx[0]
    if at == len(argv) - 1:
        raise ArgFail("No config file specified after --config flag!", at, "exception")
    return at


def _read_config(loader: Callable[[str], Any], path: str, at: int) -> dict:
    """The YAML mapping of ``path``; a file the release would refuse is its ArgFail."""
    try:
        data = loader(path)
    except (OSError, UnicodeError) as exc:  # the release's open() fails the same way
        raise ArgFail(
            f"Config file {path} cannot be read: {_first_line(exc)}", at + 1, "exception"
        ) from None
    except ValueError as exc:  # config_file.ConfigTooLarge: str() of it would not end
        raise ArgFail(f"Config file {path} {_first_line(exc)}", at + 1, "exception") from None
    except yaml.YAMLError as exc:  # the release's yaml.safe_load raises at startup
        raise ArgFail(
            f"Config file {path} is not valid YAML: {_first_line(exc)}", at + 1, "exception"
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ArgFail("Config file must contain a dictionary at root level", at + 1, "exception")
    return data


def _config_tokens(profile: Profile, rules: dict, data: dict, at: int) -> list[str]:
    """The argv tokens the merger makes of the file's keys, in the file's order."""
    store_true = {
        a.dest for a in profile.actions if a.kind == "store_true" and not a.raw.get("action_class")
    }
    supported = {"store", "store_true"}
    unsupported = {
        a.dest
        for a in profile.actions
        if a.option_strings
        and (a.kind not in supported or a.raw.get("action_class"))
        and "--config" not in a.option_strings
        and a.kind != "help"
    }
    out: list[str] = []
    for key, value in data.items():
        norm = str(key).replace("-", "_")
        if rules.get("unsupported_action_error") and norm in unsupported and norm not in store_true:
            raise ArgFail(f"Unsupported config option '{norm}'", at + 1, "exception")
        json_maps = rules.get("mapping_values", {}).get("form") == "json"
        try:
            out += _key_tokens(key, value, norm in store_true, json_maps)
        except (TypeError, ValueError) as exc:  # json.dumps of a YAML date, as the release
            raise ArgFail(f"Config option '{key}': {_first_line(exc)}", at + 1, "exception") from None
    return out


def _key_tokens(key: Any, value: Any, store_true: bool, json_maps: bool = False) -> list[str]:
    """One key's tokens: a flag for a true store_true, a flag with its values otherwise (a
    mapping as ``json.dumps`` writes it where the release's merger does so)."""
    if isinstance(value, dict) and json_maps:
        return [f"--{key}", json.dumps(value)]
    if isinstance(value, bool):
        if store_true:
            return [f"--{key}"] if value else []
        return [f"--{key}", str(value).lower()]
    if isinstance(value, list):
        return [f"--{key}", *(str(v) for v in value)] if value else []
    return [f"--{key}", str(value)]


@dataclass
class MergedConfig:
    """argv with ``--config FILE``'s arguments merged in, and where each token came from."""

    argv: list[str]
    offset_map: list[int]  # merged index -> original index (config tokens -> --config)
    config_count: int
    absent: bool  # the file does not exist: parse as the release does without it


def merge_config(
    profile: Profile, argv: list[str], at: int, loader: Callable[[str], Any]
) -> MergedConfig:
    absent = False
    kept = [k for k in range(len(argv)) if k not in (at, at + 1)]
    try:
        merged, config_count = config_args(profile, argv, loader)
    except ConfigAbsent as gone:
        merged, config_count, absent = gone.rest, 0, True
    except ConfigPassthrough:
        merged, config_count, kept = list(argv), 0, list(range(len(argv)))
    return MergedConfig(merged, [at] * config_count + kept, config_count, absent)
