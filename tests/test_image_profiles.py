"""Profiles built from what an image holds (issue 31): an unpacked root, a `docker save`
archive and an OCI layout, stored for an image reference and used by `check` for that image.

The tree under tests/data/image_tree is a stand-in for sglang 0.5.9's installed package
(three options) beside an installed `fastokens` 0.2.1: a launch judged against the stored
profile knows only those three options, so a flag of the shipped 0.5.9 profile is an error
there — which shows the stored profile, not the shipped one, was used."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from servelint.cli import main
from servelint.profiles import store
from servelint.releases import image_contents

TREE = Path(__file__).parent / "data" / "image_tree" / "dist-packages"
SITE = "usr/local/lib/python3.12/dist-packages"
REF = "registry.example.com/team/sglang:prod"
LAUNCH = "#!/bin/bash\npython3 -m sglang.launch_server --model-path m --tp-size 2 --log-level info\n"


@pytest.fixture
def store_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "store"
    monkeypatch.setenv("SERVELINT_PROFILES", str(folder))
    return folder


@pytest.fixture
def launcher(tmp_path) -> str:
    path = tmp_path / "launch.sh"
    path.write_text(LAUNCH, encoding="utf-8")
    return str(path)


def make_root(base: Path) -> Path:
    root = base / "root"
    shutil.copytree(TREE, root / SITE)
    (root / "proc").mkdir()  # never walked
    return root


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def check_lines(capsys, launcher: str, image: str) -> tuple[int, list[str]]:
    code, out, _ = run(capsys, "check", "--no-cache", launcher, "--image", image)
    return code, out.splitlines()


def test_root_profile_is_stored_listed_and_used(tmp_path, store_dir, launcher, capsys):
    code, out, err = run(capsys, "profile", "build", "sglang", "--root",
                         str(make_root(tmp_path)), "--as", REF)
    assert (code, err) == (0, "")
    assert out.startswith(f"sglang 0.5.9 for {REF}: {store_dir}/sglang/")
    assert out.rstrip().endswith("(2 installed distributions read)")

    code, out, _ = run(capsys, "profile", "list", "sglang")
    listed = [line for line in out.splitlines() if line.startswith("  " + REF)]
    assert len(listed) == 1
    assert listed[0].startswith(f"  {REF}: sglang 0.5.9, built ")
    assert listed[0].endswith(f"from root {(tmp_path / 'root').resolve()}")

    code, lines = check_lines(capsys, launcher, REF)
    assert code == 1
    text = " ".join(" ".join(lines).split())  # (long paths wrap the header)
    assert f"── {launcher} · judged against sglang 0.5.9 " in text
    assert (
        f"{launcher}:2:60: error[SL101 flag-unknown] flag \"--log-level\" does not exist in "
        f"sglang 0.5.9 (image {REF})"
    ) in text
    assert not any('"--tp-size"' in line for line in lines)


def test_other_tags_are_not_judged_by_the_stored_profile(tmp_path, store_dir, launcher, capsys):
    assert main(["profile", "build", "sglang", "--root", str(make_root(tmp_path)),
                 "--as", REF]) == 0
    code, lines = check_lines(capsys, launcher, "registry.example.com/team/sglang:other")
    assert code == 0  # the shipped newest profile knows --log-level; the tag is a guess
    assert not any("(image " in line for line in lines)


def test_config_maps_a_tag_to_a_stored_image(tmp_path, store_dir, launcher, capsys):
    assert main(["profile", "build", "sglang", "--root", str(make_root(tmp_path)),
                 "--as", REF]) == 0
    config = tmp_path / ".servelint.toml"
    config.write_text(f'[images]\n"registry.example.com/team/*" = "{REF}"\n')
    code, out, _ = run(capsys, "check", "--no-cache", "--config", str(config), launcher,
                       "--image", "registry.example.com/team/sglang:canary")
    assert code == 1
    assert '"--log-level" does not exist in' in out


def test_profile_of_another_builder_is_reported_not_used(tmp_path, store_dir, launcher, capsys):
    assert main(["profile", "build", "sglang", "--root", str(make_root(tmp_path)),
                 "--as", REF]) == 0
    index = store_dir / "index.json"
    items = json.loads(index.read_text())
    items[0]["builder_digest"] = "0" * 64
    index.write_text(json.dumps(items))
    code, out, _ = run(capsys, "check", "--no-cache", "--show-info", launcher, "--image", REF)
    assert "built by another servelint builder and is not used: rebuild it with servelint " \
           f"profile build sglang --root {(tmp_path / 'root').resolve()} --as {REF}" in " ".join(
               out.split())
    code, out, _ = run(capsys, "profile", "list", "sglang")
    assert "built by another builder: rebuild it (not used)" in out


# ---- archives ----------------------------------------------------------------------------


def _tar_bytes(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for info, data in members:
            info.size = len(data) if data is not None else 0
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def _tree_layer() -> bytes:
    members = [
        _file(f"{SITE}/{p.relative_to(TREE).as_posix()}", p.read_bytes())
        for p in sorted(TREE.rglob("*")) if p.is_file()
    ]
    return _tar_bytes(members)


def _upper_layer() -> bytes:
    """Removes fastokens (a whiteout), and tries to escape the root and plant links."""
    link = tarfile.TarInfo(f"{SITE}/sglang/srt/evil.py")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    return _tar_bytes([
        (tarfile.TarInfo(f"{SITE}/.wh.fastokens-0.2.1.dist-info"), b""),
        _file("../../outside.txt", b"x"),
        _file("/etc/servelint-abs.txt", b"x"),
        (link, None),
    ])


CONFIG = {"config": {"Entrypoint": ["python3", "-m", "sglang.launch_server"],
                     "Cmd": ["--help"], "Env": ["PATH=/usr/bin", "SGLANG_X=1"]}}


def docker_save(path: Path) -> Path:
    config = json.dumps(CONFIG).encode()
    manifest = [{"Config": "config.json", "RepoTags": [REF], "Layers": ["l1/layer.tar",
                                                                       "l2/layer.tar"]}]
    path.write_bytes(_tar_bytes([
        _file("manifest.json", json.dumps(manifest).encode()),
        _file("config.json", config),
        _file("l1/layer.tar", _tree_layer()),
        _file("l2/layer.tar", _upper_layer()),
    ]))
    return path


def oci_layout(path: Path) -> Path:
    def blob(data: bytes) -> tuple[str, tuple[tarfile.TarInfo, bytes]]:
        digest = hashlib.sha256(data).hexdigest()
        return f"sha256:{digest}", _file(f"blobs/sha256/{digest}", data)

    layers = [blob(gzip.compress(_tree_layer())), blob(gzip.compress(_upper_layer()))]
    config = blob(json.dumps(CONFIG).encode())
    manifest = blob(json.dumps({
        "config": {"digest": config[0]}, "layers": [{"digest": d} for d, _ in layers]
    }).encode())
    index = {"manifests": [{"digest": manifest[0],
                            "annotations": {"org.opencontainers.image.ref.name": "prod"}}]}
    path.write_bytes(_tar_bytes([
        _file("oci-layout", b'{"imageLayoutVersion": "1.0.0"}'),
        _file("index.json", json.dumps(index).encode()),
        config[1], manifest[1], *(m for _, m in layers),
    ]))
    return path


@pytest.mark.parametrize("make", [docker_save, oci_layout])
def test_archive_profile_honours_whiteouts_and_reads_config(
    tmp_path, store_dir, launcher, capsys, make
):
    archive = make(tmp_path / "image.tar")
    code, out, err = run(capsys, "profile", "build", "sglang", "--image-archive",
                         str(archive), "--as", REF)
    assert (code, err) == (0, "")
    assert out.rstrip().endswith("(1 installed distributions read)")  # fastokens whited out
    assert not (tmp_path.parent / "outside.txt").exists()

    stored = json.loads(gzip.decompress(next((store_dir / "sglang").glob("*.json.gz"))
                                        .read_bytes()))
    assert stored["image"]["config"]["entrypoint"] == ["python3", "-m", "sglang.launch_server"]
    assert stored["image"]["config"]["env"] == {"PATH": "/usr/bin", "SGLANG_X": "1"}
    assert set(stored["image"]["installed"]) == {"sglang"}
    assert stored["stored"]["kind"] == "image-archive"
    assert stored["stored"]["digest"].startswith("sha256:")

    code, lines = check_lines(capsys, launcher, REF)
    assert code == 1
    assert any('"--log-level" does not exist in sglang 0.5.9' in line for line in lines)


def test_the_image_id_finds_the_stored_profile(tmp_path, store_dir, launcher, capsys):
    archive = docker_save(tmp_path / "image.tar")
    assert main(["profile", "build", "sglang", "--image-archive", str(archive), "--as", REF]) == 0
    image_id = store.entries()[0].image_id
    code, lines = check_lines(capsys, launcher, f"registry.example.com/team/sglang@{image_id}")
    assert code == 1


def test_bad_archive_and_missing_tool_are_one_line(tmp_path, store_dir, capsys, monkeypatch):
    bad = tmp_path / "bad.tar"
    bad.write_bytes(b"not a tar")
    code, out, err = run(capsys, "profile", "build", "sglang", "--image-archive", str(bad),
                         "--as", REF)
    assert code == 1 and err.startswith("servelint: sglang from ") and "cannot open" in err
    monkeypatch.setenv("PATH", str(tmp_path))
    code, out, err = run(capsys, "profile", "build", "sglang", "--image", REF)
    assert code == 1 and "--image needs docker or podman on PATH" in err
    code, out, err = run(capsys, "profile", "build", "sglang", "--root", str(tmp_path),
                         "--as", REF)
    assert code == 1 and "no installed sglang distribution" in err


# ---- what the image holds, for package-missing -------------------------------------------


def test_installed_distributions_are_facts():
    image = {"installed": {"fastokens": {"name": "fastokens", "version": "0.2.1",
                                         "at": f"{SITE}/fastokens-0.2.1.dist-info/METADATA"}},
             "installed_in": REF}
    got = image_contents.lookup(image, "cuda", "FasTokens")
    assert got.known and got.entry == {"specifier": "==0.2.1",
                                       "at": f"{SITE}/fastokens-0.2.1.dist-info/METADATA"}
    assert got.basis == f"fastokens 0.2.1 installed ({SITE}/fastokens-0.2.1.dist-info/METADATA)"
    missing = image_contents.lookup(image, "cuda", "datasets")
    assert missing.known and missing.entry is None
    assert missing.basis == f"the distributions installed in {REF}"


def test_references_normalise_as_docker_reads_them():
    assert store.normalize("sglang:x") == "docker.io/library/sglang:x"
    assert store.normalize("Me/Img") == "docker.io/me/img:latest"
    assert store.normalize("localhost:5000/a") == "localhost:5000/a:latest"
    assert store.normalize("r.io/a/b@sha256:AB") == "r.io/a/b@sha256:ab"


@pytest.mark.parametrize(("installed", "errors"), [({}, 1), ({"fastokens": "0.2.1"}, 0)])
def test_package_missing_reads_what_the_image_installed(
    tmp_path, store_dir, capsys, installed, errors
):
    """The seed incident on an image whose packages were read: vLLM 0.27.1's shipped profile
    stored as if built from a root (the same facts: `same_as_shipped` showed it on the real
    wheel), with the installed distributions the tree has."""
    from servelint import profiles

    data = json.loads(json.dumps(profiles.load("vllm", "0.27.1").data))
    data["image"].pop("build", None)
    data["image"]["installed"] = {
        name: {"name": name, "version": v, "at": f"{SITE}/{name}-{v}.dist-info/METADATA"}
        for name, v in {"vllm": "0.27.1", **installed}.items()
    }
    data["stored"] = {"kind": "root", "path": "/r", "built": "now",
                      "builder_digest": store.builder_digest("vllm")}
    ref = "registry.example.com/team/vllm:custom"
    store.write(data, ref)
    script = tmp_path / "fast.sh"
    script.write_text("#!/bin/bash\nexport VLLM_USE_FASTOKENS=1\nvllm serve Qwen/Qwen3-8B\n")
    code, out, _ = run(capsys, "check", "--no-cache", str(script), "--image", ref)
    text = " ".join(out.split())
    assert code == errors
    if errors:
        assert f"{script}:2:8: error[SL131 package-missing] VLLM_USE_FASTOKENS=1 makes vllm " \
               f"0.27.1 (image {ref}) import \"fastokens>=0.2.0\", which image {ref} does not " \
               "contain" in text
        assert f"(the distributions installed in {ref})" in text
    else:
        assert "SL131" not in text


def test_a_filesystem_tarball_is_one_layer(tmp_path, store_dir, launcher, capsys):
    """`docker export` output (or a tarred venv): no manifest, the tar is the filesystem."""
    flat = tmp_path / "export.tar"
    flat.write_bytes(_tree_layer())
    code, out, err = run(capsys, "profile", "build", "sglang", "--image-archive", str(flat),
                         "--as", REF)
    assert (code, err) == (0, "")
    assert out.rstrip().endswith("(2 installed distributions read)")
    assert check_lines(capsys, launcher, REF)[0] == 1


def test_trtllm_is_built_from_its_installed_package(tmp_path, store_dir, capsys):
    """TensorRT-LLM's builder reads the installed tensorrt_llm/ folder as a source tree (the
    synthetic tree of the builder tests, version 9.9.0rc1)."""
    site = tmp_path / "root" / SITE
    shutil.copytree(Path(__file__).parent / "data" / "trtllm_tree" / "tensorrt_llm",
                    site / "tensorrt_llm")
    (site / "tensorrt_llm-9.9.0rc1.dist-info").mkdir()
    (site / "tensorrt_llm-9.9.0rc1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tensorrt-llm\nVersion: 9.9.0rc1\n\n")
    ref = "nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc22"
    code, out, err = run(capsys, "profile", "build", "trtllm", "--root",
                         str(tmp_path / "root"), "--as", ref)
    assert (code, err) == (0, "")
    assert out.startswith(f"trtllm 9.9.0rc1 for {ref}: ")
    script = tmp_path / "trt.sh"
    script.write_text("#!/bin/bash\ntrtllm-serve m --bogus_flag 1\n")
    code, lines = check_lines(capsys, str(script), ref)
    assert code == 1  # exact: an error, not the capped warning of the nearest profiled release
    assert f"{script}:2:16: error[SL101 flag-unknown] unknown flag \"--bogus_flag\" for trtllm " \
           f"9.9.0rc1 (image {ref})" in " ".join(" ".join(lines).split())


def test_docker_run_follows_the_entrypoint_of_the_image_config(tmp_path, store_dir, capsys):
    """The archive's config says the image runs `python3 -m sglang.launch_server`: a
    `docker run IMAGE --flags` is that launch, judged against the stored profile."""
    archive = docker_save(tmp_path / "image.tar")
    assert main(["profile", "build", "sglang", "--image-archive", str(archive), "--as", REF]) == 0
    script = tmp_path / "run.sh"
    script.write_text(f"#!/bin/bash\ndocker run --gpus all {REF} --model-path m --log-level info\n")
    code, lines = check_lines(capsys, str(script), REF)
    text = " ".join(" ".join(lines).split())
    assert code == 1
    assert f'flag "--log-level" does not exist in sglang 0.5.9 (image {REF})' in text
