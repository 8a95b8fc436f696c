"""Placeholders: words a guide, a template script or a recipe leaves for the reader to fill.

People write ``<N>``, ``<other option>``, ``{model}``, ``[args]``, ``[safetensors|gguf]``,
``...``, ``your ip``, ``/path/to/your/model``, ``$YOUR_TOKEN``. None is a value the engine
could judge: each is marked *symbolic* (never judged as a value, never dropped), so a
placeholder never gives an error; the rest of the command is still judged.

Two levels, used by every reader that meets them:

- :func:`mask` rewrites the bracketed forms in source text *before* bash reads it, each into a
  same-length ``$_WORDS`` (bash would read ``<N>`` as two redirections and ``[a b]`` as two
  words); :func:`spelling` gives a masked word its written form back;
- :func:`mark` marks the forms that are plain words once split (``...``, ``your ip``,
  ``[args]``, ``{model}``), including runs of several words (``[other flags]``).
"""

from __future__ import annotations

import re

from servelint.model import Token

# <model>, <N>, <logits processor 1> (not ``<<EOF``, ``<(cmd)``, ``< in 2> err``), {your model dir},
# {tp} (not ``${VAR}``, brace expansions ``{a,b}`` or JSON), [args], [safetensors|gguf]
# (not ``${a[i]}``, ``[[ … ]]``, ``[key]=value``, a Markdown link ``[text](url)``)
PLACEHOLDER = re.compile(
    r"(?<![<\w$])<([A-Za-z](?:[A-Za-z0-9_.:/\- ]*[A-Za-z0-9_.])?)>(?![>\w])"
    r"|(?<![$\w{])\{([A-Za-z][A-Za-z0-9_ ./\-]*)\}(?![}\w])"
    r"|(?<![\w\[$])\[([A-Za-z][A-Za-z0-9_.\- ]*(?:\|[A-Za-z0-9_.\-]+)*)\](?![\w\]=(])"
)
# a word that stands for others: "...", "…", "[...]", "<...>", "xxx"
ELLIPSES = frozenset({"...", "…", "[...]", "<...>", "....", "etc", "etc."})
# "your-model", "/path/to/your/dir", "YOUR_HF_TOKEN", "xxxx"
_YOURS = re.compile(r"(?i)(?:^|[/_\-=.$])your(?:[_\-/.]|$)|^(?:x{3,})$")
# a whole word in brackets or braces (also one a template engine fills in: "{model}")
_WRAPPED = re.compile(r"<[A-Za-z][^<>\s]*>|\{[A-Za-z][\w.\-]*\}|\[[A-Za-z][\w.\-|]*\]")
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9.\-]*")


def _masked(m: re.Match[str]) -> str:
    inner = next(g for g in m.groups() if g is not None)
    return "$_" + re.sub(r"[^A-Za-z0-9_]", "_", inner)


def mask(text: str) -> str:
    """``text`` with each bracketed placeholder as a same-length ``$_WORDS`` variable."""
    return PLACEHOLDER.sub(_masked, text) if any(c in text for c in "<{[") else text


_PLACEHOLDER_BYTES = re.compile(PLACEHOLDER.pattern.encode("ascii"))


def mask_bytes(data: bytes) -> bytes:
    """:func:`mask` over a file's bytes (offsets kept whatever the encoding)."""
    if not any(c in data for c in b"<{["):
        return data

    def one(m: re.Match[bytes]) -> bytes:
        inner = next(g for g in m.groups() if g is not None)
        return b"$_" + re.sub(rb"[^A-Za-z0-9_]", b"_", inner)

    return _PLACEHOLDER_BYTES.sub(one, data)


def spelling(tok: Token, lines: list[str], first_line: int = 1) -> str:
    """The written form of a word :func:`mask` rewrote (``lines[i]`` is line
    ``first_line + i``, columns 1-based), else the token's own text."""
    span = tok.span
    if (
        not tok.symbolic
        or "$_" not in tok.text
        or span is None
        or span.end_line != span.line
        or span.end_column is None
    ):
        return tok.text
    i = span.line - first_line
    if not 0 <= i < len(lines):
        return tok.text
    written = lines[i][span.column - 1 : span.end_column - 1]
    return written if any(c in written for c in "<{[") and len(written) == len(tok.text) else (
        tok.text
    )


def is_placeholder(text: str) -> bool:
    """One word that stands for a value the reader fills in."""
    return (
        text in ELLIPSES
        or bool(_YOURS.search(text))
        or bool(_WRAPPED.fullmatch(text))
        or text.endswith("...") and not text.startswith("-")
    )


def _opens(text: str) -> bool:
    return text[:1] in "<[" and text[-1:] not in ">]" and bool(_PLAIN.fullmatch(text[1:]))


def _closes(text: str, opener: str) -> bool:
    close = {"<": ">", "[": "]"}[opener]
    return text.endswith(close) and bool(_PLAIN.fullmatch(text[:-1]))


def mark(argv: list[Token]) -> list[Token]:
    """``argv`` with placeholder words symbolic: single words (:func:`is_placeholder`), a
    bracketed run split into words (``[other`` ``flags]``) and ``your`` with the plain
    words after it (``--host your ip``)."""
    out = list(argv)
    i = 0
    while i < len(out):
        tok = out[i]
        if tok.symbolic and tok.text.lower() != "your":
            i += 1
            continue
        end = _run_end(out, i)
        if end > i:
            out[i:end] = [Token(t.text, t.span, True) for t in out[i:end]]
            i = end
            continue
        i += 1
    return out


def _run_end(argv: list[Token], i: int) -> int:
    """The end (exclusive) of the placeholder starting at ``argv[i]``, or ``i`` (none)."""
    text = argv[i].text
    if is_placeholder(text) and text.lower() not in ("your",):
        return i + 1
    if _opens(text):
        for j in range(i + 1, min(len(argv), i + 6)):
            nxt = argv[j].text
            if _closes(nxt, text[0]):
                return j + 1
            if argv[j].symbolic or not _PLAIN.fullmatch(nxt):
                break
        return i
    if text.lower() == "your":
        j = i + 1
        while j < len(argv) and j < i + 4 and not argv[j].symbolic and _PLAIN.fullmatch(
            argv[j].text
        ) and not argv[j].text.startswith("-"):
            j += 1
        return j
    return i

