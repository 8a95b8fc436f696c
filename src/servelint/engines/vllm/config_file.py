"""vLLM's ``--config FILE``: the argv ``FlexibleArgumentParser.load_config_file`` reads from a
YAML file (read from the 0.21.0 wheel), for ``Engine.expand_config`` (servelint.launches)."""

from __future__ import annotations

import json
import re

import yaml

from servelint.model import Span, Token


def config_tokens(lines: tuple[tuple[str, Span | None, bool], ...]) -> list[Token] | None:
    """vLLM ``--config FILE`` semantics (``FlexibleArgumentParser.load_config_file``,
    read from the 0.21.0 wheel): top-level keys become ``--key``; ``true`` -> flag only,
    ``false`` -> nothing, list -> ``--key item...``, mapping -> ``--key <json>``,
    other -> ``--key str(value)``. Blocks holding an unknown value stay symbolic."""
    blocks: list[list[tuple[str, Span | None, bool]]] = []
    for line in lines:
        text = line[0]
        if not text.strip() or text.lstrip().startswith("#"):
            if blocks:
                blocks[-1].append(line)
            continue
        if not text[0].isspace() and not text.startswith("-"):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
        else:
            return None
    out: list[Token] = []
    for block in blocks:
        head, span, _ = block[0]
        m = re.match(r"^([^:#\s][^:]*?)\s*:(\s|$)", head)
        if not m:
            return None
        key = m.group(1).strip("'\"")
        key_span = Span(span.path, span.line, span.column, span.line,
                        span.column + len(m.group(1))) if span else None
        val_span = Span(span.path, span.line, span.column + m.end(), span.line,
                        span.column + len(head)) if span else None
        symbolic = any(sym for _, _, sym in block)
        flag = Token("--" + key, key_span)
        if symbolic:
            out += [flag, Token(head[m.end():].strip() or "<mapping>", val_span, True)]
            continue
        try:
            loaded = yaml.safe_load("\n".join(t for t, _, _ in block))
        except yaml.YAMLError:
            return None
        if not isinstance(loaded, dict) or len(loaded) != 1:
            return None
        value = next(iter(loaded.values()))
        if isinstance(value, bool):
            if value:
                out.append(flag)
        elif isinstance(value, list):
            if value:
                out.append(flag)
                out += [Token(str(v), val_span) for v in value]
        elif isinstance(value, dict):
            out += [flag, Token(json.dumps(value), val_span)]
        else:
            out += [flag, Token(str(value), val_span)]
    return out
