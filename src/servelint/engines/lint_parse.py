"""Run the engine's argv rules over a launch and collect *every* problem, not just the first.

argparse stops at its first error. A linter wants all of them, so we parse, record
the error, neutralise the offending token and parse again (bounded). Symbolic values
(``"$TP"``) are never judged: an error that lands on a symbolic token is dropped and the
token replaced by a value the parser accepts.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

from servelint.engines import registry
from servelint.profiles import Profile

MAX_ROUNDS = 40

_UNRECOGNIZED = re.compile(r"unrecognized arguments?: (.*)")
_AMBIGUOUS = re.compile(r"ambiguous option: (\S+?)(?:=\S*)? could match (.*)")
_ARGUMENT = re.compile(r"argument ([^:]+): (.*)")


@dataclass(slots=True, eq=False)
class ArgProblem:
    """One complaint of the engine's argv handling about a launch (identity equality)."""

    index: int | None  # argv index of the token at fault (None: not attributable)
    # unrecognized | ambiguous | missing-value | invalid-choice | bad-value | other
    kind: str
    message: str  # the engine's own message (argparse text)
    option: str = ""  # the option named in the message, when any


@dataclass(slots=True, eq=False)
class LintParse:
    """A launch's argv parsed as the release parses it, with what it rejects (identity
    equality)."""

    options: list[Any] = field(default_factory=list)  # ParsedOption of the final parse
    problems: list[ArgProblem] = field(default_factory=list)
    positionals: list[str] = field(default_factory=list)
    ok: bool = True  # the final parse (after neutralising) succeeded
    # the entrypoint picks its parser from the model, statically unknown (``sglang
    # serve``): what the argv model says about it; findings on it are at most warnings
    routing: str = ""
    # what the argv memo keeps with this parse: the argv rules' findings and facts
    # derived from the parse alone (servelint.pipeline.argv_memo)
    memo: dict[Any, Any] = field(default_factory=dict, init=False)


def _parser_module(engine: str):
    found = registry.find(engine)
    model = found.argv_model() if found else None
    if model is None:
        raise LookupError(f"engine {engine!r} has no argv model")
    return model


def _classify(message: str) -> tuple[str, str]:
    if _UNRECOGNIZED.search(message):
        return "unrecognized", ""
    m = _AMBIGUOUS.search(message)
    if m:
        return "ambiguous", m.group(1)
    m = _ARGUMENT.search(message)
    if m:
        opt, rest = m.group(1).split("/")[0], m.group(2)
        if rest.startswith("expected"):
            return "missing-value", opt
        if rest.startswith("invalid choice"):
            return "invalid-choice", opt
        return "bad-value", opt
    return "other", ""


def _neutral_value(profile: Profile, argv: list[str], index: int) -> str | None:
    """A value the flag before ``index`` accepts (to keep parsing after a bad value)."""
    if index <= 0:
        return None
    flag = argv[index - 1].split("=", 1)[0]
    extensions = profile.rules.get("config_extensions")
    if flag == "--config" and extensions:  # the config file loader checks the extension
        return f"config.{extensions[0]}"
    action = profile.option_index.get(flag) or profile.option_index.get(
        flag.replace("_", "-") if "." not in flag else flag
    )
    if action is None:
        return "0"
    own = getattr(_parser_module(profile.engine), "neutral_value", None)
    if own is not None and (value := own(profile, action)) is not None:
        return value
    if action.choices:
        return action.choices[0]
    if action.json_dataclass or action.raw.get("type") in {"json", "json_dataclass"}:
        return "{}"
    return "0"


def lint_parse(
    profile: Profile,
    argv: tuple[str, ...],
    symbolic: tuple[int, ...] = (),
    entry: str = "",
    written: tuple[str, str] | None = None,
) -> LintParse:
    """All argv problems of ``argv`` on ``profile``'s release (a pure function: callers go
    through the one argv memo, :mod:`servelint.pipeline.argv_memo`). ``entry``: the argv
    model's name for an entrypoint that pre-processes argv (its ``ENTRIES``). ``written``:
    (name, text) of a config file the document writes, which an argv model that reads its
    config file by path (``written_config_loader``) reads in its place."""
    module = _parser_module(profile.engine)
    engine_parse = module.parse
    kwargs = {"entry": entry} if entry else {}
    make_loader = getattr(module, "written_config_loader", None)
    if written is not None and make_loader is not None:
        kwargs["config_loader"] = make_loader(*written)

    def parse(prof: Profile, args: list[str]):
        return engine_parse(prof, args, **kwargs)

    work = list(argv)
    sym = set(symbolic)
    removed: set[int] = set()  # original indices dropped from the argv
    literal_flag = _neutralise_symbolic(profile, work, sym, removed)
    out = LintParse()
    for _ in range(MAX_ROUNDS):
        kept = [i for i in range(len(work)) if i not in removed]
        result = parse(profile, [work[i] for i in kept])
        out.routing = out.routing or getattr(result, "routing", "")
        if result.ok:
            out.ok = True
            out.options = [_reindex(o, kept) for o in result.options]
            out.positionals = list(result.positionals)
            return out
        out.ok = False
        kind, opt = _classify(result.error or "")
        idx = (
            kept[result.error_index]
            if result.error_index is not None and result.error_index < len(kept)
            else None
        )
        if kind == "unrecognized":
            bad = _unrecognized_indices(result, kept)
            if not bad:
                break
            from_file = _config_file_keys(result, argv, bad)
            if from_file:  # keys of a --config file: named, and nothing more to drop
                out.problems.extend(from_file)
                break
            out.problems.extend(_drop_unrecognized(argv, work, sym, literal_flag, removed, bad))
            continue
        if idx is None:
            out.problems.append(ArgProblem(None, kind, result.error or "", opt))
            break
        if idx not in sym or (idx in literal_flag and kind == "ambiguous"):
            out.problems.append(ArgProblem(idx, kind, result.error or "", opt))
        if getattr(result, "config_file", None) and argv[idx] == "--config":
            break  # a value from the --config file: dropping --config would drop the file
        _step_past_error(profile, work, removed, idx, kind)
    return out


def _neutralise_symbolic(
    profile: Profile, work: list[str], sym: set[int], removed: set[int]
) -> set[int]:
    """Give symbolic values a neutral value so type checks pass (a symbolic token in flag
    position is kept: its flag name is judged); the symbolic tokens whose flag name is
    literal (``--port=$PORT``)."""
    literal_flag: set[int] = set()
    for i in sym:
        if _dotted_key(work[i - 1] if i > 0 and not work[i].startswith("-") else work[i]):
            # ``--pooler-config.task "$T"``: no neutral value fits a config field (its type
            # and choices are inside the config), so the key and its value are not judged
            removed.update((i - 1, i) if not work[i].startswith("-") else (i,))
        elif i > 0 and not work[i].startswith("-"):
            work[i] = _neutral_value(profile, work, i) or "0"
        elif i == 0 and not work[i].startswith("-"):
            work[i] = "model"
        elif work[i].startswith("-") and "=" in work[i] and "$" not in work[i].split("=", 1)[0]:
            name = work[i].split("=", 1)[0]
            work[i] = f"{name}={_neutral_value(profile, [name, ''], 1) or '0'}"
            literal_flag.add(i)
    return literal_flag


def _drop_unrecognized(
    argv: tuple[str, ...],
    work: list[str],
    sym: set[int],
    literal_flag: set[int],
    removed: set[int],
    bad: list[int],
) -> list[ArgProblem]:
    """argparse lists every unknown token at once: attribute each one and drop it (with
    the values that follow an unknown flag)."""
    problems: list[ArgProblem] = []
    for j in sorted(bad):
        # a value right after an unknown flag belongs to it: one problem, not two
        is_value = (
            j > 0
            and not work[j].startswith("-")
            and (j - 1) in removed
            and _run_starts_with_flag(work, removed, j)
        )
        if (j not in sym or j in literal_flag) and not is_value:
            problems.append(ArgProblem(j, "unrecognized", f"unrecognized arguments: {argv[j]}"))
        removed.add(j)
        # argparse reports an unknown flag together with the values that follow it
        if work[j].startswith("-") and "=" not in work[j]:
            k = j + 1
            while k < len(work) and not work[k].startswith("-") and k not in removed:
                removed.add(k)
                k += 1
    return problems


def _step_past_error(
    profile: Profile, work: list[str], removed: set[int], idx: int, kind: str
) -> None:
    """Make the token at ``idx`` parse next round: a neutral value, else drop it."""
    refusable = kind in {"invalid-choice", "bad-value", "other"}
    if (
        kind == "other"
        and idx > 0
        and work[idx - 1] == "--config"
        and not profile.rules.get("config_extensions")
    ):
        # a config file the release's loader refused: no neutral file exists, so parse
        # on without --config FILE (not a cascade of --config errors)
        removed.update({idx - 1, idx})
    elif refusable and idx > 0 and not work[idx].startswith("-"):
        neutral = _neutral_value(profile, work, idx)
        if neutral is None or neutral == work[idx]:
            removed.add(idx)
        else:
            work[idx] = neutral
    else:
        removed.add(idx)
        # a flag refused with its value (dotted keys, bad JSON): drop the value too
        if (
            refusable
            and work[idx].startswith("-")
            and "=" not in work[idx]
            and idx + 1 < len(work)
            and not work[idx + 1].startswith("-")
        ):
            removed.add(idx + 1)


def _dotted_key(token: str) -> bool:
    name = token.split("=", 1)[0]
    return name.startswith("--") and "." in name and "$" not in name


def _run_starts_with_flag(work: list[str], removed: set[int], j: int) -> bool:
    k = j - 1
    while k >= 0 and k in removed and not work[k].startswith("-"):
        k -= 1
    return k >= 0 and k in removed and work[k].startswith("-") and "=" not in work[k]


def _config_file_keys(result, argv: tuple[str, ...], bad: list[int]) -> list[ArgProblem]:
    """Unrecognized tokens the release's ``--config`` merger made of the file's keys (they
    all map to the ``--config`` token): one problem per flag, naming it in ``option``."""
    names = list(getattr(result, "unrecognized", None) or [])
    if not getattr(result, "config_file", None) or not names:
        return []
    if any(argv[j] != "--config" for j in bad):
        return []
    at = bad[0]
    return [
        ArgProblem(at, "unrecognized", f"unrecognized arguments: {name}", name)
        for name in names
        if name.startswith("-")
    ]


def _unrecognized_indices(result, kept: list[int]) -> list[int]:
    """Original indices of the tokens argparse reports as unrecognized."""
    idx = getattr(result, "unrecognized_indices", None)
    if idx:
        return [kept[i] for i in idx if i < len(kept)]
    if result.error_index is not None and result.error_index < len(kept):
        return [kept[result.error_index]]
    return []


def _reindex(option, kept: list[int]):
    """Map a ParsedOption's argv indices back to the original argv."""
    try:
        changes = {"index": kept[option.index]}
        if option.value_index is not None and option.value_index < len(kept):
            changes["value_index"] = kept[option.value_index]
        if all(getattr(option, k) == v for k, v in changes.items()):
            return option  # nothing dropped before it (options are frozen: no copy needed)
        return dataclasses.replace(option, **changes)
    except (TypeError, IndexError, AttributeError):
        return option
