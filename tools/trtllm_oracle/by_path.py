"""The option-file cases judged end to end, each file given by path to a launcher script.

    python tools/trtllm_oracle/by_path.py tests/conformance_trtllm/1.3.0rc3.json.gz [--every N]

Every case whose argv the real parser accepts and that has an option file becomes a small
checkout in a temporary folder: the file under ``cfg/`` and a launcher that names it in one of
three ways, in turn: ``cd cfg`` then the bare name, the path relative to the launcher, the
absolute path. ``servelint.check.check_paths`` reads the launchers (the shell reader finds the
file on disk, as a user's run would) and judges them against the release; a case is rejected
when the run reports an error at the option file or the launcher. The verdicts are compared
with the real code's (``check_cases.py``): **false error** = the real code accepts, servelint
reports an error; **miss** = the real code refuses, servelint reports none.
"""

from __future__ import annotations

import gzip
import json
import shlex
import sys
import tempfile
from collections import Counter
from pathlib import Path

from compare import CELLS  # (this folder, as the README runs the tools)

from servelint.check import Options, check_paths
from servelint.model import Severity

FORMS = ("cd", "relative", "absolute")


def launcher(argv: list[str], name: str, root: Path, form: str) -> str:
    words = " ".join(shlex.quote(a) for a in ["trtllm-serve", *argv])
    if form == "cd":
        return f"cd cfg\n{words} --extra_llm_api_options {shlex.quote(name)}\n"
    path = f"cfg/{name}" if form == "relative" else str(root / "cfg" / name)
    return f"{words} --extra_llm_api_options {shlex.quote(path)}\n"


def judge(data: dict, every: int = 1) -> tuple[Counter, list[dict]]:
    """(table of cells, disagreements) over the file cases of a committed verdict file."""
    verdicts = data["verdicts"]
    cases = [
        (i, argv, text)
        for i, argv, text in data["cases"]
        if text is not None and verdicts[i][0] and verdicts[i][1] is not None
    ][::every]
    with tempfile.TemporaryDirectory(prefix="trtllm-by-path-") as tmp:
        root = Path(tmp).resolve()
        (root / ".git").mkdir()  # the checkout's root
        (root / "cfg").mkdir()
        scripts: dict[str, tuple[str, Path]] = {}
        for k, (cid, argv, text) in enumerate(cases):
            name = f"case-{k}.yaml"
            (root / "cfg" / name).write_text(text, encoding="utf-8")
            script = root / f"launch-{k}.sh"
            script.write_text(launcher(argv, name, root, FORMS[k % 3]), encoding="utf-8")
            scripts[str(script)] = (cid, root / "cfg" / name)
        report = check_paths(
            sorted(scripts), Options(engine=f"trtllm=={data['release']}", use_cache=False)
        )
        rejected: set[str] = set()
        by_file = {str(path): cid for cid, path in scripts.values()}
        for f in report.findings:
            if f.severity < Severity.ERROR:
                continue
            cid = by_file.get(f.span.path) or scripts.get(f.span.path, (None,))[0]
            if cid is not None:
                rejected.add(cid)
    table: Counter = Counter()
    odd = []
    for cid, _argv, text in cases:
        real, static = verdicts[cid][1], cid not in rejected
        cell = CELLS[(real, static)]
        table[cell] += 1
        if real != static:
            odd.append({"id": cid, "cell": cell, "option_file": text})
    return table, odd


def main() -> None:
    path = sys.argv[1]
    every = int(sys.argv[sys.argv.index("--every") + 1]) if "--every" in sys.argv else 1
    with gzip.open(path, "rt") as fh:
        data = json.load(fh)
    table, odd = judge(data, every)
    total = sum(table.values())
    agree = table["both accept"] + table["both reject"]
    print(f"trtllm {data['release']}: {total} option files given by path")
    for cell, n in sorted(table.items()):
        print(f"  {cell:12} {n}")
    print(f"  agreement {100 * agree / max(total, 1):.2f}%")
    for d in odd:
        print(json.dumps(d))


if __name__ == "__main__":
    main()
