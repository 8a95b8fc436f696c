"""The releases a launch passes on: the first and the last release (of the profiles) on which
it would have no error if its image were bumped to that release.

Checking a launch against all 39 vLLM releases costs 39 checks. The endpoints need far fewer:

* releases where a literal flag of the launch does not exist (and abbreviates no option)
  certainly fail — argparse rejects the flag — and so do releases where a literal value of
  an option the release spells exactly is outside its parse-time choices or rejected by its
  late value set (``value_late.rejected``, the rule's own test): they are skipped;
* the first release is found by checking upwards from the oldest candidate, the last by
  checking downwards from the newest, each stopping at the first release that passes.

Every release named is a full check's verdict; skipped releases are failures the history
index proves. ``exhaustive=True`` checks every candidate and also counts the releases that
pass (``releases``), for ranges with holes.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from servelint import profiles
from servelint.engines import history as history_mod
from servelint.model import LaunchSpec, Span
from servelint.profiles import Profile
from servelint.releases.resolve import is_engines_own_image
from servelint.rules import value_late

Passes = Callable[[LaunchSpec, str], bool]  # (launch, release) -> no error on that release
# (engine, argv) -> its candidates, shared by the launches of one file (``judge_specs``): the
# launches of a recipe share few argvs (MiniMaxAI's recipes: 2,406 launches, 1,227 argvs;
# worked out per launch, ``--works-on`` took 8% more CPU there).
SharedCandidates = dict[tuple[str, tuple[tuple[str, bool], ...]], "_Candidates"]


def works_on(
    spec: LaunchSpec, passes: Passes, *, exhaustive: bool = False,
    shared: SharedCandidates | None = None,
) -> dict[str, str | int | None] | None:
    """``{"first", "last"}`` (``None`` each when it passes nowhere), plus ``releases`` when
    ``exhaustive``; ``None`` when it cannot be told (no profiles, or an image that is not the
    engine's own: what a bump would do to it is unknown). ``shared``: the candidates of the
    argvs met before, by the launches of the same file."""
    releases = profiles.available(spec.engine)
    if not releases:
        return None
    if spec.image and not is_engines_own_image(spec.engine, spec.image):
        return None
    argv = tuple((t.text, t.symbolic) for t in spec.argv)
    if shared is None:
        shared = {}
    found = shared.get((spec.engine, argv))
    if found is None:
        found = shared[spec.engine, argv] = _candidates(spec.engine, argv)
    candidate = found.candidate  # asked lazily: the scans stop early

    order = range(len(releases))
    if exhaustive:
        passing = [releases[i] for i in order if candidate(i) and passes(spec, releases[i])]
        return {
            "first": passing[0] if passing else None,
            "last": passing[-1] if passing else None,
            "releases": len(passing),
        }
    first = next((i for i in order if candidate(i) and passes(spec, releases[i])), None)
    if first is None:
        return {"first": None, "last": None}
    last = next(
        i for i in reversed(order) if i == first or (candidate(i) and passes(spec, releases[i]))
    )
    return {"first": releases[first], "last": releases[last]}


@functools.lru_cache(maxsize=65536)
def _releases_accepting(engine: str, text: str) -> frozenset[int]:
    """Indices of the releases that do not certainly reject the token ``text``: all of them
    unless it is a literal ``--flag`` that is neither an option of a release nor the start
    of one (an abbreviation argparse might accept), as written or with vLLM's
    underscore-to-dash rule, before ``=`` or a dotted config key."""
    every = frozenset(range(len(profiles.available(engine))))
    hist = history_mod.load(engine)
    if hist is None or not text.startswith("--") or len(text) < 3 or " " in text:
        return every  # not a flag (argparse takes a token with a space for a value)
    raw = text.split("=", 1)[0]
    base = raw.split(".", 1)[0]
    names = {raw, base, base.replace("_", "-")}
    found = frozenset(i for n in names for i in hist.indices("option", n))
    if found == every:
        return every
    return found | frozenset(
        i for i in every - found if any(_starts_an_option(engine, i, n) for n in names)
    )


def _options_of(engine: str, index: int) -> list[str]:
    hist = history_mod.load(engine)
    assert hist is not None
    return hist.keys_in("option", index)


def _starts_an_option(engine: str, index: int, name: str) -> bool:
    options = _options_of(engine, index)
    at = bisect.bisect_left(options, name)
    return at < len(options) and options[at].startswith(name)


@dataclass(slots=True)
class _Candidates:
    """The releases one argv (its (text, symbolic) tokens) is not certainly failing on: every
    flag exists or abbreviates an option (``possible``, ``_releases_accepting``) and no
    literal value is certainly rejected (``_values_rejected``, asked per release as the scans
    need it). The argv's flags are read once for all releases (they were read again for each
    release: a tenth of ``--works-on``'s time on the recipes)."""

    engine: str
    possible: frozenset[int]
    flags: list[_Flag] | None  # None: a symbolic flag, no value is judged
    rejected: dict[int, bool]  # release index -> a value certainly rejected there

    def candidate(self, i: int) -> bool:
        if i not in self.possible:
            return False
        if self.flags is None:
            return True
        found = self.rejected.get(i)
        if found is None:
            release = profiles.available(self.engine)[i]
            found = self.rejected[i] = _values_rejected(profiles.load(self.engine, release),
                                                        self.flags)
        return not found


def _candidates(engine: str, argv: tuple[tuple[str, bool], ...]) -> _Candidates:
    """The releases ``argv`` is not certainly failing on (``works_on``'s ``shared`` keeps
    them for the other launches of the file)."""
    possible = frozenset(range(len(profiles.available(engine))))
    for text, symbolic in argv:
        if text == "--":
            break  # what follows is positional: do not reason about it
        if not symbolic and text.startswith("--"):
            possible &= _releases_accepting(engine, text)
    return _Candidates(engine, possible, _literal_flags(argv), {})


@dataclass(slots=True, frozen=True)
class _Flag:
    """A literal ``--flag`` of an argv, read once for every release."""

    name: str  # before ``=`` (and before the ``.`` of a dotted config key)
    dashed: str  # ``name`` with vLLM's underscore-to-dash rule
    dotted: bool  # ``--option.key``: its value is the key's, not the option's (no value)
    value: str | None  # ``=value``, else the next token when literal and not a flag


def _literal_flags(argv: tuple[tuple[str, bool], ...]) -> list[_Flag] | None:
    """The ``--`` flags of ``argv`` before ``--``; None when one is symbolic (its name is
    not known: no value is judged)."""
    out: list[_Flag] = []
    for i, (text, symbolic) in enumerate(argv):
        if text == "--":
            break
        if not text.startswith("--") or " " in text:
            continue
        if symbolic:
            return None
        name, eq, inline = text.partition("=")
        value: str | None = inline if eq else None
        dotted = "." in name
        if dotted:
            name, value = name.split(".", 1)[0], None
        elif not eq and i + 1 < len(argv) and not argv[i + 1][1] \
                and not argv[i + 1][0].startswith("-"):
            value = argv[i + 1][0]
        out.append(_Flag(name, name.replace("_", "-"), dotted, value))
    return out


def _values_rejected(prof: Profile | None, flags: list[_Flag]) -> bool:
    """A literal ``--option value`` (or ``--option=value``) that ``prof``'s release certainly
    rejects: a value outside the option's parse-time choices, or one its late value set
    rejects. Decided only when every flag is an exact option of the release (no
    abbreviation, nothing unknown): else False, and a full check decides."""
    if prof is None:
        return False
    dashes = bool(prof.rules.get("underscore_to_dash"))
    dotted = bool(prof.rules.get("dotted_keys"))
    index = prof.option_index
    pairs: list[tuple[Any, str]] = []
    dests: set[str] = set()
    for flag in flags:
        if flag.dotted and not dotted:
            return False
        act = index.get(flag.dashed if dashes else flag.name)
        if act is None:
            return False
        dests.add(act.dest)
        if flag.value is None or act.kind != "store" or act.nargs is not None:
            continue
        pairs.append((act, flag.value))
    return _any_value_rejected(prof, pairs, dests)


def _any_value_rejected(prof: Profile, pairs: list[tuple[Any, str]], dests: set[str]) -> bool:
    def plugin_given(plugin_dests: list[str]) -> bool:
        return any(d in dests for d in plugin_dests)

    for act, value in pairs:
        kind = act.raw.get("type")
        if act.choices and kind in (None, "str") and value not in act.choices:
            return True
        if act.json_dataclass or kind in ("json", "json_dataclass"):
            continue
        if value_late.rejected(prof, act.dest, value, dests, plugin_given) is not None:
            return True
    return False


def certainly_fails(spec: LaunchSpec, release: str) -> bool:
    """Whether the history index alone proves the launch fails on ``release``."""
    return certain_failure(spec, release) is not None


def certain_failure(spec: LaunchSpec, release: str) -> tuple[Span | None, str] | None:
    """Where and why the history index alone proves the launch fails on ``release``: a
    literal flag the release neither has nor abbreviates (no check run); ``None`` when it
    does not."""
    releases = profiles.available(spec.engine)
    if release not in releases:
        return None
    index = releases.index(release)
    for tok in spec.argv:
        if tok.text == "--":
            break
        if (
            not tok.symbolic
            and tok.text.startswith("--")
            and index not in _releases_accepting(spec.engine, tok.text)
        ):
            flag = tok.text.split("=", 1)[0]
            return tok.span, f'flag "{flag}" does not exist in {spec.engine} {release}'
    return None
