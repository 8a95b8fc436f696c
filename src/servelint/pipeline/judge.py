"""One launch -> its findings: options applied, releases resolved, rules run per release."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from servelint import ranges
from servelint.engines import history as history_mod
from servelint.install_pins import pin_from_installs
from servelint.model import Finding, LaunchSpec, Severity
from servelint.pipeline import argv_memo
from servelint.pipeline.launch_report import LaunchReport
from servelint.pipeline.options import Options
from servelint.release_floor import floor_below
from servelint.resolve import Resolution, resolve
from servelint.rules import registry
from servelint.rules.base import CheckContext, Scope


def _apply_options(spec: LaunchSpec, options: Options) -> None:
    if spec.image is None and options.image:
        spec.image = options.image
    if spec.release is None and options.engine:
        engine, _, version = options.engine.partition("==")
        if engine == spec.engine and version:
            spec.release = version
    if spec.gpu is None and options.gpu:
        spec.gpu = options.gpu
    pin_from_installs(spec)  # `pip install vllm==X`, a versioned wheel index


def _is_custom_image(spec: LaunchSpec, prof) -> bool:
    if not spec.image:
        return False
    from servelint.resolve import image_ref

    ref = image_ref(spec.image)
    official = prof.image.get("repository")
    return not official or not ref.repository or ref.repository != official


def _dynamo_launch(spec: LaunchSpec):
    """servelint.engines.dynamo.launch for a Dynamo worker launch (a Dynamo worker: the
    engine half is judged from here), else None: other launches do not import it."""
    from servelint.engines.dynamo.entrypoints import WORKER_MODULES

    if spec.entrypoint not in WORKER_MODULES:
        return None
    from servelint.engines.dynamo import launch

    return launch


def check_spec(spec: LaunchSpec, options: Options) -> tuple[list[Finding], LaunchReport]:
    """Findings of one launch over the releases it can meet (``servelint.ranges``), the same
    for every output format, and its report (``works_on`` only for JSON / ``--works-on``)."""
    from servelint import works_on as works_on_mod

    dynamo_launch = _dynamo_launch(spec)
    spec, worker = dynamo_launch.adapt(spec) if dynamo_launch else (spec, None)
    passes = _Verdicts()  # the range's verdict and works-on ask about the same releases
    res = _resolution(spec, options)
    rng = None
    # --target-version bumps its own engine's launches; the others keep their range
    if not options.target_version or options.target_version.partition("==")[0] != spec.engine:
        rng, res = ranges.release_range(spec, res)
    report = LaunchReport(
        spec, [f"{t.profile.label} ({t.how})" for t in res.targets if t.role == "primary"]
    )
    # a Dynamo entrypoint with no engine behind it (the frontend): no engine rules
    engineless = worker is not None and worker.worker in dynamo_launch.NO_ENGINE_ARGV
    run = options if rng is None else _uncapped(options)
    routed: list[Finding] = []  # errors of a parser the model may not pick (sglang serve)
    out = [] if engineless else list(_findings(spec, run, res, routed))
    if worker is not None:  # what a worker hands the engine without argv (dynamo.trtllm)
        out += dynamo_launch.engine_file_findings(
            spec, worker.worker, res, run.cap_guesses, _is_custom_image
        )
    if rng is not None and ranges.has_error_on(out, rng.today):
        passes.prefer = frozenset(f.code for f in out if f.severity == Severity.ERROR)
        ranges.judge(out, rng, ranges.range_works(spec, rng, passes))
    for f in routed:  # after the range verdict, which keeps its own note
        f.severity = min(f.severity, Severity.WARNING)
    if rng is not None:
        ranges.mark_guess(out, rng)
    below = floor_below(spec, res)
    if below is not None:
        out.append(below)
    if worker is not None:
        primary = [t.profile for t in res.targets if t.role == "primary"]
        out += dynamo_launch.findings(worker, primary)
        report.judged += [f"dynamo {t.version} ({t.how})" for t in worker.targets]
    if spec.origin == "srt-slurm":
        from servelint.sources.srt_slurm.reader import cap_srtctl_added

        cap_srtctl_added(spec, out)
    if options.works_on:  # JSON's launch summary, --works-on
        report.works_on = works_on_mod.works_on(spec, passes, exhaustive=options.works_on == "all")
    report.errors = sum(1 for f in out if f.severity == Severity.ERROR)
    return out, report


_UNCAPPED: list[tuple[Options, Options]] = []  # the last run's (options, uncapped copy)


def _uncapped(options: Options) -> Options:
    """``options`` without the cap on guessed releases (``ranges.judge`` sets severities)."""
    if not _UNCAPPED or _UNCAPPED[0][0] is not options:
        _UNCAPPED[:] = [(options, replace(options, cap_guesses=False))]
    return _UNCAPPED[0][1]


def _resolution(spec: LaunchSpec, options: Options) -> Resolution:
    _apply_options(spec, options)
    # a config that maps images to releases (else None: resolutions are then memoised)
    image_map = options.config.image_release if getattr(options.config, "images", None) else None
    target = options.target_version.partition("==")[2] if options.target_version else None
    if options.target_version and options.target_version.partition("==")[0] != spec.engine:
        target = None
    return resolve(spec, target_version=target, image_map=image_map)


def _findings(
    spec: LaunchSpec,
    options: Options,
    res: Resolution,
    routed: list[Finding] | None = None,
    only: frozenset[str] | None = None,
    prefer: frozenset[str] = frozenset(),
) -> Iterator[Finding]:
    hist = history_mod.load(spec.engine)
    notes_rules, primary_rules = _rules_for(options.errors_only, only, prefer)
    primary = [t for t in res.targets if t.role == "primary"]
    # release-independent rules (resolution notes, runtime installs) run once per launch,
    # on the first primary release's parse (the argv memo's entry)
    if notes_rules:
        ctx = _context(spec, primary[0].profile if primary else None, hist, res, floating=True)
        for rule in notes_rules:
            yield from rule.check(ctx)
    cap = res.capped and options.cap_guesses
    for tgt in primary:
        ctx = _context(spec, tgt.profile, hist, res, floating=tgt.floating)
        ctx.extra["custom_image"] = _is_custom_image(spec, tgt.profile)
        ctx.how = tgt.how
        routing = getattr(ctx.parsed, "routing", "")
        for rule in primary_rules:
            found = argv_memo.findings(rule, ctx) if rule.scope is Scope.ARGV else rule.check(ctx)
            for f in found:
                # the entrypoint picks its parser from the model (sglang serve): the text
                # names both parsers; check_spec caps these at warning (``routed``)
                if routing and f.severity > Severity.WARNING:
                    f.message += f" ({routing})"
                    if routed is not None:
                        routed.append(f)
                # judged by a neighbouring release (release_range): every finding says so
                if tgt.floating and cap and (f.severity > Severity.WARNING or tgt.neighbour):
                    f.severity = min(f.severity, Severity.WARNING)
                    f.message += f" (release not pinned: {tgt.how})"
                yield f


def _rules_for(
    errors_only: bool, only: frozenset[str] | None, prefer: frozenset[str]
) -> tuple[tuple, tuple]:
    """``_rules_by_role``, cut to the rules named in ``only`` (per release only), those whose
    codes are in ``prefer`` first (a stable sort: the others keep their order)."""
    notes_rules, primary_rules = _rules_by_role(errors_only)
    if only is not None:
        notes_rules, primary_rules = (), tuple(r for r in primary_rules if r.name in only)
    if prefer:
        primary_rules = tuple(sorted(primary_rules, key=lambda r: r.code not in prefer))
    return notes_rules, primary_rules


def _rules_by_role(errors_only: bool = False) -> tuple[tuple, tuple]:
    """The rules run once per launch ("notes") and those run per release judged; with
    ``errors_only``, just the rules that can report an error."""
    return (
        registry.runnable(Scope.NOTES, errors_only=errors_only),
        registry.runnable(Scope.ARGV, Scope.LAUNCH, errors_only=errors_only),
    )


def _context(spec: LaunchSpec, prof, hist, res: Resolution, *, floating: bool) -> CheckContext:
    parsed = argv_memo.parse_spec(prof, spec) if prof is not None else None
    ctx = CheckContext(spec=spec, profile=prof, history=hist, parsed=parsed)  # type: ignore[arg-type]
    ctx.floating = floating
    ctx.extra.update({"notes": res.notes, "image_release": res.image_release, "floating": floating})
    return ctx


def launch_summary(lr: LaunchReport) -> dict[str, Any]:
    from servelint.budget import report_argv

    spec = lr.spec
    anchor = spec.anchor
    return {
        "path": spec.path,
        "line": anchor.line,
        "column": anchor.column,
        "engine": spec.engine,
        "entrypoint": spec.entrypoint,
        "rendering": spec.rendering,
        "image": spec.image,
        "gpu": spec.gpu,
        "judged_against": lr.judged,
        "errors": lr.errors,
        **report_argv([t.text for t in spec.argv]),  # at most 64 KiB (servelint.budget)
        "symbolic": [i for i, t in enumerate(spec.argv) if t.symbolic],
        **({"works_on": lr.works_on} if lr.works_on is not None else {}),
    }


def first_error(
    spec: LaunchSpec,
    version: str,
    only: frozenset[str] | None = None,
    prefer: frozenset[str] = frozenset(),
) -> Finding | None:
    """The first error the launch gets judged as if its image were bumped to ``version``
    (from the rules named in ``only``, when given; the rules whose codes are in ``prefer``
    run first)."""
    opts = Options(target_version=f"{spec.engine}=={version}", cap_guesses=False, errors_only=True)
    found = _findings(spec, opts, _resolution(spec, opts), only=only, prefer=prefer)
    return next((f for f in found if f.severity == Severity.ERROR), None)


class _Verdicts:
    """``passes_on`` for one launch, each release checked once. ``prefer``: the codes of the
    errors it got on the release it was judged against, whose rules are asked first (the
    same launch likely fails the same way on a neighbouring release; only whether it fails
    matters here)."""

    def __init__(self) -> None:
        self.seen: dict[str, bool] = {}
        self.prefer: frozenset[str] = frozenset()

    def __call__(self, spec: LaunchSpec, version: str) -> bool:
        if version not in self.seen:
            self.seen[version] = first_error(spec, version, prefer=self.prefer) is None
        return self.seen[version]


def passes_on(spec: LaunchSpec, version: str) -> bool:
    """Whether the launch (already checked: options applied) has no error judged as if its
    image were bumped to ``version``."""
    return first_error(spec, version) is None
