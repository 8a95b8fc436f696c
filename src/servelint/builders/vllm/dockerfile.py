"""Read a Dockerfile into stages of instructions, and its RUN shell text into commands.

Never runs anything: the shell text is tokenised and a small subset of ``[ ... ]`` tests
is evaluated against the ARG defaults, so that an install behind ``if [ "$X" = "true" ]``
with ``ARG X=false`` is known to be skipped. Anything not decidable stays "unknown".
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

_FROM = re.compile(r"FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$", re.I)
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_TRIM = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(%%|%|##|#)([^}]*)\}")


@dataclass
class Instruction:
    keyword: str
    text: str  # the arguments, continuation lines joined, comment lines dropped
    line: int  # first physical line
    lines: list[int]  # physical line of each character of ``text``


@dataclass
class Stage:
    base: str
    name: str | None
    line: int
    args: dict[str, str | None] = field(default_factory=dict)
    body: list[Instruction] = field(default_factory=list)


@dataclass
class Dockerfile:
    global_args: dict[str, str | None]
    stages: list[Stage]

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)


def instructions(text: str) -> list[Instruction]:
    out: list[Instruction] = []
    buf: list[str] = []
    where: list[int] = []
    start = 0
    for no, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not buf and (not stripped or stripped.startswith("#")):
            continue
        if buf and stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        if not buf:
            start = no
        cont = raw.rstrip().endswith("\\")
        part = raw.rstrip()[:-1] if cont else raw
        buf.append(part + (" " if cont else "\n"))
        where.extend([no] * (len(part) + 1))
        if not cont:
            joined = "".join(buf)
            keyword, _, rest = joined.lstrip().partition(" ")
            lead = len(joined) - len(joined.lstrip()) + len(keyword) + 1
            out.append(Instruction(keyword.upper(), rest, start, where[lead:] or [start]))
            buf, where = [], []
    return out


def _arg_pairs(text: str) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for word in split_words(text):
        name, eq, default = word.partition("=")
        out[name] = default if eq else None
    return out


def parse(text: str) -> Dockerfile:
    global_args: dict[str, str | None] = {}
    stages: list[Stage] = []
    for ins in instructions(text):
        if ins.keyword == "FROM":
            m = _FROM.match("FROM " + ins.text.strip())
            if m:
                stages.append(Stage(m.group(1), m.group(2), ins.line))
            continue
        if ins.keyword == "ARG":
            (stages[-1].args if stages else global_args).update(_arg_pairs(ins.text))
        if stages:
            stages[-1].body.append(ins)
    return Dockerfile(global_args, stages)


def expand(word: str, env: dict[str, str | None]) -> str | None:
    """``word`` with $VAR/${VAR}/${VAR:-d} replaced; None when a variable has no value or
    the word holds a command substitution."""
    if "$(" in word or "`" in word:
        return None
    missing = False

    def sub(m: re.Match[str]) -> str:
        nonlocal missing
        name = m.group(1) or m.group(3)
        value = env.get(name)
        if value is None:
            if m.group(2) is not None:
                return m.group(2)
            missing = True
            return ""
        return value

    out = _VAR.sub(sub, _TRIM.sub(lambda m: _trim(m, env), word))
    return None if missing or "${" in out else out


def _trim(m: re.Match[str], env: dict[str, str | None]) -> str:
    """``${VAR%%pat}`` and friends, the pattern a shell glob."""
    value, op, pat = env.get(m.group(1)), m.group(2), m.group(3)
    if value is None:
        return m.group(0)
    cuts = range(len(value) + 1)
    if op.startswith("%"):
        hits = [k for k in cuts if fnmatch.fnmatchcase(value[k:], pat)]
        return value[: hits[0] if op == "%%" else hits[-1]] if hits else value
    hits = [k for k in cuts if fnmatch.fnmatchcase(value[:k], pat)]
    return value[hits[-1] if op == "##" else hits[0] :] if hits else value


def split_words(text: str) -> list[str]:
    return [w for w, _ in tokens(text) if w not in _SEPARATORS]


_SEPARATORS = {";", "&&", "||", "|", "(", ")", "\n", "&"}


def tokens(text: str, lines: list[int] | None = None) -> list[tuple[str, int]]:
    """Shell words and separators with the physical line each starts on. Quotes are
    removed; ``$(...)`` stays inside its word."""
    out: list[tuple[str, int]] = []
    i, n = 0, len(text)
    word: list[str] = []
    start = 0

    def line_at(k: int) -> int:
        return lines[min(k, len(lines) - 1)] if lines else 0

    def flush() -> None:
        if word:
            out.append(("".join(word), line_at(start)))
            word.clear()

    while i < n:
        c = text[i]
        if c in " \t":
            flush()
            i += 1
            continue
        if not word:
            start = i
        if c == "#" and not word:
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in "'\"":
            j = text.find(c, i + 1)
            j = n if j < 0 else j
            word.append(text[i + 1 : j])
            i = j + 1
            continue
        if c == "$" and text.startswith("$(", i):
            depth, j = 0, i
            while j < n:
                depth += text[j] == "("
                depth -= text[j] == ")"
                j += 1
                if depth == 0 and text[j - 1] == ")":
                    break
            word.append(text[i:j])
            i = j
            continue
        two = text[i : i + 2]
        if two in ("&&", "||"):
            flush()
            out.append((two, line_at(i)))
            i += 2
            continue
        if c in ";|()&\n":
            flush()
            out.append((c, line_at(i)))
            i += 1
            continue
        word.append(c)
        i += 1
    flush()
    return out


def commands(text: str, lines: list[int]) -> list[tuple[list[str], int, list[list[str]]]]:
    """Simple commands of a RUN as (words, line, enclosing conditions). Each condition is a
    test's words, prefixed by ``!`` when the command sits in its else branch (or a later
    elif); a ``case`` arm counts as the undecidable condition ``["case"]``."""
    out: list[tuple[list[str], int, list[list[str]]]] = []
    stack: list[list[list[str]]] = []  # per open if/case: the branch conditions in force
    current: list[str] = []
    line = 0
    test: list[str] | None = None
    elif_pending = False

    def end_command() -> None:
        nonlocal current
        if current:
            out.append((current, line, [c for frame in stack for c in frame]))
        current = []

    for word, at in tokens(text, lines):
        if test is not None:
            if word == "then":
                cond = [w for w in test if w != "\n"]
                while cond and cond[-1] in _SEPARATORS:
                    cond.pop()
                if elif_pending and stack:
                    stack[-1].append(cond)
                else:
                    stack.append([cond])
                test, elif_pending = None, False
            else:
                test.append(word)
            continue
        if word in _SEPARATORS:
            end_command()
            continue
        if not current:
            if word in ("if", "elif"):
                if word == "elif" and stack:
                    stack[-1][-1] = ["!", *stack[-1][-1]]
                    elif_pending = True
                test = []
                continue
            if word == "else" and stack:
                stack[-1][-1] = ["!", *stack[-1][-1]]
                continue
            if word in ("fi", "esac") and stack:
                stack.pop()
                continue
            if word == "case":
                stack.append([["case"]])
                continue
            line = at
        current.append(word)
    end_command()
    return out


def decide(cond: list[str], env: dict[str, str | None]) -> bool | None:
    """The truth of a test like ``[ "$X" = "true" ] && [ -n "$Y" ]``; None if unknown."""
    if cond[:1] == ["!"]:
        inner = decide(cond[1:], env)
        return None if inner is None else not inner
    if "||" in cond:
        i = cond.index("||")
        a, b = decide(cond[:i], env), decide(cond[i + 1 :], env)
        if a is True or b is True:
            return True
        return None if a is None or b is None else False
    if "&&" in cond:
        i = cond.index("&&")
        a, b = decide(cond[:i], env), decide(cond[i + 1 :], env)
        if a is False or b is False:
            return False
        return None if a is None or b is None else True
    if len(cond) < 3 or cond[0] not in ("[", "[[") or cond[-1] not in ("]", "]]"):
        return None
    body = cond[1:-1]
    negate = body[:1] == ["!"]
    body = body[1:] if negate else body
    result = _test(body, env)
    return None if result is None else result != negate


def _test(body: list[str], env: dict[str, str | None]) -> bool | None:
    vals = [expand(w, env) for w in body]
    if len(body) == 2 and body[0] in ("-n", "-z") and vals[1] is not None:
        return bool(vals[1]) == (body[0] == "-n")
    if len(body) == 3 and body[1] in ("=", "==", "!=") and None not in (vals[0], vals[2]):
        return (vals[0] == vals[2]) == (body[1] != "!=")
    return None
