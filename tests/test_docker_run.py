"""docker run grammar and the image entrypoint shape."""

import shlex

import pytest

from servelint.launches.containers import container_command as image_command
from servelint.model import Span, Token
from servelint.sources.docker_run.parse import parse_docker_run
from servelint.sources.markdown.reader import read_markdown


def toks(command: str) -> list[Token]:
    out, col = [], 1
    for word in shlex.split(command):
        out.append(Token(word, Span("x", 1, col, 1, col + len(word))))
        col += len(word) + 1
    return out


def container_command(r):
    entry = [r.entrypoint] if r.entrypoint is not None else None
    return image_command(r.image, entry, r.args, "docker run")


def run(command: str):
    parsed = parse_docker_run(toks(command))
    assert parsed is not None
    return parsed


def test_value_options_flags_and_combined_short_options():
    r = run("docker run -itd --rm --gpus all --ipc=host -p 8000:8000 -v /a:/b --name x "
            "--shm-size 16g --privileged --security-opt seccomp=unconfined --ulimit memlock=-1 "
            "-w /work --network host --device /dev/kfd -u 0 --cap-add SYS_PTRACE "
            "vllm/vllm-openai:v0.27.1 org/m --max-model-len 4096")
    assert r.image.text == "vllm/vllm-openai:v0.27.1"
    assert [t.text for t in r.args] == ["org/m", "--max-model-len", "4096"]
    names = [o.name for o in r.options]
    assert names[:4] == ["-i", "-t", "-d", "--rm"]
    assert r.option("--ipc").value.text == "host" and r.option("-u").value.text == "0"


def test_env_forms_and_spans():
    r = run("docker run -e A=1 --env B=2 --env=C=3 -eD=4 -e HF_TOKEN img:1 serve")
    assert [(e.name, e.value, e.symbolic) for e in r.env] == [
        ("A", "1", False), ("B", "2", False), ("C", "3", False), ("D", "4", False),
        ("HF_TOKEN", "$HF_TOKEN", True)]
    assert r.env[2].span.column == len("docker run -e A=1 --env B=2 --env=") + 1
    assert r.env[3].span.column == len("docker run -e A=1 --env B=2 --env=C=3 -e") + 1


def test_not_docker_run():
    assert parse_docker_run(toks("docker pull vllm/vllm-openai:v0.27.1")) is None
    assert parse_docker_run(toks("vllm serve m")) is None
    assert run("docker container run img").image.text == "img"
    assert run("podman run --rm img:2 a").args[0].text == "a"


def test_serve_image_takes_model_and_flags():
    cmd = container_command(run("docker run vllm/vllm-openai:v0.27.1 org/m --seed 1"))
    assert [t.text for t in cmd.words] == ["vllm", "serve", "org/m", "--seed", "1"]
    assert not cmd.shape_error and not cmd.assumed


@pytest.mark.parametrize("args", ["vllm serve org/m --seed 1",
                                  "python3 -m vllm.entrypoints.openai.api_server --model org/m"])
def test_entrypoint_shape_mistake(args):
    cmd = container_command(run(f"docker run --gpus all vllm/vllm-openai:v0.27.1 {args}"))
    assert "already runs `vllm serve`" in cmd.shape_error
    assert cmd.words[:2][0].text == "vllm" and cmd.words[2].text in ("org/m", "--model")
    assert cmd.shape_span.column == len("docker run --gpus all vllm/vllm-openai:v0.27.1 ") + 1


def test_entrypoint_override():
    cmd = container_command(run("docker run --entrypoint vllm vllm/vllm-openai:v0.27.1 serve m"))
    assert [t.text for t in cmd.words] == ["vllm", "serve", "m"] and not cmd.shape_error


def test_other_vllm_images_are_assumed_and_other_images_run_their_args():
    # 0.22.1's docker/Dockerfile.rocm sets ENTRYPOINT ["vllm", "serve"] (read, not assumed);
    # up to 0.13.0 the ROCm base image, built elsewhere, decides: assumed, saying so
    read = container_command(run("docker run vllm/vllm-openai-rocm:v0.22.1 --model m"))
    assert [t.text for t in read.words][:2] == ["vllm", "serve"] and not read.assumed
    rocm = container_command(run("docker run vllm/vllm-openai-rocm:v0.12.0 --model m"))
    assert [t.text for t in rocm.words][:2] == ["vllm", "serve"] and "rocm" in rocm.assumed
    assert container_command(run("docker run -it vllm/vllm-openai-rocm:v0.12.0")) is None
    sgl = container_command(run("docker run lmsysorg/sglang:v0.5.9 python3 -m "
                                "sglang.launch_server --model-path m"))
    assert [t.text for t in sgl.words][:3] == ["python3", "-m", "sglang.launch_server"]


def test_markdown_docker_shape_problem_and_bash_c_entrypoint(tmp_path):
    md = tmp_path / "d.md"
    md.write_text(
        "```bash\n"
        "docker run vllm/vllm-openai:v0.27.1 vllm serve org/m --seed 1\n"
        "```\n\n"
        "```bash\n"
        "docker run --entrypoint bash -e X=1 vllm/vllm-openai:v0.21.0 "
        "-c 'vllm serve org/n --dtype half'\n"
        "```\n")
    result = read_markdown(str(md))
    (problem,) = result.problems
    assert problem.kind == "entrypoint-shape" and (problem.span.line, problem.span.column) == (2, 37)
    first, second = result.launches
    assert [t.text for t in first.argv] == ["org/m", "--seed", "1"]
    assert second.image == "vllm/vllm-openai:v0.21.0"
    assert [t.text for t in second.argv] == ["org/n", "--dtype", "half"]
    assert [(e.name, e.value) for e in second.env] == [("X", "1")]
    assert second.context["docker_entrypoint"] == "bash"


def test_entrypoint_shape_reaches_the_report():
    from servelint.check import check_text

    text = "```bash\ndocker run vllm/vllm-openai:v0.27.1 vllm serve org/m\n```\n"
    report = check_text(text, "markdown")
    (shape,) = [f for f in report.findings if "already runs `vllm serve`" in f.message]
    assert (shape.span.line, shape.span.column) == (2, 37)


def test_an_image_named_by_a_variable_with_a_default_runs_the_defaults_entrypoint():
    # `${VLLM_IMAGE:-vllm/vllm-openai:v0.26.0}` (shell and Compose): the default's entrypoint,
    # said as assumed; a variable with no default, or a default naming no engine, is not
    image = Token("${VLLM_IMAGE:-vllm/vllm-openai:v0.26.0}", Span("x", 1, 1), True)
    cmd = image_command(image, None, toks("--model m"), "docker run")
    assert [t.text for t in cmd.words] == ["vllm", "serve", "--model", "m"]
    assert "when the variable is unset" in cmd.assumed
    for text in ("${VLLM_IMAGE}", "${IMG:-redis:7}"):
        assert image_command(Token(text, Span("x", 1, 1), True), None, toks("--model m"),
                             "docker run") is None
