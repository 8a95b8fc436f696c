"""One launch -> its findings: options applied, releases resolved, rules run per release."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import servelint.pipeline.argv_memo as argv_memo
from servelint.engines import history as history_mod
from servelint.engines import registry as engine_registry
from servelint.engines.images import repository_of
from servelint.model import Finding, LaunchSpec, Severity, Span
from servelint.pipeline.launch_report import LaunchReport
from servelint.pipeline.options import Options
from servelint.releases import range_verdict, ranges, release_range
from servelint.releases import works_on as works_on_mod
from servelint.releases.release_floor import floor_below
from servelint.releases.resolve import Resolution
from servelint.releases.targets import releases_of, resolution
from servelint.rules import registry
from servelint.rules.base import CheckContext, Scope
from servelint.util.budget import report_argv


def _is_custom_image(spec: LaunchSpec, prof) -> bool:
    if not spec.image or prof.data.get("stored"):  # a profile built from the image itself
        return False
    repository = repository_of(spec.image)
    official = prof.image.get("repository")
    return not official or not repository or repository != official


def _adapter(spec: LaunchSpec):  # noqa: ANN202
    """The launch adapter of a wrapper whose entrypoint this launch is (a Dynamo worker: the
    engine half is judged from here, ``Engine.launch_adapter``), else None: other launches
    do not import it."""
    wrapper = engine_registry.adapter_for(spec.entrypoint)
    return wrapper.adapter() if wrapper is not None else None


def check_spec(
    spec: LaunchSpec, options: Options, shared: works_on_mod.SharedCandidates | None = None
) -> tuple[list[Finding], LaunchReport]:
    """Findings of one launch over the releases it can meet (``servelint.releases.ranges``), the same
    for every output format, and its report (``works_on`` only for JSON / ``--works-on``;
    ``shared``: what works-on worked out for the launches of the same file before)."""
    adapter = _adapter(spec)
    spec, worker = adapter.adapt(spec) if adapter else (spec, None)
    passes = _Verdicts()  # the range's verdict and works-on ask about the same releases
    releases = releases_of(spec, options)  # the one place releases are resolved
    res, rng = releases.resolution, releases.range
    report = LaunchReport(
        spec, [f"{t.profile.label} ({t.how})" for t in res.targets if t.role == "primary"]
    )
    # a wrapper entrypoint with no engine behind it (Dynamo's frontend): no engine rules
    engineless = worker is not None and adapter.engineless(worker)
    run = options if rng is None else _uncapped(options)
    routed: list[Finding] = []  # errors of a parser the model may not pick (sglang serve)
    out = [] if engineless else list(_findings(spec, run, res, routed))
    if worker is not None:  # what a wrapper hands the engine without argv (a file)
        if engineless and adapter.judges_file(worker):
            out += _notes(spec, run, res)  # the engine release its option file is judged on
        out += adapter.file_findings(spec, worker, res, run.cap_guesses, _is_custom_image)
    if rng is not None and range_verdict.has_error_on(out, rng.today):
        passes.prefer = frozenset(f.code for f in out if f.severity == Severity.ERROR)
        range_verdict.judge(out, rng, _works_of(spec, rng, passes, out))
    for f in routed:  # after the range verdict, which keeps its own note
        f.severity = min(f.severity, Severity.WARNING)
    if rng is not None:
        range_verdict.mark_guess(out, rng)
    below = floor_below(spec, res, first_error)
    if below is not None:
        out.append(below)
    if worker is not None:
        primary = [t.profile for t in res.targets if t.role == "primary"]
        out += adapter.findings(worker, primary)
        report.judged += adapter.judged(worker)
    _cap_tool_added(spec, out)
    # JSON's launch summary, --works-on (an engineless launch has no engine argv to parse)
    if options.works_on and not engineless:
        report.works_on = works_on_mod.works_on(
            spec, passes, exhaustive=options.works_on == "all", shared=shared
        )
    report.errors = sum(1 for f in out if f.severity == Severity.ERROR)
    return out, report


def _cap_tool_added(spec: LaunchSpec, findings: list[Finding]) -> None:
    """Errors on options a launcher tool adds (not spelled by the document) depend on the
    version of that tool, which the document does not pin: warnings, saying so. The reader
    names the places (``context["tool_added_at"]``: "line:column;…") and the note."""
    added = spec.context.get("tool_added_at")
    if not added:
        return
    places = {tuple(int(x) for x in p.split(":")) for p in added.split(";")}
    note = spec.context.get("tool_added_note", "")
    for f in findings:
        if (
            f.span.path == spec.path
            and (f.span.line, f.span.column) in places
            and f.severity > Severity.WARNING
        ):
            f.severity = Severity.WARNING
            f.message += f" ({note})"


_UNCAPPED: list[tuple[Options, Options]] = []  # the last run's (options, uncapped copy)


def _uncapped(options: Options) -> Options:
    """``options`` without the cap on guessed releases (``ranges.judge`` sets severities)."""
    if not _UNCAPPED or _UNCAPPED[0][0] is not options:
        _UNCAPPED[:] = [(options, replace(options, cap_guesses=False))]
    return _UNCAPPED[0][1]


def _findings(
    spec: LaunchSpec,
    options: Options,
    res: Resolution,
    routed: list[Finding] | None = None,
    only: frozenset[str] | None = None,
    prefer: frozenset[str] = frozenset(),
    key: argv_memo.ArgvKey | None = None,
) -> Iterator[Finding]:
    """``key``: the launch's ``argv_memo.argv_key``, when it is judged on several releases."""
    hist = history_mod.load(spec.engine)
    notes_rules, primary_rules = _rules_for(options.errors_only, only, prefer)
    primary = [t for t in res.targets if t.role == "primary"]
    # release-independent rules (resolution notes, runtime installs) run once per launch,
    # on the first primary release's parse (the argv memo's entry)
    if notes_rules:
        ctx = _context(spec, primary[0].profile if primary else None, hist, res, floating=True,
                       key=key)
        for rule in notes_rules:
            yield from rule.check(ctx)
    cap = res.capped and options.cap_guesses
    for tgt in primary:
        ctx = _context(spec, tgt.profile, hist, res, floating=tgt.floating, key=key)
        custom = ctx.extra["custom_image"] = _is_custom_image(spec, tgt.profile)
        ctx.extra["bumped"] = tgt.bumped
        ctx.how = tgt.how
        # an older profile judging a newer release: names it lacks may be new (release_range)
        newer = release_range.judges_newer(tgt.neighbour)
        ctx.extra["judges_newer"] = newer
        routing = getattr(ctx.parsed, "routing", "")
        for rule in primary_rules:
            if newer and rule.name in release_range.UNKNOWN_NAME_RULES:
                continue
            found = argv_memo.findings(rule, ctx) if rule.scope is Scope.ARGV else rule.check(ctx)
            for f in found:
                # the entrypoint picks its parser from the model (sglang serve): the text
                # names both parsers; check_spec caps these at warning (``routed``)
                if routing and f.severity > Severity.WARNING:
                    f.message += f" ({routing})"
                    if routed is not None:
                        routed.append(f)
                # judged by a neighbouring release (release_range): every finding says so
                if tgt.floating and cap and (
                    f.severity > Severity.WARNING or tgt.neighbour or tgt.tagged
                ):
                    f.severity = min(f.severity, Severity.WARNING)
                    lead = "" if tgt.tagged else "release not pinned: "  # (how says a guess)
                    f.message += f" ({lead}{tgt.how})"
                # a build that is not the engine's own image judged at a guessed release (a
                # recipe's floor): what it holds (a fork, a plugin) is unknown, so a fact of
                # the guessed release is a hint only (not when its release is known and only
                # its profile is missing: a neighbour judges it, above; nor when its own tag
                # names the release: each finding names it, above)
                if custom and tgt.floating and cap and not tgt.neighbour \
                        and not tgt.tagged and f.severity == Severity.WARNING:
                    f.severity = Severity.INFO
                    f.message += f" ({spec.image} is not an official {spec.engine} image)"
                yield f


def _notes(spec: LaunchSpec, options: Options, res: Resolution) -> list[Finding]:
    """The once-per-launch notes (how the release was resolved) alone."""
    notes_rules, _ = _rules_by_role(options.errors_only)
    primary = [t for t in res.targets if t.role == "primary"]
    if not notes_rules or not primary:
        return []
    hist = history_mod.load(spec.engine)
    ctx = _context(spec, primary[0].profile, hist, res, floating=True)
    return [f for rule in notes_rules for f in rule.check(ctx)]


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


def _context(
    spec: LaunchSpec, prof, hist, res: Resolution, *, floating: bool,
    key: argv_memo.ArgvKey | None = None,
) -> CheckContext:
    parsed = argv_memo.parse_spec(prof, spec, key) if prof is not None else None
    ctx = CheckContext(spec=spec, profile=prof, history=hist, parsed=parsed)  # type: ignore[arg-type]
    ctx.floating = floating
    ctx.extra.update({"notes": res.notes, "image_release": res.image_release, "floating": floating})
    return ctx


def launch_summary(lr: LaunchReport) -> dict[str, Any]:
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
        **report_argv([t.text for t in spec.argv]),  # at most 64 KiB (servelint.util.budget)
        "symbolic": [i for i, t in enumerate(spec.argv) if t.symbolic],
        **({"works_on": lr.works_on} if lr.works_on is not None else {}),
    }


def first_error(
    spec: LaunchSpec,
    version: str,
    only: frozenset[str] | None = None,
    prefer: frozenset[str] = frozenset(),
    key: argv_memo.ArgvKey | None = None,
) -> Finding | None:
    """The first error the launch gets judged as if its image were bumped to ``version``
    (from the rules named in ``only``, when given; the rules whose codes are in ``prefer``
    run first; ``key``: the launch's ``argv_memo.argv_key``)."""
    opts = Options(cap_guesses=False, errors_only=True)
    found = _findings(spec, opts, resolution(spec, opts, version), only=only, prefer=prefer,
                      key=key)
    return next((f for f in found if f.severity == Severity.ERROR), None)


# errors of one launch judged each on the releases where it holds; past this many, every
# release would be re-judged with all of them (a launch with 300 unknown flags, called 100
# times: minutes), so they share the launch's own releases, as one cause's verdict did before
PER_FINDING_VERDICTS = 16


def _works_of(
    spec: LaunchSpec, rng: ranges.ReleaseRange, verdicts: _Verdicts, out: list[Finding]
) -> Any:
    errors = sum(f.severity == Severity.ERROR and f.release == rng.today for f in out)
    if errors <= PER_FINDING_VERDICTS:
        return lambda f: _finding_works(spec, rng, verdicts, f)
    whole = range_verdict.range_works(spec, rng, verdicts)
    return lambda f: whole


def _finding_works(
    spec: LaunchSpec, rng: ranges.ReleaseRange, verdicts: _Verdicts, f: Finding
) -> dict[str, Any]:
    """The range's first and last release without an error in the option of ``f`` (by any
    rule: a backend a release lacks fails there as an unknown value or flag, not on
    hardware)."""
    places = _option_places(spec, f.span)

    def absent(_spec: LaunchSpec, version: str) -> bool:
        return places.isdisjoint(verdicts.errors_of(spec, version))

    return range_verdict.range_works(spec, rng, absent, prune=False)


def _place(span: Span) -> tuple[str, int, int]:
    return (span.path, span.line, span.column)


def _option_places(spec: LaunchSpec, span: Span) -> frozenset[tuple[str, int, int]]:
    """The places of the argv tokens of the option ``span`` is in (its flag and values),
    else ``span``'s own."""
    argv = spec.argv
    at = next((i for i, t in enumerate(argv) if t.span and _place(t.span) == _place(span)), None)
    if at is None:
        return frozenset({_place(span)})
    start = at
    while start > 0 and not argv[start].text.startswith("-"):
        start -= 1
    if not argv[start].text.startswith("-"):
        start = at  # a positional before any flag (the model)
    end = at + 1
    while end < len(argv) and not argv[end].text.startswith("-"):
        end += 1
    return frozenset(_place(t.span) for t in argv[start:end] if t.span)


@dataclass(slots=True, eq=False)
class _Verdicts:
    """``passes_on`` for one launch, each release checked once. ``prefer``: the codes of the
    errors it got on the release it was judged against, whose rules are asked first (the
    same launch likely fails the same way on a neighbouring release; only whether it fails
    matters here)."""

    seen: dict[str, bool] = field(default_factory=dict)
    prefer: frozenset[str] = frozenset()
    places: dict[str, frozenset[tuple[str, int, int]]] = field(default_factory=dict)
    key: argv_memo.ArgvKey | None = None  # the launch's, read at the first verdict

    def _key(self, spec: LaunchSpec) -> argv_memo.ArgvKey:
        if self.key is None:
            self.key = argv_memo.argv_key(spec, spec.engine)
        return self.key

    def errors_of(self, spec: LaunchSpec, version: str) -> frozenset[tuple[str, int, int]]:
        """The places of the errors found as if the image were bumped to ``version``."""
        key = version
        if key not in self.places:
            if self.seen.get(version):  # it passes there: no error, no place
                return frozenset()
            opts = Options(
                target_version=f"{spec.engine}=={version}", cap_guesses=False, errors_only=True
            )
            found = _findings(spec, opts, resolution(spec, opts), key=self._key(spec))
            self.places[key] = frozenset(
                _place(e.span) for e in found if e.severity == Severity.ERROR
            )
        return self.places[key]

    def __call__(self, spec: LaunchSpec, version: str) -> bool:
        if version not in self.seen:
            if version in self.places:  # the same check, its errors' places known
                self.seen[version] = not self.places[version]
                return self.seen[version]
            found = first_error(spec, version, prefer=self.prefer, key=self._key(spec))
            self.seen[version] = found is None
        return self.seen[version]


def passes_on(spec: LaunchSpec, version: str) -> bool:
    """Whether the launch (already checked: options applied) has no error judged as if its
    image were bumped to ``version``."""
    return first_error(spec, version) is None
