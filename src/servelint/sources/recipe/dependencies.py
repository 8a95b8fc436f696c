"""A recipe's ``dependencies:`` block: install steps the site shows above every command.

Each step's ``command`` is a shell line (``uv pip install "fastokens>=0.2.0"``), read with the
bash grammar and interpreter the shell reader uses (quotes, ``&&``/``;`` lists, variables;
never run); its pip/uv installs are part of every launch of the recipe (its renderings and its ``guide:``), so they
satisfy package gates — incident 1's fix 2. A step with ``brand`` applies only to launches on
that brand's hardware (and to launches whose hardware is unknown: a miss is better than a
false error). Spans point at the step's ``command`` scalar.
"""

from __future__ import annotations

import os
from dataclasses import replace

from servelint.model import LaunchSpec, PackageInstall, Span
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq
from servelint.sources.shell.interpreter import Interpreter
from servelint.sources.shell.syntax import ParseTimeout, parse_source
from servelint.util import hardware


def dependency_installs(
    path: str, root: Node | None
) -> list[tuple[PackageInstall, frozenset[str]]]:
    """(install, vendors it is for; empty = every vendor) of each ``dependencies:`` step of
    the recipe at ``path`` (``root``: its composed tree)."""
    steps = root.get("dependencies") if isinstance(root, Map) else None
    if not isinstance(steps, Seq):
        return []
    out: list[tuple[PackageInstall, frozenset[str]]] = []
    for step in steps:
        if not isinstance(step, Map):
            continue
        command = step.get("command")
        if not isinstance(command, Scalar) or not isinstance(command.value, str):
            continue
        vendors = _vendors(step.get("brand"))
        for inst in _installs_in(path, command.value, command.span):
            out.append((inst, vendors))
    return out


def _installs_in(path: str, command: str, span: Span | None) -> list[PackageInstall]:
    """The pip/uv installs of one step's shell text, each at the step's ``command`` span."""
    interp = Interpreter(
        path,
        os.path.dirname(os.path.abspath(path)),
        None,
        max_states=8,
        max_steps=20_000,
        time_limit=1.0,
    )
    try:
        interp.run(parse_source(path, command.encode("utf-8", "replace")))
    except ParseTimeout:
        return []
    seen: dict[int, PackageInstall] = {}
    for st in interp.end_states:
        for inst in st.installs:
            seen.setdefault(id(inst), inst)
    return [replace(i, span=span, from_context=True) for i in seen.values()]


def _vendors(node: object) -> frozenset[str]:
    items = node.items if isinstance(node, Seq) else [node] if node is not None else []
    # a brand is compared with hardware.Gpu.vendor as written, lower-cased
    return frozenset(str(i.value).lower() for i in items if isinstance(i, Scalar) and i.value)


def apply_dependencies(path: str, specs: list[LaunchSpec], root: Node | None) -> None:
    """Add the recipe's dependency installs to each of its launches (before its own)."""
    deps = dependency_installs(path, root)
    if not deps:
        return
    for spec in specs:
        if spec.context.get("docker"):
            continue  # a `docker run` in the guide: the host's installs do not reach it
        gpu = hardware.lookup(spec.gpu) if spec.gpu else None
        mine = [
            inst for inst, vendors in deps if not vendors or gpu is None or gpu.vendor in vendors
        ]
        spec.installs = mine + spec.installs


_ARGV_KEYS = frozenset({"args", "base_args", "extra_args", "head_args", "worker_args"})


def spaced_argv_items(path: str, root: Node | None) -> list[ReadProblem]:
    """``argv-shape`` problems for argv-list items that hold a space (``"--max-model-len
    auto"``): the site prints them unquoted, so a shell splits them, but as container args or
    a JSON argv they are one word argparse rejects."""
    out: list[ReadProblem] = []
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Map):
            for key, value in node.entries:
                if isinstance(value, Seq) and str(key.value) in _ARGV_KEYS:
                    out.extend(_spaced(path, value))
                stack.append(value)
        elif isinstance(node, Seq):
            stack.extend(node.items)
    return sorted(out, key=lambda p: (p.span.line, p.span.column) if p.span else (0, 0))


def _spaced(path: str, seq: Seq) -> list[ReadProblem]:
    out = []
    for item in seq:
        text = item.value if isinstance(item, Scalar) else None
        if isinstance(text, str) and text.startswith("-") and " " in text.strip():
            out.append(
                ReadProblem(
                    path,
                    item.span,
                    f"argv item {text!r} holds a space: a shell "
                    f"splits it into {len(text.split())} words, but as container "
                    "args or a JSON argv it is one word the engine rejects",
                    "argv-shape",
                )
            )
    return out
