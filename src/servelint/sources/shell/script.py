"""Static bash reader: every engine launch a script can make, with exact spans.

The script is parsed with tree-sitter-bash and *interpreted symbolically*; nothing is
executed. What the reader resolves:

* variables, ``export``/``local``/``declare``, ``VAR=x cmd`` prefixes, arrays
  (``X=(…)``, ``X+=(…)``, ``"${X[@]}"``), word splitting of unquoted values,
  ``$(( ))`` arithmetic with ternaries, ``${X%…}``/``${X#…}``/``${X/…}``/case ops;
* ``if``/``elif``/``case``/``&&``/``||``: a decidable condition picks its branch; an
  undecidable one forks the flow, and each flow that reaches a launch yields one
  ``LaunchSpec`` whose ``rendering`` names the conditions taken (identical flows merge);
* functions (from the script or ``source``d helpers inside the same repository),
  ``exec``/``nohup``/``env``/``timeout``/``mpirun``/``srun``/``&``/pipes, ``eval`` and
  ``bash -c``/``bash other.sh`` of known text, heredocs written to files (a vLLM
  ``--config FILE`` written by the script becomes ``--key value`` options, per vLLM's
  own loader), ``pip install`` commands before the launch (``LaunchSpec.installs``).

Unknown values stay symbolic (``Token.symbolic``): a variable the script never assigns,
``$(cmd)`` output, ``read`` results, loop-widened values. ``${VAR:-default}`` takes its
default only when the caller passes ``env`` (then ``env`` is the script's whole input
environment) and VAR is neither in it nor assigned before; without ``env`` it stays
symbolic. A plain unset ``$VAR`` stays symbolic unless the script assigns VAR elsewhere.
An ``env`` value of ``None`` marks a variable that is set to an unknown value. Bounds: ``max_states`` concurrent flows (then differing values are joined
into symbolic ones), a step budget and a wall-clock limit (a ``budget`` problem is
reported and the launches found so far are returned).

Sourced files are followed when they resolve inside ``root``: the caller's ``root``,
else the nearest ancestor holding ``.git``, else the nearest holding a ``LICENSE``
file, else the script's own directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from servelint.model import LaunchSpec, Span, Token
from servelint.sources.common.placeholders import mark as mark_placeholders
from servelint.sources.common.placeholders import mask_bytes, spelling
from servelint.sources.common.problems import ReadProblem
from servelint.sources.shell.continuation import continuation_problems
from servelint.sources.shell.interpreter import Interpreter
from servelint.sources.shell.syntax import (
    MAX_FILE_BYTES,
    ParseTimeout,
    load_source,
    parse_source,
)
from servelint.sources.shell.values import is_symbolic, text_of
from servelint.util.textsafe import nul_bytes


@dataclass
class ScriptResult:
    """The launches of one shell script and what they depend on."""

    launches: list[LaunchSpec] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    # variables read before the last launch: a caller varying any other input
    # (e.g. a benchmark's concurrency) gets the same launches
    inputs: set[str] = field(default_factory=set)
    # variables exported at the end of every flow that ends normally: their value, or None
    # where the flows disagree or the value is unknown (what a child process inherits)
    exports: dict[str, str | None] = field(default_factory=dict)
    # package installs every flow that ends normally made (a setup script's pip installs)
    installs: list = field(default_factory=list)


def find_root(path: str) -> str:
    """Repository root used to bound ``source``: .git, else LICENSE, else the script dir."""
    start = os.path.dirname(os.path.abspath(path))
    for marker in (".git", "LICENSE"):
        d = start
        while True:
            if os.path.exists(os.path.join(d, marker)):
                return d
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return start


def read_script(path: str, text: str | None = None, env: dict[str, str | None] | None = None, *,
                root: str | None = None, max_states: int = 32, max_steps: int = 400_000,
                time_limit: float = 5.0, env_complete: bool = True) -> ScriptResult:
    """Find every engine launch in one bash script (never raises, never runs it).

    ``env`` maps variable -> value; a ``None`` value means "set, but to a value the
    caller cannot know" (it stays symbolic, yet counts as set for ``${VAR:-x}``).
    ``env_complete=False``: ``env`` holds what is known, other variables may be set too
    (a Slurm job's environment): they stay symbolic, ``${VAR:-x}`` included.
    """
    result = ScriptResult()
    try:
        if text is None:
            src = load_source(path)
            if src is None:
                size = os.path.getsize(path) if os.path.exists(path) else None
                why = "too large" if size and size > MAX_FILE_BYTES else "unreadable"
                result.problems.append(ReadProblem(path, None, f"script {why}", "read-error"))
                return result
        else:
            data = text.encode("utf-8", "replace")
            if len(data) > MAX_FILE_BYTES:
                result.problems.append(ReadProblem(path, None, "script too large",
                                                   "read-error"))
                return result
            src = parse_source(path, data)
        if _encoding_problem(src, result):
            return result
        written = src.data
        masked = mask_bytes(written)
        if masked != written:  # a template: <N>, {tp}, [args] are words, not redirections
            src = parse_source(src.path, masked)
        _syntax_problems(src, result)
        result.problems.extend(continuation_problems(
            src.path, src.data.decode("utf-8", "replace").split("\n"),
            lambda i, col: Span(src.path, i + 1, col, i + 1, col + 1)))
        interp = Interpreter(os.path.abspath(path) if text is None else path,
                             root or find_root(path), env, max_states=max_states,
                             max_steps=max_steps, time_limit=time_limit)
        interp.env_complete = env is not None and env_complete
        interp.run(src)
        result.launches = dedupe_launches(interp.launches)
        _placeholders(result.launches, written.decode("utf-8", "replace").split("\n"))
        result.problems.extend(interp.problems)
        result.inputs = interp.inputs()
        result.exports = _exports(interp.end_states)
        result.installs = _installs(interp.end_states)
    except ParseTimeout as exc:
        result.problems.append(ReadProblem(path, None, str(exc), "read-error"))
    except OSError as exc:  # (unreadable: permissions, a folder removed meanwhile)
        result.problems.append(ReadProblem(path, None, f"cannot read: {exc.strerror or exc}",
                                           "read-error"))
    except Exception as exc:  # a reader must never take the run down
        result.problems.append(ReadProblem(path, None, f"internal reader error: {exc!r}",
                                           "read-error"))
    return result


def _placeholders(launches: list[LaunchSpec], lines: list[str]) -> None:
    """Placeholder words of a template script are symbolic, a masked one spelled as
    written (:mod:`servelint.sources.common.placeholders`)."""
    for spec in launches:
        spec.argv = mark_placeholders(
            [Token(spelling(t, lines), t.span, True) if "$_" in t.text and t.symbolic else t
             for t in spec.argv]
        )


def _exports(states: list) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    ended = [st for st in states if st.flow != "exit"]
    for st in ended:
        for name, var in st.vars.items():
            if not var.exported or var.external:
                continue
            pieces = var.scalar_value()
            value = None if is_symbolic(pieces) else text_of(pieces)
            out[name] = value if out.get(name, value) == value else None
    for name in list(out):
        if any(name not in st.vars for st in ended):
            out[name] = None  # exported on some flows only
    return out


def _installs(states: list) -> list:
    ended = [st for st in states if st.flow != "exit"]
    if not ended:
        return []
    common = set.intersection(*({(i.requirement, i.span) for i in st.installs} for st in ended))
    return [i for i in ended[0].installs if (i.requirement, i.span) in common]


def _encoding_problem(src, result: ScriptResult) -> bool:
    """Bytes that are not UTF-8 are read as U+FFFD: the words holding them are not exact.
    NUL bytes are an error as in a recipe (bash drops them; the words are not as written)."""
    nul = nul_bytes(src.data)
    if nul is not None:
        result.problems.append(ReadProblem(src.path, None, nul[0], "read-error"))
        if nul[1]:  # UTF-16/32 without a byte-order mark: not read
            return True
    try:
        src.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        result.problems.append(ReadProblem(src.path, src.span_bytes(exc.start, exc.end),
                                           "script is not valid UTF-8; undecodable bytes are "
                                           "read as U+FFFD", "read-error"))
    return False


def _syntax_problems(src, result: ScriptResult, limit: int = 5) -> None:
    root = src.tree.root_node
    if not root.has_error:
        return
    stack = [root]
    found = 0
    while stack and found < limit:
        node = stack.pop()
        if node.is_error or node.is_missing:
            result.problems.append(ReadProblem(
                src.path, src.span(node),
                "bash syntax the parser could not read; launches in this part may be missed",
                "parse-error"))
            found += 1
            continue
        if node.has_error:
            stack.extend(reversed(node.children))


def _launch_key(spec: LaunchSpec) -> tuple:
    return (
        spec.engine, spec.entrypoint, _span_key(spec.anchor),
        tuple((t.text, t.symbolic, _span_key(t.span)) for t in spec.argv),
        tuple((e.name, e.value, e.symbolic) for e in spec.env),
        tuple((i.requirement, _span_key(i.span)) for i in spec.installs),
        spec.release, tuple(sorted(spec.context.items())),
    )


def _span_key(span: Span | None) -> tuple:
    return (span.path, span.line, span.column) if span else ()


def dedupe_launches(launches: list[LaunchSpec]) -> list[LaunchSpec]:
    """Identical launches from different flows collapse; the label keeps what they share."""
    out: dict[tuple, LaunchSpec] = {}
    for spec in launches:
        key = _launch_key(spec)
        if key in out:
            prev = out[key]
            a, b = prev.rendering.split("; "), spec.rendering.split("; ")
            common = []
            for x, y in zip(a, b, strict=False):
                if x != y:
                    break
                common.append(x)
            prev.rendering = "; ".join(common)
            continue
        out[key] = spec
    return list(out.values())
