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
from typing import Any

from servelint import profiles
from servelint.engines import history as history_mod
from servelint.model import LaunchSpec, Span
from servelint.profiles import Profile
from servelint.releases.resolve import is_engines_own_image
from servelint.rules import value_late

Passes = Callable[[LaunchSpec, str], bool]  # (launch, release) -> no error on that release


def works_on(
    spec: LaunchSpec, passes: Passes, *, exhaustive: bool = False
) -> dict[str, str | int | None] | None:
    """``{"first", "last"}`` (``None`` each when it passes nowhere), plus ``releases`` when
    ``exhaustive``; ``None`` when it cannot be told (no profiles, or an image that is not the
    engine's own: what a bump would do to it is unknown)."""
    releases = profiles.available(spec.engine)
    if not releases:
        return None
    if spec.image and not is_engines_own_image(spec.engine, spec.image):
        return None
    possible = frozenset(range(len(releases)))
    for tok in spec.argv:
        if tok.text == "--":
            break  # what follows is positional: do not reason about it
        if not tok.symbolic and tok.text.startswith("--"):
            possible &= _releases_accepting(spec.engine, tok.text)
    argv = tuple((t.text, t.symbolic) for t in spec.argv)

    def candidate(i: int) -> bool:  # evaluated lazily: the scans stop early
        return i in possible and not _values_rejected(spec.engine, releases[i], argv)

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


@functools.lru_cache(maxsize=8192)
def _values_rejected(engine: str, release: str, argv: tuple[tuple[str, bool], ...]) -> bool:
    """A literal ``--option value`` (or ``--option=value``) of ``argv`` that ``release``
    certainly rejects: a value outside the option's parse-time choices, or one its late value
    set rejects. Decided only when every flag of the argv is an exact option of the release
    (no abbreviation, nothing unknown): else False, and a full check decides."""
    prof = profiles.load(engine, release)
    if prof is None:
        return False
    read = _literal_values(prof, argv)
    if read is None:
        return False
    pairs, dests = read
    return _any_value_rejected(prof, pairs, dests)


def _literal_values(
    prof: Profile, argv: tuple[tuple[str, bool], ...]
) -> tuple[list[tuple[Any, str]], set[str]] | None:
    """The (option, literal value) pairs of ``argv`` and the dests its flags set; None when
    a flag is symbolic or not an exact option of the release."""
    dashes = bool(prof.rules.get("underscore_to_dash"))
    dotted = bool(prof.rules.get("dotted_keys"))
    pairs: list[tuple[Any, str]] = []
    dests: set[str] = set()
    for i, (text, symbolic) in enumerate(argv):
        if text == "--":
            break
        if not text.startswith("--") or " " in text:
            continue
        if symbolic:
            return None
        found = _exact_option(prof, text, dashes, dotted)
        if found is None:
            return None
        act, inline = found
        dests.add(act.dest)
        if inline is _NOT_A_VALUE or act.kind != "store" or act.nargs is not None:
            continue
        if inline is not None:
            pairs.append((act, inline))
        elif i + 1 < len(argv) and not argv[i + 1][1] and not argv[i + 1][0].startswith("-"):
            pairs.append((act, argv[i + 1][0]))
    return pairs, dests


_NOT_A_VALUE = "\0config key"  # a dotted ``--option.key``: its value is not the option's


def _exact_option(prof: Profile, text: str, dashes: bool, dotted: bool) -> tuple[Any, Any] | None:
    """(the option ``text`` names exactly, its ``=value`` or None or _NOT_A_VALUE)."""
    name, eq, inline = text.partition("=")
    value: str | None = inline if eq else None
    if "." in name:
        if not dotted:
            return None
        name = name.split(".", 1)[0]
        value = _NOT_A_VALUE
    if dashes:
        name = name.replace("_", "-")
    act = prof.option_index.get(name)
    return None if act is None else (act, value)


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
