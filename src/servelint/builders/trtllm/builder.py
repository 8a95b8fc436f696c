"""Build a TensorRT-LLM release profile from a source tree or a wheel (read, never imported).

``servelint profile build trtllm VERSION --source-dir DIR [--origin-repo R --origin-commit C]``
or ``--wheel FILE``. The profile holds the ``trtllm-serve`` commands (``build_cli``), the LLM
API model of the option files (``build_llm_args``), the environment reads (``build_env``) and
the provenance: where the tree came from, its file count, a digest over every file and the
sha256 of each file the builder read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from servelint.builders.trtllm import build_cli, build_env, build_llm_args
from servelint.builders.trtllm.source import TreeSource, WheelTree, provenance
from servelint.engines.trtllm import IMAGE_REPOSITORIES, NAME

# 2: field_validator bounds; 3: C++ env names, partial env; 4: config classes' supports_backend,
# validate_speculative_config's asserts per decoding class, Field(...) required
BUILDER_VERSION = "trtllm-4"
_LLM_FILE = "tensorrt_llm/llmapi/llm.py"


def _action(param: dict[str, Any]) -> dict[str, Any]:
    """A click option in the profile's parser-action shape (shared with the other engines)."""
    act = {k: v for k, v in param.items() if k != "line"}
    act.setdefault("kind", "store")
    act["source"] = f"{build_cli.SERVE_FILE}:{param['line']}"
    return act


def _evidence_lines(src: Any) -> dict[str, str]:
    """file:line of the checks that refuse option-file keys (for findings' evidence)."""
    out: dict[str, str] = {}
    wanted = {
        "invalid_key": re.compile(r"got invalid argument"),
        "backend_specific": re.compile(r"specific to TensorRT backend"),
    }
    if src.exists(_LLM_FILE):
        for no, line in enumerate(src.read(_LLM_FILE).splitlines(), 1):
            for key, pat in wanted.items():
                if key not in out and pat.search(line):
                    out[key] = f"{_LLM_FILE}:{no}"
    serve = src.read(build_cli.SERVE_FILE).splitlines()
    for no, line in enumerate(serve, 1):
        if "yaml.safe_load" in line:
            out.setdefault("loader", f"{build_cli.SERVE_FILE}:{no}")
    return out


def build_profile(src: TreeSource, origin: dict[str, str]) -> dict[str, Any]:
    version = src.version
    cli = build_cli.extract(src)
    serve = cli["commands"].get("serve", {"params": []})
    actions = [_action(p) for p in serve["params"] if not p.get("positional")]
    positionals = [p["dest"] for p in serve["params"] if p.get("positional")]
    llm = build_llm_args.extract(src)
    llm["evidence"] = _evidence_lines(src)
    read = dict(src.read_hashes)  # the env scan reads every module: covered by the digest
    env = build_env.extract(src)
    prov = provenance(src, origin, read)
    prov["env_scan"] = {"python_files": len(src.glob("tensorrt_llm/*.py"))}
    if "native" in env:
        prov["env_scan"]["native_files"] = env["native"]["files"]
        prov["env_scan"]["native_sha256"] = env["native"]["sha256"]
    return {
        "format": 1,
        "engine": NAME,
        "version": version,
        "builder_version": BUILDER_VERSION,
        "wheel": {
            "filename": Path(str(origin.get("path", src.root))).name or "source tree",
            "sha256": prov["tree_sha256"],
        },
        "provenance": prov,
        "parser": {
            "actions": actions,
            "allow_abbrev": False,
            "positionals": positionals,
            "rules": {"exact_names": True, "click": True, "config_option": "extra_llm_api_options"},
        },
        "cli": cli,
        "llm_api": llm,
        "env": {
            "registry": {},
            "read_unregistered": sorted(set(env["reads"]) | set(env["mentioned"])),
            "reads": env["reads"],
            "prefixes": env["prefixes"],
            **({"native": env["native"]["names"]} if "native" in env else {}),
            **({"partial": env["partial"]} if "partial" in env else {}),
        },
        "image": {"repository": IMAGE_REPOSITORIES[0]},
    }


def profile_from_folder(folder: Path, origin: dict[str, str]) -> dict[str, Any]:
    """The profile of the ``tensorrt_llm`` package installed in a site-packages ``folder``
    (an image's; ``servelint profile build trtllm --root|--image-archive``)."""
    return build_profile(TreeSource(folder), origin)


def build(
    version: str,
    *,
    source_dir: Path | None = None,
    wheel: Path | None = None,
    origin: dict[str, str] | None = None,
    out_root: Path | None = None,
) -> Path:
    """Build and write the profile; the tree's version must be ``version``."""
    from servelint import profiles

    if (source_dir is None) == (wheel is None):
        raise ValueError("give exactly one of --source-dir and --wheel")
    src = TreeSource(source_dir) if source_dir is not None else WheelTree(wheel)  # type: ignore[arg-type]
    if src.version != version:
        raise ValueError(
            f"the tree is {src.version}, not {version} ({src.root}/tensorrt_llm/version.py)"
        )
    data = build_profile(src, {"path": str(source_dir or wheel), **(origin or {})})
    # machine paths stay out of committed profiles
    data["provenance"].pop("path", None)
    data["wheel"]["filename"] = Path(str(wheel)).name if wheel else "source tree"
    return profiles.write(data, NAME, version, out_root)
