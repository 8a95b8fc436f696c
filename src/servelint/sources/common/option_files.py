"""Option files a launch names by path: ``trtllm-serve --extra_llm_api_options FILE`` (or
``--config``), ``vllm serve --config FILE``, ``sglang.launch_server --config FILE`` and a
Dynamo TensorRT-LLM worker's ``--extra-engine-args FILE``.

A file the script writes (heredoc, ``echo >``) is the interpreter's (``State.files``); this
module finds the others on disk, the way the launch's shell would: a relative name against
the working directory the script set with ``cd``/``pushd`` (``CWD_VAR``), else against the
launching file's folder (a Markdown guide's commands run in its folder) and then the
checkout's root; an absolute name as it is, else (a container path such as
``/workspace/recipes/x/agg.yaml``) as the checkout file at the same trailing path, two
components at least. Every path tried is recorded (``deps.note``) so that a cached result is
dropped when one appears or changes; the file is read through the shared YAML loader
(``yamlpos.load_yaml``: its bounds, its problems) and handed on as lines with spans in the
option file itself, the form the heredoc path gives.

A name found nowhere that nothing else in the launching file mentions (a ``cp``, a
generator's redirect, a download, a comment saying where it comes from) is one warning:
"launch reads X, which nothing provides".
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from servelint.engines import registry
from servelint.engines.dynamo.entrypoints import WORKER_MODULES
from servelint.model import Span
from servelint.sources.common.deps import note
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, key_text, load_yaml, load_yaml_text

# LaunchSpec.context key: where each top-level key of a config file the engine's parser reads
# by path (SGLang's --config) is, for rules to place its findings (rules._util.option_span)
KEY_SPANS = "config_key_spans"
# LaunchSpec.context key: the text of that file when the document writes it (a heredoc), which
# the parser reads in its place (pipeline.argv_memo.parse_spec)
WRITTEN_CONFIG = "config_written_text"
# the interpreter's working directory: a variable name no script can spell (``@``), joined
# like any other value (a ``cd`` on one branch only makes it unknown)
CWD_VAR = "@cwd"
# the option naming the engine's option file, per Dynamo worker (dynamo/trtllm/utils/
# trtllm_utils.py: ``--extra-engine-args``, read by update_llm_args_with_extra_options)
_WORKER_FILE_FLAGS = {"trtllm": ("--extra-engine-args",)}
MAX_OPTION_FILE_BYTES = 1 << 20  # an option file is a few kB; larger is not one
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+|local\s+|readonly\s+|declare\s+\S+\s+)?[A-Za-z_]\w*=")

Lines = tuple[tuple[str, Span | None, bool], ...]


@dataclass(slots=True)
class OnDisk:
    """What became of a name: the file's lines (with spans in it) or the problem."""

    path: str | None  # the file read, absolute
    lines: Lines | None
    problem: ReadProblem | None = None


def file_flags(engine: str, entrypoint: str) -> tuple[str, ...]:
    """The options of this launch that name a file the engine reads its options from."""
    worker = WORKER_MODULES.get(entrypoint)
    if worker in _WORKER_FILE_FLAGS:
        return _WORKER_FILE_FLAGS[worker]
    found = registry.find(engine)
    return found.config_flags if found else ()


def change_dir(cwd: str | None, target: str | None, launching_file: str) -> str | None:
    """The working directory after ``cd target`` from ``cwd`` (None: not known)."""
    if target is None or target in ("", "-") or target.startswith("~"):
        return None
    if os.path.isabs(target):
        return os.path.normpath(target)
    base = cwd if cwd is not None else os.path.dirname(os.path.abspath(launching_file))
    return os.path.normpath(os.path.join(base, target))


def candidates(name: str, cwd: str | None, launching_file: str, root: str) -> list[str]:
    """The paths ``name`` may stand for, most likely first."""
    here = os.path.dirname(os.path.abspath(launching_file))
    if os.path.isabs(name):
        out = [os.path.normpath(name)]
        parts = [p for p in os.path.normpath(name).split(os.sep) if p]
        bases = _checkout_folders(here, os.path.abspath(root))
        for k in range(1, len(parts) - 1):  # /workspace/recipes/x.yaml -> <base>/recipes/x.yaml
            out += [os.path.join(base, *parts[k:]) for base in bases]
        return out
    if cwd is not None:
        return [os.path.normpath(os.path.join(cwd, name))]
    out = [os.path.normpath(os.path.join(here, name))]
    at_root = os.path.normpath(os.path.join(root, name))
    return out + ([at_root] if at_root not in out else [])


def _checkout_folders(here: str, root: str) -> list[str]:
    """The launching file's folder and its parents up to the checkout's root (the folder a
    container may mount as its working tree), nearest first."""
    out = [here]
    while here != root and os.path.dirname(here) != here and len(out) < 16:
        here = os.path.dirname(here)
        out.append(here)
    return out if out[-1] == root else [out[0], root]


def locate(name: str, cwd: str | None, launching_file: str, root: str) -> str | None:
    """The first candidate that is a regular file (every one tried is noted)."""
    for path in candidates(name, cwd, launching_file, root):
        note(path)
        if os.path.isfile(path):
            return path
    return None


def read_lines(path: str, at: Span | None) -> OnDisk:
    """The option file's lines, each with its span in the file; or why it cannot be read."""
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        return OnDisk(path, None, _problem(at, f"cannot read option file {path}: {exc}"))
    if size > MAX_OPTION_FILE_BYTES:
        why = f"option file {path} is too large to check ({size} bytes)"
        return OnDisk(path, None, _problem(at, why, "budget"))
    doc = load_yaml(path)  # bounds and well-formedness; the engine's own reading is judged later
    if doc.root is None and doc.problems:
        return OnDisk(path, None, doc.problems[0])
    with open(path, "rb") as fh:
        text = fh.read(MAX_OPTION_FILE_BYTES).decode("utf-8-sig", "replace")
    lines = tuple(
        (line, Span(path, i + 1, 1, i + 1, 1 + len(line)), False)
        for i, line in enumerate(text.split("\n"))
    )
    while lines and not lines[-1][0]:
        lines = lines[:-1]
    return OnDisk(path, lines)


def key_spans(path: str) -> str | None:
    """The spans of the top-level keys of the YAML mapping in ``path`` and of their values,
    as ``LaunchSpec.context[KEY_SPANS]`` holds them (JSON: ``[[key, key span, value
    span], ...]``, a span as ``[path, line, column, end line, end column]``); None when the
    file is no mapping. A key written twice is the last one: the value ``yaml.safe_load``
    keeps."""
    return _key_spans(load_yaml(path).root, lambda s: [s.path, s.line, s.column, s.end_line,
                                                       s.end_column])


def written_key_spans(lines: Lines) -> str | None:
    """``key_spans`` of a file the document writes (a heredoc): spans in the document."""
    doc = load_yaml_text("\n".join(text for text, _, _ in lines), "<written>")

    def place(line: int, column: int) -> tuple[str, int, int]:
        at = lines[min(line, len(lines)) - 1][1]
        if at is None:
            return "", line, column
        return at.path, at.line, at.column + column - 1

    def in_document(s: Span) -> list:
        path, line, column = place(s.line, s.column)
        _, end_line, end_column = place(s.end_line or s.line, s.end_column or s.column)
        return [path, line, column, end_line, end_column]

    return _key_spans(doc.root, in_document)


def _key_spans(root: object, span_of) -> str | None:  # noqa: ANN001
    if not isinstance(root, Map):
        return None
    out = [[key_text(key), span_of(key.span), span_of(value.span)] for key, value in root.entries]
    if any(not s[0] for _, *spans in out for s in spans):
        return None  # a line without a place in the document
    return json.dumps(out)


def find(
    name: str, cwd: str | None, cwd_known: bool, launching_file: str, root: str,
    at: Span | None, launch: Span, source_text: str,
) -> OnDisk | None:
    """The option file ``name`` (given at ``at``) the launch spanning ``launch`` reads; None
    when there is nothing to say."""
    if not cwd_known and not os.path.isabs(name):
        why = (f"option file {name!r} is read from a working directory the script sets at "
               "run time: not checked")
        return OnDisk(None, None, _problem(at, why, "unsupported"))
    path = locate(name, cwd, launching_file, root)
    if path is not None:
        return read_lines(path, at)
    if mentioned_elsewhere(source_text, name, launch):
        return None
    where = "in the checkout" if not os.path.isabs(name) else "on this machine or in the checkout"
    why = (f"launch reads {name}, which nothing provides (not written by the script, not "
           f"found {where})")
    return OnDisk(None, None, _problem(at, why, "unresolved"))


def mentioned_elsewhere(source_text: str, name: str, launch: Span) -> bool:
    """Whether a line of the launching file other than the launch's own and plain
    assignments names the file (something may write, copy or download it)."""
    base = os.path.basename(name)
    if not base:
        return True
    first, last = launch.line, launch.end_line or launch.line
    for i, line in enumerate(source_text.split("\n"), start=1):
        if base not in line or first <= i <= last:
            continue
        if not _ASSIGNMENT.match(line):
            return True
    return False


def _problem(at: Span | None, message: str, kind: str = "read-error") -> ReadProblem:
    return ReadProblem(at.path if at else "", at, message, kind)
