"""The bad-input corpus: every input servelint must turn into findings without crashing.

Small inputs are committed next to this file; big, binary and special files (50 MB, FIFOs,
symlink loops) are generated into a scratch folder by :func:`build`. Shared by
``tests/test_bad_inputs.py`` and ``bench/robustness.py``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
MB = 1024 * 1024


@dataclass(frozen=True)
class BadInput:
    name: str
    make: Callable[[Path], Path]  # creates the input under a scratch root; the path to check
    expect: str | None  # regex an SL001 (read-error) message must match; None: none required
    launches: int | None = None  # launches the pipeline must still find (None: any number)


@dataclass(frozen=True)
class BuiltInput:
    case: BadInput
    path: Path


# ---------------------------------------------------------------- makers


def _committed(rel: str) -> Callable[[Path], Path]:
    def make(root: Path) -> Path:
        dest = root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HERE / rel, dest)
        return dest

    return make


def _write(rel: str, data: bytes | Callable[[], bytes]) -> Callable[[Path], Path]:
    def make(root: Path) -> Path:
        dest = root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data() if callable(data) else data)
        return dest

    return make


def _huge(head: bytes, line: bytes, tail: bytes, size: int) -> Callable[[], bytes]:
    return lambda: head + line * (size // len(line)) + tail


def _fifo(rel: str) -> Callable[[Path], Path]:
    def make(root: Path) -> Path:
        dest = root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(dest)
        return dest

    return make


def _symlink(rel: str, target: str) -> Callable[[Path], Path]:
    def make(root: Path) -> Path:
        dest = root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, dest)
        return dest

    return make


def _symlink_loop(root: Path) -> Path:
    os.symlink("loop_b.sh", root / "loop_a.sh")
    os.symlink("loop_a.sh", root / "loop_b.sh")
    return root / "loop_a.sh"


def _directory_named_like_a_script(root: Path) -> Path:
    (root / "folder.sh").mkdir()
    return root / "folder.sh"


def _file_as_a_directory(root: Path) -> Path:
    (root / "plain.sh").write_text("#!/bin/bash\n", encoding="utf-8")
    return root / "plain.sh" / "inner.sh"


def _deep_block_yaml(depth: int) -> bytes:
    lines = ["model:"] + [" " * (i + 1) + f"k{i}:" for i in range(depth)] + ["variants: {}", ""]
    return "\n".join(lines).encode()


def _huge_argv_script(flags: int) -> bytes:
    args = " ".join(f"--max-num-seqs {i}" for i in range(flags))
    return f"#!/bin/bash\nvllm serve org/m {args}\n".encode()


def _huge_argv_recipe(flags: int) -> bytes:
    items = "".join(f'    - "--max-num-seqs"\n    - "{i}"\n' for i in range(flags))
    return (f"model:\n  model_id: org/m\n  base_args:\n{items}variants:\n  default:\n"
            "    precision: bf16\ncompatible_strategies:\n  - single_node_tp\n").encode()


BINARY = bytes(range(256)) * 64

CASES: list[BadInput] = [
    # YAML recipes
    BadInput("invalid_yaml", _committed("models/org/invalid_yaml.yaml"), r"malformed YAML"),
    BadInput("alias_bomb", _committed("models/org/alias_bomb.yaml"),
             r"expands to more than \d+ nodes through aliases"),
    BadInput("recursive_alias", _committed("models/org/recursive_alias.yaml"),
             r"recursive alias"),
    BadInput("recipe_not_a_mapping", _committed("models/org/not_a_map.yaml"), r"mapping"),
    BadInput("empty_recipe", _committed("models/org/empty.yaml"), r"empty"),
    BadInput("non_utf8_recipe", _committed("models/org/non_utf8.yaml"), r"not valid UTF-8"),
    BadInput("binary_recipe", _write("models/org/binary.yaml", b"model:\n" + BINARY),
             r"not valid UTF-8"),
    BadInput("nul_bytes_recipe", _write("models/org/nul.yaml", b"model:\n  a: b\x00c\n"),
             r"malformed YAML"),
    BadInput("deep_flow_yaml", _write("models/org/deep_flow.yaml",
                                      b"model: " + b"[" * 5000 + b"]" * 5000 + b"\nvariants: {}\n"),
             r"nest"),
    BadInput("deep_block_yaml", _write("models/org/deep_block.yaml", _deep_block_yaml(3000)),
             r"nest"),
    BadInput("huge_recipe_50mb", _write("models/org/huge.yaml", _huge(
        b"model:\n  model_id: org/m\n  base_args:\n", b'    - "--enforce-eager"\n',
        b"variants: {}\n", 50 * MB)), r"file too large to check"),
    BadInput("huge_argv_recipe", _write("models/org/huge_argv.yaml", _huge_argv_recipe(5000)),
             None),
    BadInput("fifo_recipe", _fifo("models/org/fifo.yaml"), r"not a regular file"),
    # bash launchers
    BadInput("unparsable_bash", _committed("unparsable.sh"), r"syntax"),
    BadInput("non_utf8_bash", _committed("non_utf8.sh"), r"not valid UTF-8", launches=1),
    BadInput("binary_bash", _write("binary.sh", BINARY), r"not valid UTF-8"),
    BadInput("empty_bash", _write("empty.sh", b""), None, launches=0),
    BadInput("deep_command_substitution", _write(
        "deep_subst.sh", b"#!/bin/bash\n" + b"$(" * 3000 + b"echo" + b")" * 3000 + b"\n"),
             r"nest"),
    BadInput("deep_if", _write("deep_if.sh", b"#!/bin/bash\n" + b"if true; then\n" * 2000 +
                               b"vllm serve org/m\n" + b"fi\n" * 2000), r"nest"),
    BadInput("deep_subshell", _write("deep_subshell.sh", b"#!/bin/bash\n" + b"(" * 5000 +
                                     b"vllm serve org/m" + b")" * 5000 + b"\n"),
             r"syntax|nest"),
    BadInput("huge_script_50mb", _write("huge.sh", _huge(
        b"#!/bin/bash\n", b"echo " + b"x" * 95 + b"\n", b"vllm serve org/m\n", 50 * MB)),
             r"file too large to check"),
    BadInput("script_over_bash_limit", _write("big.sh", _huge(
        b"#!/bin/bash\n", b"echo " + b"x" * 95 + b"\n", b"vllm serve org/m\n", 3 * MB)),
             r"too large"),
    BadInput("huge_argv_bash", _write("huge_argv.sh", _huge_argv_script(3000)), None,
             launches=1),
    BadInput("fifo_bash", _fifo("fifo.sh"), r"not a regular file"),
    BadInput("device_symlink", _symlink("zero.sh", "/dev/zero"), r"not a regular file"),
    BadInput("symlink_loop", _symlink_loop, r"cannot read"),
    BadInput("dangling_symlink", _symlink("dangling.sh", "no-such-target.sh"), r"cannot read"),
    BadInput("missing_path", lambda root: root / "missing.sh", r"no such file"),
    BadInput("file_used_as_directory", _file_as_a_directory, r"no such file"),
    BadInput("directory_named_like_a_script", _directory_named_like_a_script, None,
             launches=0),
    # Markdown guides
    BadInput("unterminated_fence", _committed("unterminated_fence.md"), None, launches=1),
    BadInput("binary_markdown", _write("binary.md", BINARY), None),
    BadInput("empty_markdown", _write("empty.md", b""), None, launches=0),
    BadInput("fifo_markdown", _fifo("fifo.md"), r"not a regular file"),
    # InferenceX master configs
    BadInput("wrong_types_master", _committed("configs/wrong-types-master.yaml"),
             r"wrong type"),
    BadInput("broken_master", _write("configs/broken-master.yaml", b"a: [unclosed\n"),
             r"cannot read master config"),
    BadInput("list_master", _write("configs/list-master.yaml", b"- 1\n- 2\n"),
             r"not a mapping"),
    BadInput("fifo_master", _fifo("configs/fifo-master.yaml"), r"not a regular file"),
]


def build(root: Path, cases: list[BadInput] | None = None) -> list[BuiltInput]:
    """Create every case under ``root`` (each in a folder of its own)."""
    out = []
    for case in CASES if cases is None else cases:
        folder = root / case.name
        folder.mkdir(parents=True, exist_ok=True)
        out.append(BuiltInput(case, case.make(folder)))
    return out
