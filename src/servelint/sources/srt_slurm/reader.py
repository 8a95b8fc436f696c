"""srt-slurm recipes (srtctl YAML) -> one LaunchSpec per worker role and variant.

A recipe names the model (``model.{path, container, precision}``), the Dynamo install
(``dynamo.{version|wheel|hash|top_of_tree, install}``, ``identity.frameworks``), the
allocation (``resources``), the frontend, and per-role engine options
(``backend.{vllm,sglang,trtllm}_config.{prefill,decode,aggregated}``) with per-role and
global environments. Override recipes (``base`` + ``override_*``/``zip_override_*``) give
one set of roles per variant (:mod:`.variants`), a ``sweep:`` block one per combination
(:mod:`.sweep`); commands are built as srtctl builds them (:mod:`.command`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

import servelint.sources.srt_slurm.identity as identity
import servelint.sources.srt_slurm.setup_script as setup_script
import servelint.sources.srt_slurm.sweep as sweep
from servelint.launches import CommandRecord, Origin, assemble
from servelint.model import EnvVar, LaunchSpec, Span, Token
from servelint.sources.common import overlay
from servelint.sources.common.deps import note
from servelint.sources.common.placeholders import mark as mark_placeholders
from servelint.sources.common.problems import ReadProblem
from servelint.sources.srt_slurm.command import BUILDERS, Context, Topology, py_str
from servelint.sources.srt_slurm.option_lines import engine_option_file
from servelint.sources.srt_slurm.tree import Node, RecipeYamlError, load_tree
from servelint.sources.srt_slurm.variants import SelectorError, Variant, variants
from servelint.util import hardware

ROLE_OF_MODE = {"prefill": "prefill", "decode": "decode", "agg": "aggregated"}
ENGINES = ("vllm", "sglang", "trtllm")
MAX_BYTES = 4 * 1024 * 1024


@dataclass(slots=True)
class RecipeResult:
    """The launches of one srt-slurm recipe file."""

    launches: list[LaunchSpec] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    deps: list[str] = field(default_factory=list)
    variants: int = 0


def read_recipe(
    path: str, *, selector: str | None = None, containers: dict[str, str] | None = None
) -> RecipeResult:
    """Read one recipe; ``containers`` maps ``model.container`` aliases to images (the
    launcher's generated ``containers:`` table)."""
    result = RecipeResult(deps=[path])
    note(path)
    try:
        if os.path.getsize(path) > MAX_BYTES:
            result.problems.append(ReadProblem(path, None, "recipe too large to read"))
            return result
        text = overlay.read_text(path)
        root = load_tree(text, path)
    except (OSError, UnicodeError) as exc:
        result.problems.append(ReadProblem(path, None, f"cannot read recipe: {exc}"))
        return result
    except RecipeYamlError as exc:
        result.problems.append(ReadProblem(path, exc.span, str(exc), "parse-error"))
        return result
    if root is None or not root.is_map:
        result.problems.append(ReadProblem(path, None, "srt-slurm recipe is not a mapping"))
        return result
    try:
        chosen = variants(root, selector)
    except SelectorError as exc:
        result.problems.append(
            ReadProblem(path, root.span, f"override selector: {exc}", "unresolved")
        )
        return result
    chosen = [arm for variant in chosen for arm in sweep.arms(path, variant, result.problems)]
    result.variants = len(chosen)
    for variant in chosen:
        _read_variant(path, variant, containers or {}, result)
    return result


def _gpus(res: Node | None, role: str) -> int:
    """``ResourceConfig.gpus_per_<role>`` (srt-slurm ``core/schema.py``)."""

    def num(key: str) -> int | None:
        got = res.get(key) if res is not None else None
        return got.value if got is not None and isinstance(got.value, int) else None

    per_node = num("gpus_per_node") or 4
    explicit = num(f"gpus_per_{role}")
    if explicit is not None:
        return explicit
    nodes, workers = num(f"{role}_nodes"), num(f"{role}_workers")
    if nodes and workers:
        return nodes * per_node // workers
    if role == "decode" and nodes == 0 and workers:
        return _gpus(res, "prefill")
    return per_node


def modes(res: Node | None) -> list[str]:
    """The worker modes srtctl starts: prefill/decode when disaggregated, else agg."""

    def workers(key: str) -> int:
        got = res.get(key) if res is not None else None
        return got.value if got is not None and isinstance(got.value, int) else 0

    disagg = res is not None and (
        res.get("prefill_nodes") is not None or res.get("decode_nodes") is not None
    )
    if disagg:
        return [m for m in ("prefill", "decode") if workers(f"{m}_workers") > 0]
    return ["agg"] if workers("agg_workers") > 0 else []


def _env(node: Node | None) -> list[EnvVar]:
    if node is None or not node.is_map:
        return []
    return [
        EnvVar(k, py_str(e.node.plain()), e.key_span)
        for k, e in node.entries()
        if e.node.value is not None
    ]


def _merged_env(role_env: list[EnvVar], global_env: list[EnvVar]) -> list[EnvVar]:
    """Role env first, the recipe's global ``environment`` over it (worker_stage order)."""
    out = {e.name: e for e in role_env}
    for e in global_env:
        out[e.name] = e
    return list(out.values())


def dynamo_release(root: Node) -> tuple[str | None, str, Span | None]:
    """-> (ai-dynamo version or None, how it is known, span) from the ``dynamo`` block."""
    block = root.get("dynamo")
    if block is None or not block.is_map:
        return "0.8.0", "srtctl's default dynamo.version (no dynamo block)", root.span
    install = block.get("install")
    if install is not None and install.value is False:
        return None, "dynamo.install: false (the container's own Dynamo)", install.span
    for key in ("hash", "top_of_tree", "wheel", "version"):
        got = block.get(key)
        if got is None or got.value in (None, False):
            continue
        if key == "hash":
            return None, f"dynamo.hash {got.value} (a source build)", got.span
        if key == "top_of_tree":
            return None, "dynamo.top_of_tree (a source build of the newest commit)", got.span
        return str(got.value), f"dynamo.{key}", got.span
    return "0.8.0", "srtctl's default dynamo.version", block.span


def _identity(root: Node) -> dict[str, tuple[str, Span]]:
    """``identity.frameworks``: name -> (declared version, span), versions only."""
    node = root.get("identity")
    frameworks = node.get("frameworks") if node is not None and node.is_map else None
    out = {}
    for name, entry in frameworks.entries() if frameworks is not None else []:
        text = py_str(entry.node.value)
        try:
            Version(text)
        except InvalidVersion:
            continue  # a commit or a nightly tag names no release
        out[name] = (text, entry.node.span)
    return out


def frontend_launch(path: str, root: Node, base: LaunchSpec) -> LaunchSpec | None:
    """``python3 -m dynamo.frontend --http-port=<port>`` + ``frontend.args`` in their order
    (srt-slurm ``frontends/dynamo.py``: ``true`` -> bare flag, ``false``/``null`` dropped,
    else ``str(value)``; keys are not rewritten)."""
    front = root.get("frontend")
    kind = front.get("type") if front is not None and front.is_map else None
    if kind is not None and kind.value != "dynamo":
        return None
    anchor = (front or root).span
    argv = [Token("--http-port=<frontend-port>", anchor, True)]
    args = front.get("args") if front is not None and front.is_map else None
    for key, entry in args.entries() if args is not None and args.is_map else []:
        value = entry.node.value
        if value is True:
            argv.append(Token(f"--{key}", entry.key_span))
        elif value is not False and value is not None:
            argv += [
                Token(f"--{key}", entry.key_span),
                Token(py_str(entry.node.plain()), entry.node.span),
            ]
    at = args.span if args is not None else anchor
    rendering = (
        base.rendering.rsplit(" ", 1)[0] + " frontend" if " " in base.rendering else "frontend"
    )
    context = {
        k: v
        for k, v in base.context.items()
        if k.startswith(("dynamo_release", "recipe_", "srt_slurm", "identity"))
    }
    entry = [Token(w, at) for w in ("python3", "-m", "dynamo.frontend")]
    record = CommandRecord(
        entry + argv,
        at,
        Origin("srt-slurm", path, rendering),
        context=context,
        gpu=base.gpu,
        # the frontend runs in the workers' container, judged with their engine's release
        serves=base.engine,
    )
    _in_image(record, base.image, base.image_span, entry)
    spec = _assembled(record, base.image_span)
    if spec is None:
        return None
    spec.context.update({"role": "frontend", "frontend": "dynamo"})
    return spec


def _model_facts(model: Node | None, anchor: Span) -> tuple[tuple, tuple]:
    path_node = model.get("path") if model is not None else None
    text = py_str(path_node.value) if path_node is not None else ""
    span = path_node.span if path_node is not None else anchor
    if text.startswith("hf:"):
        ident = text[3:]
        return (ident, span, False), (ident.rstrip("/").rsplit("/", 1)[-1], span, False)
    name = text.rstrip("/").rsplit("/", 1)[-1] if text.startswith("/") else ""
    return ("/model", span, False), (name or "<model-dir-name>", span, not name)


def _image(model: Node | None, containers: dict[str, str]) -> tuple[str | None, Span | None]:
    node = model.get("container") if model is not None else None
    if node is None or not isinstance(node.value, str):
        return None, None
    ref = node.value
    if ref in containers:
        return containers[ref], node.span
    if ref.startswith(("/", "./")) or ("/" not in ref and ":" not in ref):
        return None, node.span  # a squashfs file or an alias the cluster config maps
    return ref, node.span


@dataclass(slots=True)
class _Recipe:
    """The recipe-level facts every worker launch of one variant shares."""

    variant: Variant
    btype: str
    type_span: Span
    backend: Node | None
    res: Node | None
    gpu_type: str | None
    gpu_id: str | None
    frontend: str
    request_plane: tuple
    request_plane_set: bool
    model: Node | None
    model_arg: tuple
    model_name: tuple
    image: str | None
    image_span: Span | None
    release: str | None
    how: str
    release_span: Span | None
    declared: dict
    gpus_per_node: int
    global_env: list[EnvVar]
    setup: Node | None
    setup_installs: list


def _read_variant(
    path: str, variant: Variant, containers: dict[str, str], result: RecipeResult
) -> None:
    before = len(result.problems)
    recipe = _recipe(path, variant, containers, result)
    if recipe is None:
        return
    seen_problems = {p.message for p in result.problems[before:]}
    for mode in modes(recipe.res):
        spec = _worker_launch(path, recipe, mode)
        if spec is None:  # every builder's entrypoint is an engine launcher: never expected
            message = f"srt-slurm {ROLE_OF_MODE[mode]} command starts no engine servelint knows"
            result.problems.append(ReadProblem(path, recipe.type_span, message, "unsupported"))
            continue
        mismatch = identity.apply(spec, recipe.declared, recipe.image_span)
        if mismatch is not None and mismatch.message not in seen_problems:
            seen_problems.add(mismatch.message)
            result.problems.append(mismatch)
        result.launches.append(spec)
    workers = [
        s
        for s in result.launches
        if s.path == path
        and s.context.get("recipe_name") == variant.name
        and s.context.get("role") != "frontend"
    ]
    front = frontend_launch(path, variant.root, workers[0]) if workers else None
    if front is not None:
        result.launches.append(front)


def _recipe(
    path: str, variant: Variant, containers: dict[str, str], result: RecipeResult
) -> _Recipe | None:
    """The variant's shared facts, or None (with a problem) when it starts nothing."""
    root = variant.root
    backend = root.get("backend")
    btype_node = backend.get("type") if backend is not None else None
    # srtctl's BackendConfigField: no backend block or no type -> SGLang
    btype = btype_node.value if btype_node is not None else "sglang"
    if btype not in ENGINES:
        if btype != "mocker":
            span = btype_node.span if btype_node is not None else root.span
            message = (
                f"srt-slurm backend.type {btype!r} is not one servelint renders "
                f"({', '.join(ENGINES)})"
            )
            result.problems.append(ReadProblem(path, span, message, "unsupported"))
        return None
    res = root.get("resources")
    if not modes(res):
        message = (
            "srt-slurm recipe starts no workers (resources name no prefill/decode or agg workers)"
        )
        result.problems.append(ReadProblem(path, (res or root).span, message, "unresolved"))
    gpu_node = res.get("gpu_type") if res is not None else None
    gpu_type = str(gpu_node.value) if gpu_node is not None and gpu_node.value else None
    gpu = hardware.lookup(gpu_type)
    frontend_node = root.get("frontend")
    ftype = frontend_node.get("type") if frontend_node is not None else None
    dyn = root.get("dynamo")
    plane = dyn.get("request_plane") if dyn is not None and dyn.is_map else None
    model = root.get("model")
    model_arg, model_name = _model_facts(model, root.span)
    image, image_span = _image(model, containers)
    release, how, release_span = dynamo_release(root)
    declared = _identity(root)
    if release is None and isinstance(declared.get("dynamo"), tuple):
        # identity.frameworks: what the recipe declares runs (srtctl verifies it at run time)
        release, release_span = declared["dynamo"]
        how = f"identity.frameworks.dynamo, as {how}"
    per_node = res.get("gpus_per_node") if res is not None else None
    setup = root.get("setup_script")
    return _Recipe(
        variant=variant,
        btype=btype,
        type_span=btype_node.span if btype_node is not None else (backend or root).span,
        backend=backend,
        res=res,
        gpu_type=gpu_type,
        gpu_id=gpu.id if gpu else None,
        frontend=str(ftype.value) if ftype is not None and ftype.value else "dynamo",
        request_plane=(
            (py_str(plane.value), plane.span) if plane is not None else ("tcp", (dyn or root).span)
        ),
        request_plane_set=plane is not None,
        model=model,
        model_arg=model_arg,
        model_name=model_name,
        image=image,
        image_span=image_span,
        release=release,
        how=how,
        release_span=release_span,
        declared=declared,
        gpus_per_node=(
            per_node.value if per_node is not None and isinstance(per_node.value, int) else 4
        ),
        global_env=_env(root.get("environment")),
        setup=setup,
        setup_installs=_setup_installs(path, setup, result),
    )


def _setup_installs(path: str, setup: Node | None, result: RecipeResult) -> list:
    """What ``setup_script`` installs; a script it names but cannot read is a problem."""
    if setup is None or not isinstance(setup.value, str) or not setup.value:
        return []
    installs, missing, _ = setup_script.installs(path, setup.value, setup.span)
    if missing is not None:
        result.problems.append(missing)
    return installs


def _worker_launch(path: str, recipe: _Recipe, mode: str) -> LaunchSpec | None:
    """The launch of one worker role, built as srtctl builds its command."""
    role = ROLE_OF_MODE[mode]
    backend = recipe.backend
    ctx = Context(
        anchor=recipe.type_span,
        mode=mode,
        frontend=recipe.frontend,
        backend=backend,
        model_arg=recipe.model_arg,
        model_name=recipe.model_name,
        request_plane=recipe.request_plane,
        topo=Topology(_gpus(recipe.res, mode), recipe.gpus_per_node, recipe.gpu_type),
        backend_span=recipe.type_span,
        request_plane_set=recipe.request_plane_set,
    )
    block = backend.get(f"{recipe.btype}_config") if backend is not None else None
    role_node = block.get(role) if block is not None else None
    if role_node is not None:
        ctx.anchor = role_node.span
    cmd = BUILDERS[recipe.btype](ctx)
    cmd.argv = mark_placeholders(cmd.argv)  # "{model}" no sweep fills, "<your-dir>"
    env_key = "aggregated_environment" if mode == "agg" else f"{mode}_environment"
    role_env = _env(backend.get(env_key) if backend is not None else None)
    label = recipe.variant.name if recipe.variant.label else ""
    # the command's words stand at the role block that configures them
    entry = [Token(t.text, ctx.anchor, t.symbolic) for t in cmd.entrypoint]
    record = CommandRecord(
        entry + cmd.argv,
        ctx.anchor,
        Origin("srt-slurm", path, (f"{label} " if label else "") + role),
        env=_merged_env(role_env, recipe.global_env),
        installs=list(recipe.setup_installs),
        context=_worker_context(recipe, role, cmd, ctx.topo),
        gpu=recipe.gpu_id,
        serves=recipe.btype,
    )
    _in_image(record, recipe.image, recipe.image_span, entry)
    spec = _assembled(record, recipe.image_span)
    if spec is not None:
        # the command as srtctl writes it (``python3 -m sglang.launch_server``): its recorded
        # output is what tests/test_srt_slurm_render.py holds the rendering to
        spec.entrypoint = " ".join(t.text for t in entry)
    if spec is not None and cmd.files:
        # the files srtctl writes are recipe maps, not document lines: the assembler's
        # config-file expansion does not apply; the engine judges them as option files
        spec.option_file = engine_option_file(recipe.btype, cmd.files)
    return spec


def _in_image(
    record: CommandRecord, image: str | None, span: Span | None, entry: list[Token]
) -> None:
    """The command runs in the recipe's container: srtctl starts it there itself (``srun``),
    so its own words replace the image's entrypoint."""
    if image:
        record.image = Token(image, span)
        record.entrypoint, record.words = entry, record.words[len(entry):]


def _assembled(record: CommandRecord, image_span: Span | None) -> LaunchSpec | None:
    """The one launch ``record`` starts (None: its words start no engine). The assembly has
    no problems to report: the record names no written file, and its words are the
    container's whole command (no image entrypoint to repeat)."""
    specs = assemble(record).specs
    if not specs:
        return None
    spec = specs[0]
    if spec.image_span is None:
        # a container alias the cluster maps or a squashfs file: no image to carry in the
        # record, but findings about the image still point at ``model.container``
        spec.image_span = image_span
    return spec


def _worker_context(recipe: _Recipe, role: str, cmd, topo: Topology) -> dict[str, str]:
    """The facts a worker launch carries for the rules and the report."""
    context = {
        "role": role,
        "frontend": recipe.frontend,
        "srt_slurm_variant": recipe.variant.label,
        "recipe_name": recipe.variant.name,
        "prefix": " ".join(t.text for t in cmd.prefix),
        "dynamo_release_how": recipe.how,
        "gpus_per_worker": str(topo.gpus),
        "nodes_per_worker": str(topo.nodes),
    }
    for name, (version, _) in recipe.declared.items():
        context[f"identity_{name}"] = version
    container = recipe.model.get("container") if recipe.model is not None else None
    if container is not None:
        context["recipe_container"] = py_str(container.value)
    if recipe.release:
        context["dynamo_release"] = recipe.release
    if recipe.release_span is not None:
        span = recipe.release_span
        context["dynamo_release_span"] = f"{span.line}:{span.column}"
    if recipe.setup is not None and recipe.setup.value:
        context["setup_script"] = py_str(recipe.setup.value)
    added = cmd.added_spans()
    if added:
        # the judge caps errors there at warning (pipeline.judge._cap_tool_added)
        context["tool_added_at"] = ";".join(f"{a}:{b}" for a, b in sorted(added))
        context["tool_added_note"] = (
            f"srtctl adds this option as srt-slurm {SRTCTL_COMMIT} builds the "
            "command; the srtctl that runs the recipe is not pinned"
        )
    if cmd.files:
        context["config_files"] = ",".join(cmd.files)
    return context


SRTCTL_COMMIT = "c88ef731"  # the srt-slurm commit whose build_worker_command is followed
