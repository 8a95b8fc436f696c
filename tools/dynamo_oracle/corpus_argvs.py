"""The argvs servelint renders for the corpus's ``python3 -m dynamo.sglang`` launches
(sources/srt_slurm), as oracle cases:
``python tools/dynamo_oracle/corpus_argvs.py OUT.json [sglang|vllm]``.

srtctl fills some values in at run time (ports, the leader's address, the config-dump path):
servelint renders them as symbolic ``<name>`` placeholders; here each gets a concrete value of
the shape srtctl writes, so the real parser can be asked. Launches with any other symbolic
token are skipped.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from servelint.sources.srt_slurm import read_recipe

RECIPES = (
    Path(__file__).resolve().parents[2]
    / "../shared/corpus/inferencex/benchmarks/multi_node/srt-slurm-recipes"
).resolve()
RUNTIME_VALUES = {
    "http-port": "30000",
    "nccl-port": "29500",
    "bootstrap-port": "30001",
    "kv-events-port": "5557",
    "config-dump-path": "/tmp/config-dump.json",
    "leader-ip:dist-init-port": "10.0.0.1:29600",
    "leader-ip": "10.0.0.1",
    "dp-rpc-port": "29550",
    "device-ids": "0,1,2,3",
    "model-dir-name": "model",
}
_PLACEHOLDER = re.compile(r"<([\w:-]+)>")


def concrete(text: str) -> str | None:
    """The token with srtctl's runtime placeholders filled in; None if one is unknown."""
    names = _PLACEHOLDER.findall(text)
    if any(n not in RUNTIME_VALUES for n in names):
        return None
    return _PLACEHOLDER.sub(lambda m: RUNTIME_VALUES[m.group(1)], text)


def main() -> None:
    worker = sys.argv[2] if len(sys.argv) > 2 else "sglang"
    seen: dict[tuple[str, ...], str] = {}
    skipped = 0
    for path in sorted(RECIPES.rglob("*.y*ml")):
        for spec in read_recipe(str(path)).launches:
            if spec.entrypoint.split()[-1] != f"dynamo.{worker}":
                continue
            texts = [concrete(t.text) if t.symbolic else t.text for t in spec.argv]
            if None in texts:
                skipped += 1
                continue
            argv = tuple(texts)
            rel = path.relative_to(RECIPES)
            seen.setdefault(argv, f"corpus:{rel}:{spec.rendering}")
    cases = [[cid, list(argv)] for argv, cid in seen.items()]
    Path(sys.argv[1]).write_text(json.dumps(cases))
    print(f"{len(cases)} distinct argvs, {skipped} launches with symbolic tokens", file=sys.stderr)


if __name__ == "__main__":
    main()
