"""The site's last-wins de-duplication, shell quoting and text form of a ``vllm serve`` command
(recipe-format.md 5.5-5.7)."""

from __future__ import annotations

import re

from servelint.model import EnvVar, Token

_BARE_VALUE = re.compile(r"^(\$[A-Z_][A-Z0-9_]*|[A-Za-z0-9_./=:@,+%-]+)$")


def units(tokens: list[Token]) -> list[list[Token]]:
    """Split tokens into (flag value) pairs, bare flags and positionals."""
    out: list[list[Token]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.text.startswith("-") and nxt is not None and not nxt.text.startswith("-"):
            out.append([tok, nxt])
            i += 2
        else:
            out.append([tok])
            i += 1
    return out


def dedupe(tokens: list[Token]) -> list[Token]:
    """Drop empty tokens; keep only the last unit of each flag string, at its last position."""
    kept = [t for t in tokens if t.text != ""]
    return [kept[i] for i in kept_indexes([t.text for t in kept])]


def kept_indexes(texts: list[str]) -> list[int]:
    """:func:`dedupe` over token texts (none empty): the indexes it keeps, in order."""
    n = len(texts)
    flags = [t for t in texts if t[:1] == "-"]
    if len(set(flags)) == len(flags):
        return list(range(n))  # every "-" token heads a unit: no flag repeats, all kept
    starts: list[int] = []  # unit starts; a unit is [flag, value] or one token (see units)
    i = 0
    while i < n:
        starts.append(i)
        i += 2 if texts[i][:1] == "-" and i + 1 < n and texts[i + 1][:1] != "-" else 1
    seen: set[str] = set()
    out: list[int] = []
    end = n
    for start in reversed(starts):
        head = texts[start]
        if head[:1] == "-":
            if head in seen:
                end = start
                continue
            seen.add(head)
        out.extend(range(end - 1, start - 1, -1))
        end = start
    out.reverse()
    return out


def quote_value(text: str) -> str:
    """Single-quote a value unless it is a bare ``$NAME`` or plain shell-safe text."""
    if not text or _BARE_VALUE.match(text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def command_lines(model: str, tokens: list[Token], binary: str = "vllm serve") -> str:
    """``vllm serve <X> \\`` then one indented line per unit, as the site prints it."""
    if not tokens:
        return f"{binary} {model}"
    lines = [f"{binary} {model}"]
    for unit in units(tokens):
        if len(unit) == 2 and unit[0].text.startswith("-"):
            lines.append(f"  {unit[0].text} {quote_value(unit[1].text)}")
        else:
            lines.append(f"  {unit[0].text}")
    return " \\\n".join(lines)


def export_lines(env: list[EnvVar]) -> list[str]:
    return [f"export {e.name}={e.value}" for e in env]
