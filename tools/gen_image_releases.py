#!/usr/bin/env python3
"""Write the table of images whose tag names no engine release (``src/servelint/data/image_releases.json``).

    python tools/gen_image_releases.py \\
        --dynamo-doc support-matrix.md@COMMIT:docs/reference/support-matrix.md \\
        --dynamo-doc compatibility.mdx@COMMIT:docs/reference/compatibility.mdx \\
        --llm-d-git /path/to/llm-d/.git

Offline input, each read where it was fetched to:

* ``--dynamo-doc LOCAL@COMMIT:PATH``: a copy of an ai-dynamo/dynamo release-notes page with a
  "Backend Dependencies" table (``| **v0.8.1.post1** | `0.5.6.post2` | `1.2.0rc6.post1` |
  `0.12.0` | …``), taken at COMMIT from PATH. The NGC runtime images
  (``nvcr.io/nvidia/ai-dynamo/{vllm,sglang,tensorrtllm}-runtime``) are tagged with the Dynamo
  release; each row gives the engine release its image holds, with file:line. Rows that name
  no release (``main (ToT)``, "upstream DSv4 preview", "—") give none.
* ``--llm-d-git DIR``: a git directory of llm-d/llm-d. For each tag its ``Dockerfile`` (and
  ``docker/Dockerfile.cuda`` / ``docker/common-versions`` where present) is read for how
  vLLM is installed: a ``vllm==X`` pin gives X; a fork/commit checkout gives no release (the
  commit is recorded: the release it derives from is not known).

Nothing is executed but ``git tag`` / ``git show`` on the given directory.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "servelint" / "data" / "image_releases.json"

DYNAMO_COLUMNS = {"sglang": "SGLang", "trtllm": "TensorRT-LLM", "vllm": "vLLM"}
DYNAMO_REPOSITORIES = {
    "vllm": ["nvidia/ai-dynamo/vllm-runtime", "nvidia/ai-dynamo/vllm-runtime-cu13"],
    "sglang": ["nvidia/ai-dynamo/sglang-runtime", "nvidia/ai-dynamo/sglang-runtime-cu13"],
    "trtllm": ["nvidia/ai-dynamo/tensorrtllm-runtime"],
}
# llm-d's engine images (ghcr.io/llm-d/...), one per docker/Dockerfile.<accelerator>
LLM_D_REPOSITORIES = ["llm-d/llm-d", "llm-d/llm-d-cuda", "llm-d/llm-d-cpu", "llm-d/llm-d-rocm",
                      "llm-d/llm-d-xpu"]
LLM_D_FILES = ("Dockerfile", "docker/Dockerfile.cuda", "docker/common-versions")
_VERSION = re.compile(r"^v?(\d+\.\d+\.\d+(?:\.\d+)?(?:rc\d+)?(?:\.post\d+)?(?:-[a-z][\w.-]*)?)$")
_CELL_VERSION = re.compile(r"^`(\d+\.\d+\.\d+(?:\.\d+)?(?:rc\d+)?(?:\.post\d+)?)`$")


def dynamo_rows(text: str) -> list[tuple[int, str, dict[str, str | None]]]:
    """(line, Dynamo release, engine -> release or None) of each Backend Dependencies row."""
    out = []
    header: list[str] | None = None
    for no, line in enumerate(text.splitlines(), 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|"):
            header = None
            continue
        names = [c.strip("* ") for c in cells]
        if "Dynamo" in names and "vLLM" in names:
            header = names
            continue
        if header is None or cells[0].startswith(":"):
            continue
        label = re.match(r"\*\*v?([^*]+)\*\*", cells[0])
        version = _VERSION.match(label.group(1)) if label else None
        if version is None:
            continue  # "main (ToT)": a branch, not a release
        engines: dict[str, str | None] = {}
        for engine, column in DYNAMO_COLUMNS.items():
            cell = cells[header.index(column)] if column in header else ""
            found = _CELL_VERSION.match(cell)
            engines[engine] = found.group(1) if found else None
        out.append((no, version.group(1), engines))
    return out


def dynamo_families(docs: list[tuple[Path, str, str]]) -> list[dict]:
    tags: dict[str, dict[str, dict]] = {e: {} for e in DYNAMO_COLUMNS}
    for local, commit, path in docs:
        for no, dynamo, engines in dynamo_rows(local.read_text(encoding="utf-8")):
            for engine, release in engines.items():
                entry = {"release": release, "at": f"ai-dynamo/dynamo@{commit[:12]} {path}:{no}"}
                seen = tags[engine].get(dynamo)
                if seen is not None and seen["release"] != release:
                    entry = {"release": None, "at": f"{seen['at']}; {entry['at']}",
                             "note": "the release notes disagree"}
                tags[engine][dynamo] = entry
    return [
        {
            "name": f"dynamo-{engine}-runtime",
            "engine": engine,
            "repositories": DYNAMO_REPOSITORIES[engine],
            "tag_is": "the Dynamo release",
            "tags": dict(sorted(tags[engine].items())),
        }
        for engine in DYNAMO_COLUMNS
    ]


def _git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True,
                          text=True, check=False)
    return done.stdout if done.returncode == 0 else ""


_VLLM_PIN = re.compile(r"\bvllm(?:\[[^\]]*\])?==(\d+\.\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)\b")
_VLLM_COMMIT = re.compile(r"\bVLLM_COMMIT(?:_SHA)?=([0-9a-f]{7,40})\b")
_VLLM_CLONE = re.compile(r"git clone\b.*?(?:-b\s+(\S+)\s+)?https://github\.com/([\w.-]+/vllm)(?:\.git)?")


def llm_d_tag(git_dir: Path, tag: str) -> dict:
    commit = _git(git_dir, "rev-list", "-n", "1", tag).strip()
    where = f"llm-d/llm-d@{commit[:12]}"
    for path in LLM_D_FILES:
        text = _git(git_dir, "show", f"{tag}:{path}")
        for no, line in enumerate(text.splitlines(), 1):
            pin = _VLLM_PIN.search(line)
            if pin:
                return {"release": pin.group(1), "at": f"{where} {path}:{no}"}
        built = _built_from(text)
        if built:
            no, source = built
            return {"release": None, "at": f"{where} {path}:{no}",
                    "note": f"vLLM built from {source}: the release it derives from is not known"}
    return {"release": None, "at": where, "note": "no vLLM install found in its build files"}


def _built_from(text: str) -> tuple[int, str] | None:
    """(line, "fork@commit (branch b)") of a vLLM source checkout in a Dockerfile."""
    commit = fork = branch = None
    line = 0
    for no, raw in enumerate(text.splitlines(), 1):
        m = _VLLM_COMMIT.search(raw)
        if m and commit is None:
            commit, line = m.group(1), no
        m = _VLLM_CLONE.search(raw)
        if m and fork is None:
            branch, fork = m.group(1), m.group(2)
            line = line or no
    if fork is None and commit is None:
        return None
    source = f"{fork or 'a vLLM checkout'}@{commit[:12] if commit else 'HEAD'}"
    return line, source + (f" (branch {branch})" if branch else "")


def llm_d_family(git_dir: Path) -> dict:
    tags = {}
    for tag in _git(git_dir, "tag").split():
        version = _VERSION.match(tag)
        if version:
            tags[version.group(1)] = llm_d_tag(git_dir, tag)
    return {
        "name": "llm-d",
        "engine": "vllm",
        "repositories": LLM_D_REPOSITORIES,
        "tag_is": "the llm-d release",
        "forks": True,  # vLLM from a fork's or an unreleased commit (findings never errors)
        "unknown_tags": ("llm-d images install vLLM from a commit pinned in their build files "
                         "(docker/common-versions); the tag does not name a vLLM release"),
        "tags": dict(sorted(tags.items())),
    }


def _doc_arg(text: str) -> tuple[Path, str, str]:
    local, _, rest = text.partition("@")
    commit, _, path = rest.partition(":")
    if not (local and commit and path):
        raise argparse.ArgumentTypeError("expected LOCAL@COMMIT:PATH")
    return Path(local), commit, path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dynamo-doc", type=_doc_arg, action="append", default=[])
    ap.add_argument("--llm-d-git", type=Path)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    families = dynamo_families(args.dynamo_doc) if args.dynamo_doc else []
    if args.llm_d_git:
        families.append(llm_d_family(args.llm_d_git))
    table = {
        "format": 1,
        "generated_by": "tools/gen_image_releases.py",
        "families": families,
    }
    args.out.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"{sum(len(f['tags']) for f in families)} tags in {len(families)} families -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
