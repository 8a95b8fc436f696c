"""sglang_argv against this interpreter's own argparse, on a parser rebuilt from the profile.

SGLang's parser is a plain argparse.ArgumentParser, so for the action kinds a profile
records (store / store_true / store_const with nargs, int/float/str types, choices,
required) the real argparse is an exact oracle. Random argvs are drawn from option
spellings, prefixes, typos and values.
"""

from __future__ import annotations

import argparse
import random
import re

import pytest
from test_sglang_argv import profile  # noqa: F401  (fixture)

from servelint.engines.sglang import argv as sglang_argv


class _Raising(argparse.ArgumentParser):
    def error(self, message):
        raise ValueError(message)


class _ErrorAction(argparse.Action):
    """Like SGLang's DeprecatedAction(error_message=...)."""

    def __init__(self, option_strings, dest, message="", **kwargs):
        self.message = message
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(self.message)


def human_readable_int(value: str) -> int:
    """Behaviour of sglang/srt/utils/common.py:human_readable_int (0.5.18), for reference."""
    value = value.strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)", value)
    if match:
        return 1
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"Invalid integer value: '{value}'. Use a plain integer, SI suffixes (1k, 1M), "
            "or IEC suffixes (1Ki, 1Mi). Suffixes are case-sensitive.") from None


def real_parser(profile) -> argparse.ArgumentParser:  # noqa: F811
    parser = _Raising(prog="x")
    for act in profile.actions:
        raw = act.raw
        if raw["kind"] == "help":
            continue
        kwargs: dict = {"dest": raw["dest"]}
        if raw["kind"] in {"store_true", "store_false"}:
            kwargs["action"] = raw["kind"]
        elif raw.get("deprecated_error"):
            kwargs.update(action=_ErrorAction, nargs=0, message=raw["deprecated_message"])
        elif raw["kind"] == "store_const":
            kwargs.update(action="store_const", const=True)
        else:
            kwargs["type"] = {"int": int, "float": float, "human_int": human_readable_int}.get(
                raw.get("type"), str)
            if raw.get("nargs") is not None:
                kwargs["nargs"] = raw["nargs"]
            if raw.get("choices") is not None:
                kwargs["choices"] = raw["choices"]
            if raw.get("required"):
                kwargs["required"] = True
        parser.add_argument(*raw["option_strings"], **kwargs)
    return parser


VALUES = ["m", "2", "16k", "1.5Mi", " 7 ", "1_0", "-1", "-0.5", "x", "fa3", "triton", "0.8", "two", "", "a b", "--", "-x"]


def random_argv(rng: random.Random, options: list[str]) -> list[str]:
    argv: list[str] = ["--model-path", "m"] if rng.random() < 0.8 else []
    for _ in range(rng.randint(0, 5)):
        opt = rng.choice(options)
        roll = rng.random()
        if roll < 0.15:
            opt = opt[: rng.randint(2, len(opt))]  # prefix
        elif roll < 0.2:
            opt = opt.replace("-", "_")
        elif roll < 0.25:
            opt += "x"
        if rng.random() < 0.2:
            argv.append(f"{opt}={rng.choice(VALUES)}")
            continue
        argv.append(opt)
        for _ in range(rng.choice([0, 1, 1, 1, 2])):
            argv.append(rng.choice(VALUES))
    return argv


@pytest.mark.parametrize("seed", range(8))
def test_matches_real_argparse(profile, seed):  # noqa: F811
    real = real_parser(profile)
    options = [o for a in profile.actions for o in a.option_strings
               if a.kind != "help" and o != "--config"]  # config merging is SGLang code
    rng = random.Random(seed)
    for _ in range(150):
        argv = random_argv(rng, options)
        if "--config" in argv:
            continue
        try:
            ns = real.parse_args(argv)
            expected = None
        except ValueError as exc:
            expected, ns = str(exc), None
        ours = sglang_argv.parse(profile, argv)
        assert ours.error == expected, argv
        if ns is not None:
            last = {o.action.dest: o for o in ours.options}  # the last occurrence wins
            for opt in last.values():
                if opt.action.raw.get("type") == "human_int":
                    continue  # the reference converts, we keep the text
                got = getattr(ns, opt.action.dest)
                if isinstance(opt.value, str) and not isinstance(got, bool):
                    assert str(got) == str(type(got)(opt.value)), argv
