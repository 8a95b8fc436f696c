"""Install, one at a time, only what importing SGLang's server-args parser needs.

    python3 resolve_deps.py VENV WHEEL

Loop: run `probe.py` in the venv; on `No module named 'X'` install the distribution
for X (version constrained by the wheel's Requires-Dist, `--no-deps`). GPU-only
modules (triton, sgl_kernel, flashinfer, ...) are never installed: they get an
import stub instead (stub_modules.py, names in VENV/oracle-stubs.txt), recorded in the log.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from email.parser import HeaderParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIST_OF = {"yaml": "PyYAML", "zmq": "pyzmq", "PIL": "pillow", "google": "protobuf",
           "sklearn": "scikit-learn", "cv2": "opencv-python-headless", "dateutil": "python-dateutil",
           "jwt": "PyJWT", "multipart": "python-multipart", "attr": "attrs", "msgspec": "msgspec",
           "pybase64": "pybase64", "orjson": "orjson", "setproctitle": "setproctitle",
           "huggingface_hub": "huggingface-hub", "partial_json_parser": "partial-json-parser",
           "openai_harmony": "openai-harmony", "compressed_tensors": "compressed-tensors",
           "sentencepiece": "sentencepiece", "blobfile": "blobfile", "grpc": "grpcio",
           "torchao": "torchao", "tvm_ffi": "apache-tvm-ffi", "llguidance": "llguidance", "xgrammar": "xgrammar"}
STUB = {"triton", "sgl_kernel", "flashinfer", "deep_gemm", "cuda", "tilelang", "cutlass",
        "flash_attn", "vllm", "decord", "torch_memory_saver", "nvidia", "pynvml", "cuda_python",
        "quack", "flash_mla", "mooncake", "nixl", "aiter", "deep_ep", "kt_kernel", "sglang_kernel",
        "xgrammar", "llguidance", "outlines", "torchvision", "torchaudio"}


def requires(wheel: str) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        msg = HeaderParser().parsestr(zf.read(meta).decode())
    out = {}
    for req in msg.get_all("Requires-Dist") or []:
        if "extra ==" in req:
            continue
        name = re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0].lower().replace("_", "-")
        out[name] = req.split(";")[0].strip()
    return out


def main() -> None:
    venv, wheel = sys.argv[1], sys.argv[2]
    py = f"{venv}/bin/python"
    reqs = requires(wheel)
    log: list[dict] = []
    for _ in range(60):
        run = subprocess.run([py, str(HERE / "probe.py")], capture_output=True, text=True)
        if run.returncode == 0:
            break
        pin = re.search(r"ImportError: (\S+) is required for a normal functioning", run.stderr)
        if pin:  # transformers checks its own pins at import (newest hub/tokenizers too new)
            print("install", pin.group(1), flush=True)
            subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", pin.group(1)], check=True)
            log.append({"module": pin.group(1), "action": "install-pin", "spec": pin.group(1)})
            continue
        m = re.search(r"No module named '([\w.]+)'", run.stderr)
        if not m:
            print(run.stderr[-3000:])
            raise SystemExit("probe failed for a reason other than a missing module")
        top = m.group(1).split(".")[0]
        if top in STUB:
            stubbed = Path(venv, "oracle-stubs.txt")
            names = set(stubbed.read_text().split()) if stubbed.exists() else set()
            if top in names:
                print(run.stderr[-3000:])
                raise SystemExit(f"stubbed module {top} still missing")
            stubbed.write_text("\n".join(sorted(names | {top})) + "\n")
            log.append({"module": top, "action": "stub"})
            continue
        dist = DIST_OF.get(top, top).lower().replace("_", "-")
        spec = reqs.get(dist, dist)
        print("install", spec, flush=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", spec], check=True)
        log.append({"module": top, "action": "install", "spec": spec})
    Path(venv, "oracle-resolve.json").write_text(json.dumps(log, indent=1))
    print(json.dumps(log))


if __name__ == "__main__":
    main()
