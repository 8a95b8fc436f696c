"""The bad-input corpus: every input servelint must turn into findings without crashing.

Small inputs are committed next to this file; big, binary and special files (50 MB, FIFOs,
symlink loops) are generated into a scratch folder by :func:`build`. Shared by
``tests/test_bad_inputs.py`` and ``bench/robustness.py``.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import subprocess
import sys
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
    # issue 18: how the CLI is run on it and what its output must show
    args: tuple[str, ...] = ()  # extra CLI arguments ("{dir}": the case's folder)
    rc: int | None = None  # the exit code the CLI must give (None: 0 or 1)
    any_code: str | None = None  # a finding of any rule whose message matches this regex
    safe_output: bool = False  # output: valid UTF-8, no control characters, no injected line
    # run without root's permission override (else permissions mean nothing to root)
    unprivileged: bool = False
    cache: str | None = None  # plant this in every cache entry before the (cached) run
    relative: bool = False  # run in the case's folder, the path relative to it
    # issue 33
    count: tuple[str, int] | None = None  # (rule code, findings of it the run must give)
    argv_has: str | None = None  # a launch's argv must hold this word
    stderr: str | None = None  # regex standard error must match (a refused -o)


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


# ---------------------------------------------------------------- issue 18 makers


def _deep_tree(levels: int) -> Callable[[Path], Path]:
    """A folder tree ``levels`` deep with a launcher at the bottom (made without recursion)."""
    def make(root: Path) -> Path:
        top = root / "tree"
        here = str(top)
        os.mkdir(here)
        for _ in range(levels):
            here += "/d"
            os.mkdir(here)
        with open(here + "/deep.sh", "w", encoding="utf-8") as fh:
            fh.write("#!/bin/bash\nvllm serve org/m\n")
        return top

    return make


def _dir_symlink_loop(root: Path) -> Path:
    top = root / "tree"
    (top / "a").mkdir(parents=True)
    (top / "a" / "run.sh").write_text("#!/bin/bash\nvllm serve org/m\n", encoding="utf-8")
    os.symlink("..", top / "a" / "up")
    os.symlink(str(top), top / "a" / "top")
    return top


def _byte_named(name: bytes, data: bytes) -> Callable[[Path], Path]:
    def make(root: Path) -> Path:
        dest = os.path.join(os.fsencode(root), name)
        with open(dest, "wb") as fh:
            fh.write(data)
        return Path(os.fsdecode(dest))

    return make


def _locked_dir(given: str) -> Callable[[Path], Path]:
    """A folder nobody but root may list, as a walked folder or as the parent of a path."""
    def make(root: Path) -> Path:
        top = root / "tree"
        locked = top / "locked"
        locked.mkdir(parents=True)
        (top / "ok.sh").write_text("#!/bin/bash\nvllm serve org/m\n", encoding="utf-8")
        (locked / "hidden.sh").write_text("#!/bin/bash\nvllm serve org/m\n", encoding="utf-8")
        locked.chmod(0)
        return top if given == "walked" else locked / "hidden.sh"

    return make


def _shell_doubling(assign: bytes, times: int, seed: bytes = b"X=ab\n",
                    use: bytes = b'"$X"') -> bytes:
    return (b"#!/bin/bash\n" + seed + assign * times +
            b"vllm serve org/m --served-model-name " + use + b"\n")


def _fences(count: int) -> bytes:
    return b"# guide\n\n" + b"```bash\npip list\n```\n\n" * count + \
        b"```bash\nvllm serve org/m --no-such-flag 1\n```\n"


def _big_value_recipe(size: int) -> bytes:
    return (b"model:\n  model_id: org/m\n  base_args:\n    - \"--served-model-name\"\n"
            b"    - \"" + b"x" * size + b"\"\nvariants:\n  default:\n    precision: bf16\n"
            b"compatible_strategies:\n  - single_node_tp\n")


def _many_args_recipe(size: int) -> Callable[[], bytes]:
    return _huge(b"model:\n  model_id: org/m\n  base_args:\n", b'    - "--enforce-eager"\n',
                 b"variants:\n  default:\n    precision: bf16\n  fp8:\n    precision: fp8\n"
                 b"compatible_strategies:\n  - single_node_tp\n  - single_node_dep\n", size)


PINNED = ("--engine", "vllm==0.21.0")  # a release, so the flag finding quotes the value
ESC_TEXT = (b"#!/bin/bash\n# \x1b]0;pwned-title\x07\x1b[2J\n"
            b"vllm serve org/m --no-such-flag-\x1b]0;pwned\x07 1 \x1b[2J\n")
NEWLINE_ARG = (b"#!/bin/bash\nvllm serve org/m $'--bogus\\n::error file=pwned.sh,line=1::injected'"
               b" 1\n")
UTF16_GUIDE = ("\ufeff# Guide\n\n```bash\npip install vllm==0.21.0\n"
               "vllm serve org/m --no-such-flag 1\n```\n")
DEEP_QUOTE = "> " * 40
DEEP_QUOTE_GUIDE = (f"# Guide\n\n{DEEP_QUOTE}```bash\n{DEEP_QUOTE}pip install vllm==0.21.0\n"
                    f"{DEEP_QUOTE}vllm serve org/m --no-such-flag 1\n{DEEP_QUOTE}```\n"
                    ).encode()

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
    # ---- issue 18: lost runs
    BadInput("deep_tree_1100", _deep_tree(1100), r"deeper than", rc=1),
    BadInput("dir_symlink_loop", _dir_symlink_loop, None, rc=0, launches=1),
    BadInput("non_utf8_name_sarif", _byte_named(b"caf\xe9\xff.sh", b"#!/bin/bash\nvllm serve "
                                                b"org/m --no-such-flag 1\n"), None,
             args=("--format", "sarif"), safe_output=True, relative=True),
    BadInput("non_utf8_name_json", _byte_named(b"caf\xe9\xff.sh", b"#!/bin/bash\nvllm serve "
                                               b"org/m --no-such-flag 1\n"), None,
             safe_output=True, launches=1, relative=True),
    BadInput("unlistable_walked_dir", _locked_dir("walked"), r"cannot list", rc=1,
             unprivileged=True),
    BadInput("unlistable_parent", _locked_dir("parent"), r"cannot read|permission", rc=1,
             unprivileged=True),
    # main made this a usage error (exit 2, said before anything is checked), see the note
    BadInput("output_is_a_directory", _write("ok.sh", b"#!/bin/bash\nvllm serve org/m\n"),
             None, args=("-o", "{dir}"), rc=2),
    BadInput("cache_pickle_of_other_type", _write("c.sh", b"#!/bin/bash\nvllm serve org/m\n"),
             None, cache="pickle-dict", rc=0, launches=1),
    BadInput("cache_planted_code", _write("c.sh", b"#!/bin/bash\nvllm serve org/m\n"), None,
             cache="pickle-code", rc=0, launches=1),
    BadInput("cache_entry_fifo", _write("c.sh", b"#!/bin/bash\nvllm serve org/m\n"), None,
             cache="fifo", rc=0, launches=1),
    # ---- issue 18: unbounded time or memory
    BadInput("shell_concat_x22", _write("cat22.sh", _shell_doubling(b"X=$X$X\n", 22)),
             r"budget|symbolic", launches=1),
    BadInput("shell_concat_x24", _write("cat24.sh", _shell_doubling(b"X=$X$X\n", 24)),
             r"budget|symbolic", launches=1),
    BadInput("shell_replace_x24", _write("sub24.sh", _shell_doubling(
        b"X=${X//a/aa}\n", 24, seed=b"X=aaaa\n")), r"budget|symbolic", launches=1),
    BadInput("shell_array_x16_json", _write("arr16.sh", _shell_doubling(
        b'A=("${A[@]}" "${A[@]}")\n', 16, seed=b"A=(--max-num-seqs 1)\n", use=b'"${A[@]}"')),
             r"budget|symbolic", launches=1),
    # linear now; 50,000 blocks spend the file's work budget (a note) before the launch
    BadInput("markdown_8000_fences", _write("f8k.md", _fences(8000)), None),
    BadInput("markdown_50000_fences", _write("f50k.md", _fences(50000)), None,
             any_code=r"work budget|no image or release pinned"),  # read to the end, or noted
    BadInput("recipe_7mb_args_json", _write("models/org/args7mb.yaml",
                                            _many_args_recipe(7 * MB)), None),
    BadInput("recipe_7mb_value", _write("models/org/value7mb.yaml",
                                        lambda: _big_value_recipe(7 * MB)), None),
    # ---- issue 18: output injection
    BadInput("escapes_in_content_text", _write("esc.sh", ESC_TEXT), None,
             args=("--format", "text", *PINNED), safe_output=True),
    BadInput("escapes_in_name_text", _byte_named(b"\x1b[2Jclear\x1b]0;title\x07.sh",
                                                 b"#!/bin/bash\nvllm serve org/m "
                                                 b"--no-such-flag 1\n"), None,
             args=("--format", "text", *PINNED), safe_output=True, relative=True),
    BadInput("newline_in_arg_text", _write("nl.sh", NEWLINE_ARG), None,
             args=("--format", "text", *PINNED), safe_output=True),
    BadInput("newline_in_arg_github", _write("nl.sh", NEWLINE_ARG), None,
             args=("--format", "github", *PINNED), safe_output=True),
    BadInput("escapes_in_content_github", _write("esc.sh", ESC_TEXT), None,
             args=("--format", "github", *PINNED), safe_output=True),
    # ---- issue 18: severity and unread guides
    BadInput("malformed_yaml_fails", _committed("models/org/invalid_yaml.yaml"),
             r"malformed YAML", rc=1),
    BadInput("alias_bomb_fails", _committed("models/org/alias_bomb.yaml"), r"aliases", rc=1),
    BadInput("nul_bytes_fails", _write("models/org/nul.yaml", b"model:\n  a: b\x00c\n"),
             r"malformed YAML", rc=1),
    BadInput("utf16_markdown", _write("utf16.md", UTF16_GUIDE.encode("utf-16")), None,
             launches=1, any_code=r"no-such-flag"),
    BadInput("deep_blockquote_fence", _write("quote.md", DEEP_QUOTE_GUIDE), None, launches=1,
             any_code=r"no-such-flag"),
]

# ---------------------------------------------------------------- issue 33 makers


def _bomb(indent: str, keyed: bool) -> str:
    """A 9-level alias bomb (9**9 leaves) as a list, or as a mapping (``keyed``)."""
    lines, prev = [], ""
    for n in "abcdefghi":
        items = ",".join(f"*{prev}" for _ in range(9)) if prev else ",".join(['"lol"'] * 9)
        lines.append(f"{indent}{n + ': ' if keyed else '- '}&{n} [{items}]")
        prev = n
    return "\n".join(lines) + "\n"


BOMB_CONFIG = ("cat > cfg.yaml <<'EOF'\nkv:\n" + _bomb("  ", False) + "EOF\n"
               "vllm serve org/m --config cfg.yaml --no-such-flag 1\n")
BOMB_CONFIG_MAP = ("cat > cfg.yaml <<'EOF'\nkv:\n" + _bomb("  ", True) + "EOF\n"
                   "vllm serve org/m --config cfg.yaml --no-such-flag 1\n")
BOMB_TRTLLM = ("cat > extra.yaml <<'EOF'\n" + _bomb("", True) + "EOF\n"
               "trtllm-serve org/m --extra_llm_api_options extra.yaml\n")


def _sglang_config_bomb(root: Path) -> Path:
    (root / "cfg.yaml").write_text("kv:\n" + _bomb("  ", False), encoding="utf-8")
    dest = root / "sgl.sh"
    dest.write_text("#!/bin/bash\npython -m sglang.launch_server --model-path org/m "
                    f"--config {root / 'cfg.yaml'}\n", encoding="utf-8")
    return dest


def _master_non_utf8(root: Path) -> Path:
    """An InferenceX-shaped checkout whose master config holds one byte that is not UTF-8."""
    (root / "benchmarks" / "single_node").mkdir(parents=True)
    (root / "configs").mkdir()
    (root / "configs" / "runners.yaml").write_text("h100:\n- h100-node-0\n", encoding="utf-8")
    master = root / "configs" / "nvidia-master.yaml"
    master.write_bytes(b"dsr1-fp8-h100-vllm:\n  image: vllm/vllm-openai:v0.21.0\n"
                       b"  model: org/m\xff\n  runner: h100\n")
    return master


def _with_output(kind: str) -> Callable[[Path], Path]:
    """A launcher and, beside it, what ``-o {dir}/out`` names: a symlink, a FIFO."""
    def make(root: Path) -> Path:
        dest = root / "x.sh"
        dest.write_bytes(OUTPUT_INPUT)
        if kind == "symlink":
            (root / "other.txt").write_text("keep\n", encoding="utf-8")
            os.symlink("other.txt", root / "out")
        elif kind == "fifo":
            os.mkfifo(root / "out")
        return dest

    return make


def _locked_file(rel: str, data: bytes) -> Callable[[Path], Path]:
    def make(root: Path) -> Path:
        dest = _write(rel, data)(root)
        dest.chmod(0)
        return dest

    return make


def _guide(body: str) -> bytes:
    return f"# Guide\n\n```bash\n{body}```\n".encode()


OUTPUT_INPUT = b"#!/bin/bash\nvllm serve org/m --no-such-flag 1\n"
UNKNOWN_FLAGS = " ".join(f"--unknown-flag-{i} $1" for i in range(300))
NINE_RELEASES = ("#!/bin/bash\npip install fastokens\ncase $V in\n" + "".join(
    f"  {i}) pip install vllm==0.{10 + i}.0;;\n" for i in range(9)) +
    "esac\nvllm serve org/m --max-num-seqs 2\n").encode()

ISSUE33: list[BadInput] = [
    # 1. alias bombs in files a launch writes or reads
    BadInput("bomb_vllm_config_heredoc", _write("bomb.sh", ("#!/bin/bash\n" + BOMB_CONFIG)
                                                .encode()), r"aliases", launches=1),
    BadInput("bomb_vllm_config_mapping", _write("bombmap.sh", ("#!/bin/bash\n" +
                                                               BOMB_CONFIG_MAP).encode()),
             None, launches=1, any_code=r"aliases"),
    BadInput("bomb_guide_block", _write("bomb.md", _guide(BOMB_CONFIG)), r"aliases",
             launches=1),
    BadInput("bomb_trtllm_options_heredoc", _write("bombtrt.sh", ("#!/bin/bash\n" +
                                                                  BOMB_TRTLLM).encode()),
             None, launches=1, any_code=r"aliases"),
    BadInput("bomb_sglang_config_file", _sglang_config_bomb, None, launches=1,
             any_code=r"aliases"),
    # 3. quadratic scans
    BadInput("blank_lines_bash_80k", _write("blank.sh", b"#!/bin/bash\nA=1\n" + b"\n" * 80_000
                                            + b"vllm serve org/m --no-such-flag 1\n"),
             None, launches=1, any_code=r"no-such-flag"),
    BadInput("blank_lines_guide_block_80k", _write("blank.md", _guide(
        "A=1\n" + "\n" * 80_000 + "vllm serve org/m --no-such-flag 1\n")), None, launches=1,
             any_code=r"no-such-flag"),
    BadInput("unterminated_fence_50k", _write("unterminated.md", b"# G\n\n```bash\n"
                                              b"vllm serve org/m --no-such-flag 1\n" +
                                              b"``` x\n" * 50_000), None, launches=1),
    BadInput("guide_one_launch_x5000", _write("x5000.md", _guide(
        "vllm serve org/m --no-such-flag 1\n" * 5000)), None, any_code=r"no-such-flag"),
    BadInput("function_100_calls_300_flags", _write("calls.sh", (
        f"#!/bin/bash\nlaunch() {{\n  vllm serve org/m {UNKNOWN_FLAGS}\n}}\n" +
        "\n".join(f"launch v{i}" for i in range(100)) + "\n").encode()), None,
             any_code=r"unknown-flag-299"),
    # 6. exit 2 and silent passes
    BadInput("master_config_non_utf8", _master_non_utf8, r"utf-8|UTF-8", rc=1),
    BadInput("utf16_no_bom_guide", _write("utf16.md", UTF16_GUIDE.encode("utf-16-le")[2:]),
             r"UTF-16", rc=1),
    BadInput("utf16_no_bom_script", _write("utf16.sh", "#!/bin/bash\nvllm serve org/m\n"
                                           .encode("utf-16-le")), r"UTF-16", rc=1),
    BadInput("nul_in_script", _write("nul.sh", b"#!/bin/bash\nvllm serve org/m --x\x00y 1\n"),
             r"NUL", rc=1),
    BadInput("unreadable_script", _locked_file("locked.sh", b"#!/bin/bash\nvllm serve org/m\n"),
             r"cannot read", rc=1, unprivileged=True),
    # 7. output
    BadInput("output_is_the_input", _with_output(""), None, args=("-o", "{dir}/x.sh"), rc=2,
             stderr=r"one of the files to check"),
    BadInput("output_is_a_symlink", _with_output("symlink"), None, args=("-o", "{dir}/out"),
             rc=2, stderr=r"symlink"),
    BadInput("output_is_a_fifo", _with_output("fifo"), None, args=("-o", "{dir}/out"), rc=2,
             stderr=r"FIFO"),
    BadInput("output_disk_full", _with_output(""), None, args=("-o", "/dev/full"), rc=2,
             stderr=r"No space left"),
    # 8. arithmetic and repeated findings
    BadInput("arith_wraps_at_64_bits", _write("arith.sh", b"#!/bin/bash\nvllm serve org/m "
                                              b"--served-model-name m$(( (1<<62)*4 ))\n"),
             None, launches=1, argv_has="m0"),
    BadInput("runtime_install_nine_releases", _write("nine.sh", NINE_RELEASES), None,
             count=("SL161", 1)),
]

CASES += ISSUE33
ISSUE18 = CASES[CASES.index(next(c for c in CASES if c.name == "deep_tree_1100")):]


def build(root: Path, cases: list[BadInput] | None = None) -> list[BuiltInput]:
    """Create every case under ``root`` (each in a folder of its own)."""
    out = []
    for case in CASES if cases is None else cases:
        folder = root / case.name
        folder.mkdir(parents=True, exist_ok=True)
        out.append(BuiltInput(case, case.make(folder)))
    return out


# ---------------------------------------------------------------- running a case


def command(case, path: Path) -> list[str]:
    args = [a.replace("{dir}", str(path.parent)) for a in case.args]
    cache = [] if case.cache else ["--no-cache"]
    target = path.name if case.relative else str(path)
    return [sys.executable, "-m", "servelint.cli", "check", *cache, "-j1", "--format", "json",
            *args, target]


def plant_cache(case, path: Path, env: dict) -> Path:
    """Fill a fresh cache with one real run, then overwrite every entry with the case's
    payload: a pickle of another type, a pickle that creates a marker file, or a FIFO."""
    folder = path.parent / "cache"
    marker = path.parent / "PWNED"
    env["SERVELINT_CACHE_DIR"] = str(folder)
    subprocess.run(command(case, path), env=env, capture_output=True, stdin=subprocess.DEVNULL,
                   timeout=120, check=False)

    class Planted:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    payload = {"pickle-dict": pickle.dumps({"findings": []}),
               "pickle-code": pickle.dumps(Planted())}.get(case.cache)
    for entry in [p for p in folder.rglob("*") if p.is_file()]:
        if payload is None:
            entry.unlink()
            os.mkfifo(entry)
        else:
            entry.write_bytes(payload)
    return marker


def unsafe_output(case, stdout: bytes) -> str:
    """Why the output is unsafe ("" when safe): invalid UTF-8, a control character, or a
    line a value started (GitHub reads a line starting with ``::`` as a workflow command)."""
    try:
        text = stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 at byte {exc.start}"
    bad = re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
    if bad:
        return f"control character {bad.group()!r}"
    fmt = case.args[case.args.index("--format") + 1] if "--format" in case.args else "json"
    if fmt in ("json", "sarif"):
        try:
            json.loads(text)
        except ValueError:
            return "not JSON"
    for line in text.splitlines():
        if line.startswith("::") and (fmt != "github" or "pwned" in line.split("::")[1]):
            return f"injected line {line[:40]!r}"
    return ""




# root without the capabilities that bypass file permissions
DROP_ROOT = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def unprivileged(argv: list[str]) -> list[str]:
    """``argv`` run so that file permissions apply (as root: without the override caps)."""
    return [*DROP_ROOT, *argv] if os.getuid() == 0 else argv
