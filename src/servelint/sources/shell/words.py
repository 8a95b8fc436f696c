"""What simple builtins make of known words: ``echo``/``printf``/``seq`` output, ``test``
comparisons, and the text worth interpreting at all."""

from __future__ import annotations

import re

from servelint.sources.shell.parts import (
    glob_regex,
)

try:
    from tree_sitter import QueryCursor
except ImportError:  # tree-sitter < 0.25
    QueryCursor = None

from servelint.engines import registry


def relevant_text() -> re.Pattern[str]:
    """Text worth interpreting: an engine's words, installs, wrappers, nested shells."""
    return _relevant_pattern(registry.shell_words())


def _relevant_pattern(engine_words: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(re.escape(w) for w in engine_words)
    return re.compile(
        rf"\b({words}|pip[0-9.]*|pipx|uv|eval|mpirun|mpiexec|srun|source)\b"
        r"|(^|[;&|]\s*|\b(exec|nohup|env|timeout)\s+)"
        r"(bash|sh)\s|^\s*\"?\$\{?[A-Za-z_][A-Za-z0-9_]*\[@\]",
        re.M,
    )


def echo_output(words: list[str]) -> str | None:
    """stdout of ``echo``/``printf`` with known words (None: a form we do not model)."""
    cmd, args = words[0], words[1:]
    if cmd == "echo":
        newline = "\n"
        while args and args[0] in ("-n", "-e", "-E"):
            if args[0] == "-n":
                newline = ""
            args = args[1:]
        return " ".join(args) + newline
    if not args:
        return None
    fmt, values = args[0], args[1:]
    if re.search(r"%[^sdi%]", fmt.replace("%%", "")):
        return None
    n = len(re.findall(r"%[sdi]", fmt.replace("%%", "")))
    fmt = fmt.replace("\\n", "\n").replace("\\t", "\t")
    out = ""
    while True:
        chunk, values = values[:n], values[n:]
        chunk += [""] * (n - len(chunk))
        pieces = re.split(r"(%[sdi%])", fmt)
        k = 0
        for piece in pieces:
            if piece == "%%":
                out += "%"
            elif piece in ("%s", "%d", "%i"):
                out += chunk[k]
                k += 1
            else:
                out += piece
        if not values or n == 0:
            return out


def seq_output(args: list[str]) -> str | None:
    sep = "\n"
    if len(args) >= 2 and args[0] == "-s":
        sep, args = args[1], args[2:]
    elif args and args[0].startswith("-s") and len(args[0]) > 2:
        sep, args = args[0][2:], args[1:]
    try:
        nums = [int(a) for a in args]
    except ValueError:
        return None
    if len(nums) == 1:
        first, step, last = 1, 1, nums[0]
    elif len(nums) == 2:
        first, step, last = nums[0], 1, nums[1]
    elif len(nums) == 3:
        first, step, last = nums
    else:
        return None
    if step == 0 or abs(last - first) // abs(step) > 100_000:
        return None
    return sep.join(str(v) for v in range(first, last + (1 if step > 0 else -1), step)) + "\n"


def compare(op: str, a: str, b: str, pattern: bool) -> bool | None:
    if op in ("=", "=="):
        return bool(re.fullmatch(glob_regex(b), a, re.S)) if pattern else a == b
    if op == "!=":
        return not re.fullmatch(glob_regex(b), a, re.S) if pattern else a != b
    if op == "=~":
        try:
            return re.search(b, a) is not None
        except re.error:
            return None
    if op in ("<", ">"):
        return a < b if op == "<" else a > b
    ints = {
        "-eq": lambda x, y: x == y,
        "-ne": lambda x, y: x != y,
        "-lt": lambda x, y: x < y,
        "-le": lambda x, y: x <= y,
        "-gt": lambda x, y: x > y,
        "-ge": lambda x, y: x >= y,
    }
    if op in ints:
        try:
            return ints[op](int(a.strip()), int(b.strip()))
        except ValueError:
            return None
    return None


def simple_test(words: list[str]) -> bool | None:
    if len(words) == 1:
        return words[0] != ""
    if len(words) == 2 and words[0] in ("-n", "-z"):
        return (words[1] != "") == (words[0] == "-n")
    if len(words) == 2 and words[0] == "!":
        return words[1] == ""
    if len(words) == 3:
        return compare(words[1], words[0], words[2], False)
    return None
