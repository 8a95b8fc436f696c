"""The check pipeline: files -> launch specs -> release resolution -> rules -> findings.

Readers turn files into ``LaunchSpec``s (and ``ReadProblem``s, which become findings);
``resolve`` picks the release(s) each launch is judged against; every rule sees one
launch and one profile; findings of many renderings of one source line are merged.
"""

from __future__ import annotations

import os
import pickle
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from servelint import rule_memo
from servelint.engines import history as history_mod
from servelint.engines.lint_parse import lint_parse
from servelint.model import Finding, LaunchSpec, Severity, Span
from servelint.resolve import Resolution, resolve
from servelint.rules import read_error as read_error_rule
from servelint.rules import registry
from servelint.rules.base import CheckContext, Scope

MAX_FILE_BYTES = 8 * 1024 * 1024  # larger files are a read-error finding, not read
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".tox"}
RECIPE_SUPPORT = {"taxonomy.yaml", "platforms.yaml"}


@dataclass(slots=True)
class Options:
    image: str | None = None  # for launches that name no image
    engine: str | None = None  # "vllm==0.21.0" for launches that name no release
    gpu: str | None = None
    target_version: str | None = None  # "vllm==0.33.0": judge as if bumped to it
    config: Any = None  # servelint.config.Config
    no_ignores: bool = False
    # the range of releases each launch passes on: True (first and last), "all" (also the
    # number of releases, checking every one), False (not computed)
    works_on: bool | str = False
    use_cache: bool = False  # reuse results of unchanged files (servelint.cache)
    cap_guesses: bool = True  # a guessed release caps errors at warning (not for works_on)
    errors_only: bool = False  # run only the rules that can report an error (works_on)
    jobs: int = 0  # worker processes (0: one per core)


@dataclass(slots=True)
class LaunchReport:
    spec: LaunchSpec | None  # dropped once summarised
    judged: list[str]  # "vllm 0.27.1 (image tag v0.27.1)"
    errors: int = 0
    works_on: dict[str, str | int | None] | None = None
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class CheckReport:
    findings: list[Finding] = field(default_factory=list)
    units: list[FileResult] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    ignored: list[Finding] = field(default_factory=list)

    @property
    def launches(self) -> list[LaunchReport]:
        return [lr for unit in self.units for lr in unit.all_launches()]

    @property
    def profiles_used(self) -> list[str]:
        return sorted({label for unit in self.units for label in unit.judged})


# ---------------------------------------------------------------- discovery


def classify(path: Path) -> str | None:
    """The kind of a file: recipe | inferencex-master | script | markdown | None (skip)."""
    name = path.name
    suffix = path.suffix.lower()
    if suffix in {".sh", ".bash"}:
        return "script"
    if suffix in {".md", ".markdown"}:
        return "markdown"
    if suffix in {".yaml", ".yml"}:
        if name in RECIPE_SUPPORT or path.parent.name in {"strategies", "kv_store"}:
            return None
        if name.endswith("-master.yaml") or name.endswith("-master.yml") or \
                "master" in name and _looks_like_master(path):
            return "inferencex-master"
        if "models" in path.parts or _looks_like_recipe(path):
            return "recipe"
        return None
    if suffix == "" and _has_bash_shebang(path):
        return "script"
    return None


def _head(path: Path, n: int = 4096) -> str:
    try:
        if not path.is_file():  # a FIFO would block: not classified by content
            return ""
        with open(path, "rb") as fh:
            return fh.read(n).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _has_bash_shebang(path: Path) -> bool:
    head = _head(path, 64)
    return head.startswith("#!") and ("bash" in head.splitlines()[0] or
                                      head.splitlines()[0].endswith("/sh"))


def _looks_like_recipe(path: Path) -> bool:
    text = "\n" + _head(path, 1 << 20)
    return "\nmodel:" in text[:4097] and "variants:" in text


def _looks_like_master(path: Path) -> bool:
    head = _head(path)
    return "image:" in head and "runner:" in head


def _is_inferencex_root(path: Path) -> bool:
    return (path / "configs").is_dir() and (path / "benchmarks").is_dir() and \
        any((path / "configs").glob("*-master.yaml"))


def discover(paths: Iterable[str], options: Options) -> Iterator[tuple[str, str]]:
    """(path, kind) of every file to check. An InferenceX root is one unit of its own."""
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            if _is_inferencex_root(p):
                yield str(p), "inferencex-root"
                continue
            for root, dirs, files in os.walk(p, followlinks=False):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                for f in sorted(files):
                    fp = Path(root) / f
                    if _excluded(fp, options):
                        continue
                    kind = classify(fp)
                    if kind:
                        yield str(fp), kind
        elif p.exists() or p.is_symlink():
            yield str(p), classify(p) or "unknown"
        else:
            yield str(p), "missing"


def _excluded(path: Path, options: Options) -> bool:
    cfg = options.config
    return bool(cfg is not None and hasattr(cfg, "excluded") and cfg.excluded(path))


# ---------------------------------------------------------------- reading


def read(path: str, kind: str, options: Options) -> tuple[list[LaunchSpec], list[Any]]:
    """Launch specs and read problems of one file (never raises for bad input)."""
    from servelint.readers.problems import ReadProblem

    if kind == "missing":
        return [], [ReadProblem(path, None, "no such file or directory")]
    if kind == "unknown":
        return [], [ReadProblem(path, None, "servelint does not know what kind of file this is "
                                "(expected a recipe .yaml, a launcher .sh, a master config or "
                                "Markdown)", kind="unsupported")]
    if kind != "inferencex-root":
        try:
            size = os.path.getsize(path)
        except OSError as exc:
            return [], [ReadProblem(path, None, f"cannot read: {exc.strerror or exc}")]
        if not os.path.isfile(path):  # FIFO, socket, device: reading would block or not end
            return [], [ReadProblem(path, None, "cannot read: not a regular file")]
        if size > MAX_FILE_BYTES:
            return [], [ReadProblem(path, None, f"file too large to check ({size} bytes; the "
                                    f"limit is {MAX_FILE_BYTES})")]
    try:
        if kind == "recipe":
            from servelint.readers.recipe_render import render

            result = render(path)
            specs = [r.to_launch_spec() for r in result.renderings]
            # the commands of the recipe's `guide:` Markdown (readers/markdown.py, SL191)
            from servelint.readers.markdown import read_recipe_guide

            guide = read_recipe_guide(path, result.renderings)
            return specs + guide.launches, list(result.problems) + guide.problems
        if kind == "script":
            from servelint.readers.bash import read_script

            result = read_script(path)
            return list(result.launches), list(result.problems)
        if kind in {"inferencex-master", "inferencex-root"}:
            from servelint.readers.inferencex import read_inferencex

            result = read_inferencex(path, jobs=options.jobs)
            return list(result.launches), list(result.problems)
        if kind == "markdown":
            try:
                from servelint.readers.markdown import read_markdown
            except ModuleNotFoundError:
                return [], []
            result = read_markdown(path)
            return list(result.launches), list(result.problems)
    except RecursionError:
        return [], [ReadProblem(path, None, "input nested too deeply to read")]
    except MemoryError:
        return [], [ReadProblem(path, None, "input too large to read")]
    except (OSError, UnicodeError, ValueError) as exc:
        return [], [ReadProblem(path, None, f"cannot read: {exc}")]
    return [], []


# ---------------------------------------------------------------- checking


def _apply_options(spec: LaunchSpec, options: Options) -> None:
    if spec.image is None and options.image:
        spec.image = options.image
    if spec.release is None and options.engine:
        engine, _, version = options.engine.partition("==")
        if engine == spec.engine and version:
            spec.release = version
    if spec.gpu is None and options.gpu:
        spec.gpu = options.gpu
    if spec.release is None and spec.image is None:
        for inst in spec.installs:  # `pip install vllm==X` before the launch pins the release
            if inst.name and inst.name.lower() == spec.engine and \
                    inst.specifier.startswith("==") and "," not in inst.specifier:
                spec.release = inst.specifier[2:].strip()
                spec.release_span = inst.span


def _is_custom_image(spec: LaunchSpec, prof) -> bool:
    if not spec.image:
        return False
    from servelint.resolve import image_ref

    ref = image_ref(spec.image)
    official = prof.image.get("repository")
    return not official or not ref.repository or ref.repository != official


def check_spec(spec: LaunchSpec, options: Options) -> tuple[list[Finding], LaunchReport]:
    res = _resolution(spec, options)
    report = LaunchReport(spec, [f"{t.profile.label} ({t.how})" for t in res.targets
                                 if t.role == "primary"])
    out = list(_findings(spec, options, res))
    report.errors = sum(1 for f in out if f.severity == Severity.ERROR)
    return out, report


def _resolution(spec: LaunchSpec, options: Options) -> Resolution:
    _apply_options(spec, options)
    # a config that maps images to releases (else None: resolutions are then memoised)
    image_map = options.config.image_release if getattr(options.config, "images", None) \
        else None
    target = options.target_version.partition("==")[2] if options.target_version else None
    if options.target_version and options.target_version.partition("==")[0] != spec.engine:
        target = None
    return resolve(spec, target_version=target, image_map=image_map)


def _findings(spec: LaunchSpec, options: Options, res: Resolution) -> Iterator[Finding]:
    hist = history_mod.load(spec.engine)
    notes_rules, primary_rules = _rules_by_role(options.errors_only)
    primary = [t for t in res.targets if t.role == "primary"]
    # release-independent rules (resolution notes, runtime installs) run once per launch,
    # on the first primary release's parse (shared with that release's own context)
    parses: dict[int, Any] = {}
    if notes_rules:
        ctx = _context(spec, primary[0].profile if primary else None, hist, res,
                       floating=True, parses=parses)
        for rule in notes_rules:
            yield from rule.check(ctx)
    cap = res.capped and options.cap_guesses
    for tgt in primary:
        ctx = _context(spec, tgt.profile, hist, res, floating=tgt.floating, parses=parses)
        ctx.extra["custom_image"] = _is_custom_image(spec, tgt.profile)
        ctx.how = tgt.how
        for rule in primary_rules:
            found = rule_memo.run(rule, ctx) if rule.scope is Scope.ARGV else rule.check(ctx)
            for f in found:
                if tgt.floating and cap and f.severity > Severity.WARNING:
                    f.severity = Severity.WARNING
                    f.message += f" (release not pinned: {tgt.how})"
                yield f


def _rules_by_role(errors_only: bool = False) -> tuple[tuple, tuple]:
    """The rules run once per launch ("notes") and those run per release judged; with
    ``errors_only``, just the rules that can report an error."""
    return (registry.runnable(Scope.NOTES, errors_only=errors_only),
            registry.runnable(Scope.ARGV, Scope.LAUNCH, errors_only=errors_only))


def _context(spec: LaunchSpec, prof, hist, res: Resolution, *, floating: bool,
             parses: dict[int, Any] | None = None) -> CheckContext:
    parsed = None
    if prof is not None:
        parsed = parses.get(id(prof)) if parses is not None else None
        if parsed is None:
            texts = tuple(t.text for t in spec.argv)
            symbolic = tuple(i for i, t in enumerate(spec.argv) if t.symbolic)
            parsed = lint_parse(prof, texts, symbolic)
            if parses is not None:
                parses[id(prof)] = parsed
    ctx = CheckContext(spec=spec, profile=prof, history=hist, parsed=parsed)  # type: ignore[arg-type]
    ctx.floating = floating
    ctx.extra.update({"notes": res.notes, "image_release": res.image_release,
                      "floating": floating})
    return ctx


PROBLEM_SEVERITY = {"read-error": Severity.ERROR, "parse-error": Severity.WARNING,
                    "budget": Severity.WARNING, "unresolved": Severity.WARNING,
                    "unsupported": Severity.INFO}


def problem_finding(problem: Any) -> Finding:
    """A reader problem as a finding: unreadable input is an error, gaps in what a reader
    could follow (a construct skipped, a sourced helper outside the checkout) say less."""
    span = problem.span or Span(problem.path, 1, 1)
    kind = getattr(problem, "kind", "read-error")
    if kind == "entrypoint-shape":
        from servelint.rules import entrypoint_shape as rule

        return Finding(rule=rule.NAME, code=rule.CODE, severity=rule.SEVERITY,
                       message=problem.message, span=span,
                       fix="drop the command words after the image, or set --entrypoint")
    severity = PROBLEM_SEVERITY.get(kind, Severity.WARNING)
    if getattr(problem, "subject", "") == "source":
        severity = Severity.INFO  # a sourced helper not followed: the launch is still read
    return Finding(rule=read_error_rule.NAME, code=read_error_rule.CODE,
                   severity=severity, message=problem.message, span=span)


def merge(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per (rule, place, message), listing every rendering affected."""
    merged: dict[tuple, Finding] = {}
    for f in findings:
        key = f.key() + (f.release,)
        if key in merged:
            have = merged[key]
            for r in f.renderings:
                if r not in have.renderings:
                    have.renderings.append(r)
            have.severity = max(have.severity, f.severity)
        else:
            merged[key] = f
    return sorted(merged.values(), key=lambda f: (f.span.sort_key(), f.code, f.message))


@dataclass(slots=True)
class FileResult:
    """What checking one unit (a file, or an InferenceX checkout) gives; cacheable.

    Pickled (cache, worker processes) with its launches as one nested blob, unpickled only
    when a report lists them (JSON): a text run over a cached corpus never builds them."""

    path: str
    findings: list[Finding]
    launches: list[LaunchReport] | None
    bound: list[str] = field(default_factory=list)  # launchers a master config bound
    judged: list[str] = field(default_factory=list)  # profiles the launches were judged on
    launch_count: int = 0
    blob: bytes | None = None

    def all_launches(self) -> list[LaunchReport]:
        if self.launches is None:
            self.launches = pickle.loads(self.blob) if self.blob else []
        return self.launches

    def __getstate__(self) -> tuple:
        blob = self.blob if self.launches is None else \
            pickle.dumps(self.launches, protocol=pickle.HIGHEST_PROTOCOL)
        return (self.path, self.findings, self.bound, self.judged, self.launch_count, blob)

    def __setstate__(self, state: tuple) -> None:
        self.path, self.findings, self.bound, self.judged, self.launch_count, self.blob = state
        self.launches = None


def check_unit(path: str, kind: str, options: Options) -> FileResult:
    raw: list[Finding] = []
    specs, problems = read(path, kind, options)
    raw.extend(problem_finding(p) for p in problems)
    result = FileResult(path, [], [])
    if kind.startswith("inferencex"):
        result.bound = sorted({os.path.realpath(s.path) for s in specs})
    for spec in specs:
        try:
            found, launch = check_spec(spec, options)
        except RecursionError:
            raw.append(Finding(rule=read_error_rule.NAME, code=read_error_rule.CODE,
                               severity=Severity.ERROR, span=spec.anchor,
                               message="launch too deeply nested to check"))
            continue
        if options.works_on:
            from servelint import works_on as works_on_mod  # JSON / --works-on only

            launch.works_on = works_on_mod.works_on(spec, passes_on,
                                                    exhaustive=options.works_on == "all")
            below = works_on_mod.floor_finding(spec, launch.works_on, first_error)
            if below is not None:
                found.append(below)
        launch.summary = launch_summary(launch)
        launch.spec = None  # keep results small (cache, worker processes)
        raw.extend(found)
        result.all_launches().append(launch)
    result.findings = merge(raw)
    result.launch_count = len(result.all_launches())
    result.judged = sorted({j.split(" (", 1)[0] for lr in result.all_launches()
                            for j in lr.judged})
    return result


def _check_unit_stored(args: tuple[str, str, Options, str | None]) -> FileResult:
    """Check one unit and keep its result under ``key`` (run in a worker when parallel)."""
    path, kind, options, key = args
    result = check_unit(path, kind, options)
    if key is not None:
        from servelint import cache

        cache.store(key, result)
    return result


def _run_units(units: list[tuple[str, str]], options: Options) -> list[FileResult]:
    """Results of unchanged units come from the cache, here; the rest are checked, in worker
    processes when there are enough of them."""
    results: list[FileResult | None] = [None] * len(units)
    todo: list[tuple[int, tuple[str, str, Options, str | None]]] = []
    for i, (path, kind) in enumerate(units):
        key = None
        if options.use_cache:
            from servelint import cache

            key = cache.key_for(path, kind, options)
            hit = cache.load(key) if key is not None else None
            if hit is not None:
                results[i] = hit
                continue
        todo.append((i, (path, kind, options, key)))
    workers = min(options.jobs or (os.cpu_count() or 1), len(todo))
    if workers <= 1 or len(todo) < PARALLEL_MIN_UNITS:
        done = [_check_unit_stored(job) for _, job in todo]
    else:
        import concurrent.futures as cf
        import multiprocessing as mp

        with cf.ProcessPoolExecutor(max_workers=workers,
                                    mp_context=mp.get_context("fork")) as pool:
            done = list(pool.map(_check_unit_stored, [job for _, job in todo], chunksize=4))
    for (i, _), result in zip(todo, done, strict=True):
        results[i] = result
    return results  # type: ignore[return-value]


PARALLEL_MIN_UNITS = 16


def check_paths(paths: Iterable[str], options: Options | None = None) -> CheckReport:
    options = options or Options()
    report = CheckReport()
    raw: list[Finding] = []
    t0 = time.perf_counter()
    units = list(discover(paths, options))
    # master configs first: a launcher they bind is not checked again on its own
    masters = [u for u in units if u[1].startswith("inferencex")]
    results = _run_units(masters, options)
    bound = {p for r in results for p in r.bound}
    rest = [u for u in units if not u[1].startswith("inferencex")
            and not (u[1] == "script" and os.path.realpath(u[0]) in bound)]
    results += _run_units(rest, options)
    for r in results:
        report.files.append(r.path)
        raw.extend(r.findings)
    report.units = results
    findings = merge(raw)
    findings = _apply_control(findings, options, report)
    report.findings = findings
    report.stats = {"files": len(report.files),
                    "launches": sum(r.launch_count for r in results),
                    "seconds": round(time.perf_counter() - t0, 3)}
    return report


def launch_summary(lr: LaunchReport) -> dict[str, Any]:
    spec = lr.spec
    anchor = spec.anchor
    return {"path": spec.path, "line": anchor.line, "column": anchor.column,
            "engine": spec.engine, "entrypoint": spec.entrypoint, "rendering": spec.rendering,
            "image": spec.image, "gpu": spec.gpu, "judged_against": lr.judged,
            "errors": lr.errors, "argv": [t.text for t in spec.argv],
            "symbolic": [i for i, t in enumerate(spec.argv) if t.symbolic],
            **({"works_on": lr.works_on} if lr.works_on is not None else {})}


def _apply_control(findings: list[Finding], options: Options, report: CheckReport) -> list[Finding]:
    """Inline ignores and config (severity remaps, disabled rules, min severity)."""
    try:
        from servelint import ignores
    except ModuleNotFoundError:
        ignores = None  # type: ignore[assignment]
    if ignores is not None and not options.no_ignores:
        kept, ignored, extra = ignores.apply_ignores(findings, read_text, registry.known_ids,
                                                     checked_paths=report.files)
        report.ignored = list(ignored)
        findings = list(kept) + list(extra)
    if options.config is not None and hasattr(options.config, "apply"):
        findings = options.config.apply(findings)
    return sorted(findings, key=lambda f: (f.span.sort_key(), f.code, f.message))


_TEXT_CACHE: dict[str, str | None] = {}


def read_text(path: str) -> str | None:
    if path not in _TEXT_CACHE:
        try:
            if not os.path.isfile(path):  # a FIFO would block
                raise OSError(path)
            with open(path, encoding="utf-8", errors="replace") as fh:
                _TEXT_CACHE[path] = fh.read(MAX_FILE_BYTES)
        except OSError:
            _TEXT_CACHE[path] = None
    return _TEXT_CACHE[path]


def first_error(spec: LaunchSpec, version: str) -> Finding | None:
    """The first error the launch gets judged as if its image were bumped to ``version``."""
    opts = Options(target_version=f"{spec.engine}=={version}", cap_guesses=False,
                   errors_only=True)
    return next((f for f in _findings(spec, opts, _resolution(spec, opts))
                 if f.severity == Severity.ERROR), None)


def passes_on(spec: LaunchSpec, version: str) -> bool:
    """Whether the launch (already checked: options applied) has no error judged as if its
    image were bumped to ``version``."""
    return first_error(spec, version) is None


def check_text(text: str, kind: str, filename: str = "example", options: Options | None = None,
               ) -> CheckReport:
    """Check a snippet (docs examples, tests): written to a temporary file first."""
    suffix = {"bash": ".sh", "yaml": ".yaml", "markdown": ".md"}.get(kind, "")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / ("models/org" if kind == "yaml" else "")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (Path(filename).stem + suffix)
        path.write_text(text, encoding="utf-8")
        return check_paths([str(path)], options)
