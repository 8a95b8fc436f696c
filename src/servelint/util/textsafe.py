"""Text from files and file names, made safe for a terminal, a CI log and a JSON document.

Input is hostile: a file name may hold bytes that are not UTF-8 (they arrive as lone
surrogates, ``os.fsdecode``), and file contents or names may hold terminal escape sequences
(window title, clear screen) or newlines that would start a line of their own — GitHub reads
any log line starting with ``::`` as a workflow command.

- ``printable(text)``: control characters, lone surrogates, line and paragraph separators and
  bidirectional overrides as visible escapes (``\\x1b``, ``\\n``, ``\\u202e``); for text and
  GitHub output. ``keep`` lists characters to leave alone (the GitHub reporter escapes
  newlines its own way).
- ``valid_unicode(text)``: lone surrogates replaced by U+FFFD; for JSON and SARIF, which must
  be valid UTF-8.
- ``nul_bytes(raw)``: why a text file holding NUL bytes is not text as it stands (UTF-16/32
  saved without a byte-order mark, or binary); the readers report it as a read error.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, from os.fsdecode
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, keep: str = "") -> str:
    """``text`` with every unsafe character escaped (none left to act on a terminal)."""
    if text.isascii() and text.isprintable():
        return text
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()), text)


def valid_unicode(text: str) -> str:
    """``text`` encodable as UTF-8: lone surrogates become U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def nul_bytes(raw: bytes) -> tuple[str, bool] | None:
    """None when ``raw`` holds no NUL byte; else (why, unreadable): ``unreadable`` when the
    NULs sit between the characters (UTF-16/32 without a byte-order mark: read as UTF-8 it
    is NULs and letters, and every launch in it would be missed)."""
    first = raw.find(b"\0")
    if first < 0:
        return None
    count = raw.count(b"\0")
    sample = raw[:4096]
    if count * 4 >= len(raw) and (sample[1::2].count(0) * 2 >= len(sample[1::2]) or
                                  sample[0::2].count(0) * 2 >= len(sample[0::2])):
        return ("the file looks like UTF-16 or UTF-32 without a byte-order mark (NUL bytes "
                "between the characters): not read; save it as UTF-8", True)
    return (f"the file holds {count} NUL byte{'s' if count != 1 else ''} (first at byte "
            f"{first}): not text as written (bash drops them, YAML refuses them)", False)

