"""Command records -> launches, through the engine registry alone (see ``servelint.launches``)."""

from __future__ import annotations

import os

from servelint.engines import registry
from servelint.launches.containers import container_command
from servelint.launches.recognise import config_value, match_launch, strip_wrappers
from servelint.launches.record import Assembly, CommandRecord, Container, Lines
from servelint.model import EnvVar, LaunchSpec, PackageInstall, Token
from servelint.sources.common.option_files import (
    KEY_SPANS,
    WRITTEN_CONFIG,
    file_flags,
    written_key_spans,
)
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yaml_bounded import YamlBudgetError
from servelint.sources.docker_run.parse import parse_docker_run, run_start


def starts_launch(words: list[Token]) -> bool:
    """Whether ``words`` start an engine or a container (``docker run``): the records worth
    assembling (a reader may skip building the record of any other command)."""
    if match_launch(words) is not None:
        return True
    rest, _, _ = strip_wrappers(words)
    return run_start(rest) is not None


def assemble(record: CommandRecord) -> Assembly:
    """The launches ``record`` starts, with their release pins, config files and container."""
    out = Assembly()
    if record.image is not None:
        # the document's own container: its env and installs are the container's
        container = Container(
            record.image, record.anchor, list(record.env), installs=list(record.installs)
        )
        cmd = container_command(record.image, record.entrypoint, record.words, "container")
        return _in_container(record, container, cmd, out)
    rest, _, _ = strip_wrappers(record.words)
    run = parse_docker_run(rest)
    if run is None:
        spec = _launch(record, record.words, record.env, record.installs, out.problems)
        if spec is not None:
            out.specs.append(spec)
        return out
    if run.image is None:
        return out
    out.image = run.image
    container = Container(run.image, run.anchor.span, list(run.env), _docker_context(run))
    entry = [run.entrypoint] if run.entrypoint is not None else None
    runner = f"{os.path.basename(run.anchor.text)} run"  # "docker run", "podman run"
    return _in_container(record, container, container_command(
        run.image, entry, run.args, runner), out)


def _in_container(record: CommandRecord, container: Container, cmd, out: Assembly) -> Assembly:  # noqa: ANN001
    out.container = container
    if cmd is None or not cmd.words:
        return out
    if cmd.shape_error:
        span = cmd.shape_span or container.anchor
        out.problems.append(
            ReadProblem(record.origin.path, span, cmd.shape_error, "entrypoint-shape")
        )
    if cmd.assumed:
        container.context["entrypoint_assumed"] = cmd.assumed
    # a container sees its own env and installs only
    spec = _launch(record, cmd.words, [], [], out.problems)
    if spec is None:
        out.shell = list(cmd.words)
        return out
    in_container(spec, container)
    out.specs.append(spec)
    return out


def in_container(spec: LaunchSpec, container: Container) -> None:
    """A launch inside ``container``: its image, its env and installs only; the image, not
    an install line, names the release."""
    image = container.image
    if image is not None and not image.symbolic:
        spec.image, spec.image_span = image.text, image.span
    spec.env = list(container.env)
    spec.installs = list(container.installs)
    spec.release = spec.release_span = None
    spec.anchor = container.anchor or spec.anchor
    spec.context.update(container.context)


def _docker_context(run) -> dict[str, str]:  # noqa: ANN001
    context = {"docker": "run"}
    if run.entrypoint is not None:
        context["docker_entrypoint"] = run.entrypoint.text
    if run.env_files:
        context["env_file"] = ",".join(t.text for t in run.env_files)
    return context


def _launch(
    record: CommandRecord,
    words: list[Token],
    env: list[EnvVar],
    installs: list[PackageInstall],
    problems: list[ReadProblem],
) -> LaunchSpec | None:
    match = match_launch(words)
    if match is None:
        return None
    names = {e.name for e in match.env}
    spec = LaunchSpec(
        engine=match.engine,
        entrypoint=match.entrypoint,
        argv=list(match.argv),
        path=record.origin.path,
        anchor=match.anchor.span or record.anchor,
        env=[e for e in env if e.name not in names] + match.env,
        installs=list(installs),
        rendering=record.origin.rendering,
        origin=record.origin.kind,
        context=dict(record.context),
        gpu=record.gpu,
    )
    if "/" in match.anchor.text:  # `.venv/bin/vllm`: the engine of one environment
        spec.context["launcher_path"] = match.anchor.text
    if record.floor is not None:
        spec.floor, spec.floor_span = record.floor.text, record.floor.span
    engine = registry.find(match.engine)
    if engine is not None:
        _config_file(spec, engine, record.files, problems)
        _install_pin(spec, engine.package)
        texts = {t.text for t in spec.argv}
        spec.engine = next((e for flag, e in engine.handoff_flags if flag in texts), spec.engine)
    if record.serves:
        spec.engine = record.serves
    return spec


def _config_file(
    spec: LaunchSpec, engine, files: dict[str, Lines | None], problems: list[ReadProblem]  # noqa: ANN001
) -> None:
    """The file a config flag names, when the document wrote it: kept for the engine's
    option-file checks and expanded into the argv the engine reads from it."""
    hit = config_value(spec.argv, file_flags(spec.engine, spec.entrypoint))
    if hit is None:
        return
    idx, value = hit
    spec.context["config_file"] = value.text
    if value.symbolic:
        return
    lines = files.get(value.text, files.get(os.path.basename(value.text)))
    if lines is not None:
        provide_config_file(spec, idx, lines, problems)


def provide_config_file(
    spec: LaunchSpec, idx: int, lines: Lines, problems: list[ReadProblem]
) -> None:
    """The lines of the option file at ``spec.argv[idx]`` (written by the document or found
    on disk by the reader): kept for the engine's option-file checks and expanded into the
    argv the engine reads from it."""
    engine = registry.find(spec.engine)
    if engine is None:
        return
    value = spec.argv[idx]
    spec.context["config_text"] = "\n".join(line for line, _, _ in lines)
    if engine.config_read_by_parser:
        _parser_reads(spec, value, lines, problems)
    if engine.option_file_checks:
        spec.option_file = lines  # the engine judges the file's lines itself
    if engine.config_expander is None:
        return
    try:
        extra = engine.expand_config(lines)
        why, kind = "is not a flat YAML mapping", "unsupported"
    except YamlBudgetError as exc:  # vLLM's loader would not finish either: str() of each
        # item of the expanded value (an error, in guides too)
        extra, why, kind = None, f"{exc}: not read", "read-error"
    if extra is None:
        problems.append(ReadProblem(
            spec.path, value.span, f"config file {value.text!r} written by the script {why}",
            kind,
        ))
    else:
        spec.argv[idx + 1 : idx + 1] = extra


def _parser_reads(spec: LaunchSpec, value: Token, lines: Lines, problems: list[ReadProblem]) -> None:
    """A file the document writes and the engine's parser reads by path (SGLang's
    ``--config``): its text stands in for the file (``WRITTEN_CONFIG``, read by the argv
    memo), with its keys' places in the document; a line the script does not fix leaves
    the file unjudged, saying so."""
    if any(symbolic for _, _, symbolic in lines):
        problems.append(ReadProblem(
            spec.path, value.span, f"config file {value.text!r} is written with values the "
            "script does not fix: its keys are not checked", "unsupported",
        ))
        return
    spec.context[WRITTEN_CONFIG] = spec.context["config_text"]
    spans = written_key_spans(lines)
    if spans is not None:
        spec.context[KEY_SPANS] = spans


def expand_config_file(spec: LaunchSpec, at_value: int, lines: Lines) -> bool:
    """Expand a config file found after assembly (a file beside a guide, one an earlier
    block wrote) into ``spec.argv`` after index ``at_value``; False when the engine does not
    read its config file as argv or the file is not a flat mapping."""
    engine = registry.find(spec.engine)
    try:
        extra = engine.expand_config(lines) if engine is not None else None
    except YamlBudgetError:  # an alias bomb: its keys stay unknown
        return False
    if extra is None:
        return False
    spec.argv[at_value + 1 : at_value + 1] = extra
    return True


def config_file_value(spec: LaunchSpec) -> tuple[str, int] | None:
    """(file name, argv index of its value) of the config file a launch names and whose
    options are not yet in its argv, for an engine that reads its config file as argv."""
    name = spec.context.get("config_file")
    engine = registry.find(spec.engine)
    if engine is None or engine.config_expander is None or not name:
        return None
    if "config_text" in spec.context:
        return None
    hit = config_value(spec.argv, engine.config_flags)
    if hit is None or hit[1].symbolic:
        return None
    return name, hit[0]


def _install_pin(spec: LaunchSpec, package: str | None) -> None:
    """``pip install ENGINE==X`` among the record's installs pins the release."""
    for inst in spec.installs:
        if (
            inst.name == package
            and not inst.symbolic
            and inst.specifier.startswith("==")
            and "," not in inst.specifier
            and "*" not in inst.specifier
        ):
            spec.release, spec.release_span = inst.specifier[2:], inst.span
