"""Small helpers shared by rules (spans of argv tokens, suggestions, value matching)."""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from servelint.model import LaunchSpec, Span, Token
from servelint.util.package_names import canonicalize_name

if TYPE_CHECKING:
    from servelint.rules.base import CheckContext

TRUTHY = {"1", "true", "yes", "on", "y", "t"}


def token_span(spec: LaunchSpec, index: int | None) -> Span:
    if index is not None and 0 <= index < len(spec.argv):
        tok = spec.argv[index]
        if tok.span is not None:
            return tok.span
    return spec.anchor


def option_span(
    ctx: CheckContext, index: int | None, *, option: str = "", dest: str = "", value: bool = False
) -> Span:
    """``token_span``, but a token the parser took from the config file it reads by path
    (SGLang's ``--config FILE``: its merger turns the file's keys into argv tokens that all
    map to the ``--config`` flag) is placed on that key in the file (its value when
    ``value``): the key spelling ``option`` (a flag as written, or argparse's ``--a/--b``),
    else the last key setting ``dest``. The reader gives the keys' spans
    (``option_files.key_spans``)."""
    spec = ctx.spec
    table = spec.context.get("config_key_spans")
    tok = token(spec, index)
    if not table or tok is None or tok.text != "--config":
        return token_span(spec, index)
    names = {n for n in option.split("=", 1)[0].split("/") if n} if option else set()
    found = None
    for key, key_at, value_at in json.loads(table):
        flag = "--" + key
        act = ctx.profile.option_index.get(flag) if ctx.profile is not None else None
        spellings = {flag, *(act.option_strings if act is not None else ())}
        if names & spellings or (dest and act is not None and act.dest == dest):
            found = value_at if value else key_at
    if found is None:
        return token_span(spec, index)
    return Span(*found)


def token(spec: LaunchSpec, index: int | None) -> Token | None:
    if index is not None and 0 <= index < len(spec.argv):
        return spec.argv[index]
    return None


def is_symbolic(spec: LaunchSpec, index: int | None) -> bool:
    tok = token(spec, index)
    return bool(tok and tok.symbolic)


def flag_judgeable(spec: LaunchSpec, index: int | None) -> bool:
    """A flag name is judged unless the source does not fix it (``--$X``); ``--port=$PORT``
    has a literal name and a symbolic value."""
    tok = token(spec, index)
    if tok is None:
        return False
    if not tok.symbolic:
        return True
    name, eq, _ = tok.text.partition("=")
    return bool(eq) and name.startswith("-") and "$" not in name and "`" not in name


def flag_name(text: str) -> str:
    return text.split("=", 1)[0]


def normalise_flag(text: str) -> str:
    """vLLM's rule: underscores become dashes in the part before the first '.'."""
    name = flag_name(text)
    if not name.startswith("--"):
        return name
    head, dot, tail = name.partition(".")
    return head.replace("_", "-") + dot + tail


def suggest(word: str, candidates: list[str] | set[str], cutoff: float = 0.8) -> str | None:
    return _suggest(word, tuple(sorted(candidates)), cutoff)


def suggest_sorted(word: str, candidates: tuple[str, ...], cutoff: float = 0.8) -> str | None:
    """``suggest`` for candidates already sorted."""
    return _suggest(word, candidates, cutoff)


@lru_cache(maxsize=8192)
def _suggest(word: str, candidates: tuple[str, ...], cutoff: float) -> str | None:
    matches = difflib.get_close_matches(word, candidates, n=1, cutoff=cutoff)
    return matches[0] if matches else None


def env_truthy(value: str) -> bool:
    return value.strip().lower() in TRUTHY


def value_in(value: str, allowed: list[str], case_sensitive: bool = True) -> bool:
    if case_sensitive:
        return value in allowed
    low = value.lower()
    return any(low == a.lower() for a in allowed)


def short_list(values: list[str], limit: int = 12) -> str:
    shown = ", ".join(f'"{v}"' for v in values[:limit])
    return shown + (f", … ({len(values)} in all)" if len(values) > limit else "")


_SHELL_SAFE = re.compile(r"^[A-Za-z0-9_./:=@%+,-]+$")


def shell_quote(text: str) -> str:
    return text if _SHELL_SAFE.match(text) else "'" + text.replace("'", "'\\''") + "'"


def canonical_pkg(name: str) -> str:
    return canonicalize_name(name)


def argv_fact(parsed, key, compute):
    """``compute()`` once per argv verdict (``servelint.pipeline.argv_memo``): a fact that
    depends only on the parse, so on the release, the argv texts and the symbolic marks."""
    memo = parsed.memo
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def option_dests(ctx) -> set[str]:
    """Dests of the options the launch sets (once per argv verdict)."""
    parsed = ctx.parsed
    return argv_fact(parsed, "dests",
                     lambda: {o.action.dest for o in parsed.options if o.action is not None})


def written_options(profile, texts: list[str | None]) -> list[tuple[str, str | None]]:  # noqa: ANN001
    """(dest, value or None) of each exactly written ``--option[=value]`` (``_`` as ``-``,
    a dotted key by its head; a ``None`` text is symbolic): a cheap look at an argv without
    parsing it."""
    out: list[tuple[str, str | None]] = []
    for i, text in enumerate(texts):
        if text is None or not text.startswith("--"):
            continue
        name, eq, value = text.partition("=")
        head = name.split(".", 1)[0]
        act = profile.option_index.get(head) or profile.option_index.get(head.replace("_", "-"))
        if act is None:
            continue
        if not eq:
            nxt = texts[i + 1] if i + 1 < len(texts) else None
            value = nxt if nxt is not None and not nxt.startswith("-") else None
        out.append((act.dest, value))
    return out
