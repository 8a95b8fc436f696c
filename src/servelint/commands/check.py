"""``servelint check PATH…``: check recipes, launchers, benchmark configs and guides."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from servelint import reporters
from servelint.check import CheckReport, Options, check_paths, read_text
from servelint.commands.stdin_input import STDIN_PATH, StdinFile, UnknownKind
from servelint.engines.images import resolve_image
from servelint.model import Finding, Severity
from servelint.pipeline import config as config_mod
from servelint.pipeline import counted_files
from servelint.pipeline.condense import one_finding_per_cause
from servelint.pipeline.problems import problem_finding
from servelint.pipeline.progress import progress_for
from servelint.pipeline.selection import Selection
from servelint.profiles import store
from servelint.reporters import default_format
from servelint.reporters.json_out import item_value
from servelint.reporters.report_file import ReportFile, ReportFileError, guarded_stdout, refuse
from servelint.reporters.text import TextView, render_works_on
from servelint.rules.registry import catalogue
from servelint.sources.common import overlay
from servelint.sources.common.problems import ReadProblem
from servelint.util import cli_values

FORMATS = ["text", "json", "sarif", "github"]
ALWAYS_SHOWN = frozenset({"SL001"})  # read-error: a file named but not read


class UsageError(Exception):
    """A value on the command line that cannot be used: exit 2 with this one line."""


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="recipe .yaml, launcher .sh, InferenceX checkout or master config, "
                        "Markdown guide, or a folder of them; - reads standard input")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: text, or github under GitHub Actions)")
    p.add_argument("--image", help="image for launches that name none (e.g. "
                                   "vllm/vllm-openai:v0.21.0)")
    p.add_argument("--engine", metavar="ENGINE==VERSION",
                   help="release for launches that name no image, e.g. vllm==0.21.0")
    p.add_argument("--gpu", help="GPU the launches run on (h100, h200, b200, b300, mi355x, …)")
    p.add_argument("--target-version", metavar="ENGINE==VERSION",
                   help="judge every launch as if its image were bumped to this release")
    p.add_argument("--select", action="append", metavar="RULES",
                   help="report only these rules (codes, code prefixes such as SL1, or names; "
                        "comma-separated or repeated)")
    p.add_argument("--ignore", action="append", metavar="RULES",
                   help="do not report these rules (same spellings as --select)")
    p.add_argument("--min-severity", choices=["info", "warning", "error"], default=None,
                   help="report only findings at or above this severity")
    p.add_argument("--show-info", action="store_true",
                   help="text output: also show info findings (hidden by default)")
    p.add_argument("--fail-on", choices=["error", "warning"], default="error",
                   help="exit 1 when a reported finding is at least this severe "
                        "(default: error)")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="print findings only: no summary, no progress")
    p.add_argument("--statistics", action="store_true",
                   help="text output: count findings per rule instead of listing them")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                   help="color in text output (auto: on a terminal, unless NO_COLOR is set)")
    p.add_argument("--stdin-filename", metavar="NAME",
                   help="with PATH -: the name (and so the file kind) of the text on stdin")
    p.add_argument("--online", action="store_true",
                   help="add package registry metadata to runtime-install findings "
                        "(the only option that uses the network; cached)")
    p.add_argument("--no-ignores", action="store_true", help="disregard inline ignore comments")
    p.add_argument("--config", type=Path, help="config file (default: .servelint.toml or "
                                               "[tool.servelint] in pyproject.toml, found "
                                               "upwards from the first path)")
    p.add_argument("--works-on", action="store_true",
                   help="check each launch on every release and count those it passes on "
                        "(JSON output gives the first and last release without it)")
    p.add_argument("--output", "-o", type=Path, help="write the report to a file")
    p.add_argument("--profiles-dir", type=Path, metavar="DIR",
                   help="the store of profiles built from images (default: "
                   "$SERVELINT_PROFILES, else the XDG data folder)")
    p.add_argument("--no-cache", action="store_true",
                   help="do not reuse results of unchanged files (cache in ~/.cache/servelint)")
    p.add_argument("--jobs", "-j", type=int, default=0,
                   help="worker processes (default: one per core; 1 = no workers)")
    p.add_argument("--fix", action="store_true",
                   help="apply safe fixes to the files, then report what remains")
    p.add_argument("--unsafe-fixes", action="store_true",
                   help="with --fix or --diff, also apply fixes that change what runs "
                        "(drop a flag or env var, bump an image)")
    p.add_argument("--diff", action="store_true",
                   help="print the fixes as a unified diff and write nothing "
                        "(exit 1 when there is something to fix)")
    p.set_defaults(func=run)


def _load_config(args: argparse.Namespace):
    if args.config:
        return config_mod.load_config_file(args.config)
    first = next((p for p in args.paths if p != "-"), None)
    return config_mod.load_config(Path(first) if first else Path.cwd())


def validate(args: argparse.Namespace) -> None:
    """Check every value like the config file checks its own; raise UsageError."""
    def checked(flag: str, check, value):
        try:
            return check(value)
        except ValueError as exc:
            raise UsageError(f"{flag}: {exc}") from None

    if args.engine:
        engine, version = checked("--engine", cli_values.release, args.engine)
        args.engine = f"{engine}=={version}"
    if args.target_version:  # a bare version is vLLM's, as in the config file
        engine, version = checked("--target-version", lambda v: cli_values.release(
            v, bare_engine="vllm"), args.target_version)
        args.target_version = f"{engine}=={version}"
    args.notes = []  # values accepted, with a word on stderr
    if args.image:
        note = checked("--image", cli_values.image, args.image)
        if note:
            args.notes.append(note)
    if args.gpu:
        args.gpu = checked("--gpu", cli_values.gpu, args.gpu)
    checked("-j/--jobs", cli_values.jobs, args.jobs)
    stdin_uses = args.paths.count("-")
    if stdin_uses > 1:
        raise UsageError("PATH: - (standard input) may be given once")
    if args.stdin_filename and not stdin_uses:
        raise UsageError("--stdin-filename needs - among the paths")
    if stdin_uses and (args.fix or args.diff):
        raise UsageError("--fix/--diff edit files: they cannot take - (standard input)")
    if args.output is not None:
        parent = args.output.parent
        if not parent.is_dir():
            raise UsageError(f"-o/--output: no directory {str(parent)!r} to write "
                             f"{args.output.name!r} in")
        try:  # a symlink, a folder, one of the inputs (it would be emptied before reading)
            refuse(args.output, args.paths)
        except ReportFileError as exc:
            raise UsageError(str(exc)) from None


def _selection(args: argparse.Namespace):
    try:
        return Selection.from_options(args.select, args.ignore, catalogue())
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _format(args: argparse.Namespace) -> str:
    if args.format is not None:
        return args.format
    return default_format(os.environ)


def run(args: argparse.Namespace) -> int:
    store.set_dir(args.profiles_dir)
    try:
        validate(args)
        selection = _selection(args)
        cfg = _load_config(args)
    except UsageError as exc:
        print(f"servelint: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # ConfigError and friends: a usage error
        print(f"servelint: config error: {exc}", file=sys.stderr)
        return 2
    fmt = _format(args)
    for note in args.notes:
        print(f"servelint: note: {note}", file=sys.stderr)
    try:  # a temporary file renamed over the output at the end (see report_file)
        report = ReportFile(args.output) if args.output else None
        try:
            out = report.stream if report else guarded_stdout(sys.stdout)
            code = _check_and_emit(args, cfg, selection, fmt, out)
            out.flush()
            if report:
                report.commit()
            return code
        finally:
            if report:
                report.discard()
    except ReportFileError as exc:  # (a full disk, a FIFO nobody reads)
        print(f"servelint: {exc}", file=sys.stderr)
        return 2


def _check_and_emit(args: argparse.Namespace, cfg, selection, fmt: str, out) -> int:
    try:
        stdin = StdinFile(sys.stdin, args.stdin_filename) if STDIN_PATH in args.paths else None
    except UnknownKind as exc:
        print(f"servelint: {exc}", file=sys.stderr)
        return 2
    paths = [stdin.path if (stdin and p == STDIN_PATH) else p for p in args.paths]
    target = args.target_version or getattr(cfg, "target_version", None)
    # the config's min-severity hides findings here, counted in the summary like the flag's
    config_floor = getattr(cfg, "min_severity", None)
    if config_floor:
        cfg.min_severity = None
    options = Options(image=args.image, engine=args.engine,
                      gpu=args.gpu or getattr(cfg, "gpu", None),
                      target_version=target, config=cfg, no_ignores=args.no_ignores,
                      works_on="all" if args.works_on else fmt == "json",
                      use_cache=not args.no_cache and stdin is None, jobs=args.jobs,
                      # --fix and --diff edit every place of a cause
                      one_per_cause=not (args.fix or args.diff))
    holder: list[CheckReport] = []

    def check(paths: list[str], texts: dict[str, str] | None = None) -> CheckReport:
        """``texts``: fixed texts standing in for files (--fix re-checks; the cache is not
        used for the units that read them)."""
        with overlay.stand_in(texts or {}), \
                progress_for(sys.stderr, enabled=not args.quiet and not texts) as tick:
            holder[:] = [check_paths(paths, options, on_done=tick)]
        return holder[0]

    def reported(findings: list[Finding]) -> list[Finding]:  # what --fix may fix
        floor = args.min_severity or config_floor
        kept = selection.apply(findings)
        return [f for f in kept if f.severity >= Severity.parse(floor)] if floor else kept

    try:
        if args.fix or args.diff:
            from servelint.fixes.cli import fix_command  # (--fix/--diff only: ~15 ms)

            done, fixed = fix_command(check, reported, args)
            if done is not None:
                return done
            # what is left, counted as a check of the written files counts it: the fix
            # session saw each place of a cause apart, to edit each
            fixed.findings = one_finding_per_cause(fixed.findings)
            holder[:] = [fixed]
        else:
            check(paths)
        report = holder[0]
        report.findings += no_launch_notes(report, paths)
        if args.target_version and not args.quiet:
            _say_target_reach(args.target_version, report)
        if args.image and not args.quiet:
            _say_image_reach(args.image, report)
        if stdin is not None:
            report.findings = stdin.rename(report.findings)
            report.files = [stdin.path_of(p) for p in report.files]
        findings = selection.apply(report.findings)
        if args.online:
            from servelint.pipeline.online import (
                annotate,  # (--online only: the network stack, ~40 ms)
            )

            annotate(findings)
        view = _view(args, fmt, findings, config_floor)
        emit(report, view.shown, fmt, out, view=view, read_source=_reader(stdin))
        if args.works_on and fmt == "text" and not args.quiet:
            render_works_on(report.launch_items(), out)
    finally:
        if stdin is not None:
            stdin.close()
    floor = Severity.parse(args.fail_on)
    return 1 if any(f.severity >= floor for f in view.shown) else 0


def _reader(stdin):
    if stdin is None:
        return read_text
    return lambda path: stdin.text if path == stdin.display else read_text(path)


def _view(args: argparse.Namespace, fmt: str, findings, config_floor: str | None = None):
    """What the report shows: findings below --min-severity (or the config's min-severity,
    or info in default text output) are counted as hidden, never silently dropped from the
    summary."""
    chosen = args.min_severity or config_floor
    floor = Severity.parse(chosen) if chosen else None
    reason = "--min-severity" if args.min_severity else "min-severity in the config"
    keep = _never_hidden if floor is None else (lambda f: False)
    # rules named with --select are shown whatever their severity (SL142 is an info)
    if floor is None and fmt == "text" and not args.show_info and not args.select:
        floor, reason = Severity.WARNING, "--show-info"
    shown = [f for f in findings if floor is None or f.severity >= floor or keep(f)]
    hidden = {sev: sum(1 for f in findings if f.severity == sev and not keep(f))
              for sev in Severity if floor is not None and sev < floor}
    color = {"always": True, "never": False}.get(args.color)
    return TextView(shown=shown, hidden={k: v for k, v in hidden.items() if v},
                    hidden_by=reason, quiet=args.quiet, statistics=args.statistics,
                    color=color)


def _never_hidden(finding: Finding) -> bool:
    """An info the default text output still shows: a file the user named that was not
    read (SL001: unknown kind, empty, not YAML, no launch), or a value given on the command
    line that servelint cannot use as given: never a silent pass."""
    return finding.code in ALWAYS_SHOWN


def _say_target_reach(target: str, report: CheckReport) -> None:
    """``--target-version ENGINE==X`` bumps that engine's launches only: say so when the
    launches checked are of other engines."""
    engine, _, version = target.partition("==")
    judged = {label.split()[0] for label in report.profiles_used}
    others = sorted(judged - {engine})
    if not others:
        return
    where = "no launch" if engine not in judged else "only the launches"
    print(f"servelint: note: --target-version {engine}=={version} applies to {engine} "
          f"launches; {where} checked here {'is' if where == 'no launch' else 'are'} "
          f"{engine}'s: the {', '.join(others)} launches were judged on their own releases",
          file=sys.stderr)


def _say_image_reach(image: str, report: CheckReport) -> None:
    """``--image`` of one engine given to launches that start another (an SGLang image for
    a ``vllm serve`` launcher): those launches are judged on no release (only a hidden
    info said so, and the run passed): say so."""
    engine = resolve_image(image).engine
    if engine == "unknown":
        return  # (said when the value was read: it names no engine image)
    others = sorted({item["engine"] for item in map(item_value, report.launch_items())
                     if item.get("image") == image and item.get("engine") != engine})
    if others:
        print(f'servelint: note: --image "{image}" is a {engine} image; the '
              f"{', '.join(others)} launches checked here start another engine, so no "
              "release of theirs was judged: give an image of their engine", file=sys.stderr)


def no_launch_notes(report: CheckReport, named: list[str]) -> list[Finding]:
    """One info line for each YAML file the user named that was read but holds no launch
    and gave no finding (a recipe without variants): it is not a silent pass."""
    wanted = {os.path.abspath(p) for p in named
              if Path(p).suffix.lower() in (".yaml", ".yml") and os.path.isfile(p)}
    spoken = {os.path.abspath(f.span.path) for f in report.findings}
    return [
        problem_finding(ReadProblem(u.path, None, "not checked: read, but it holds no launch "
                                    "(nothing servelint could judge)", "unsupported"))
        for u in report.units
        if os.path.abspath(u.path) in wanted and not u.launch_count
        and os.path.abspath(u.path) not in spoken
    ]


def files_counted(report: CheckReport) -> list[str]:
    """The files a user would count (``counted_files`` per unit), each once."""
    return list(dict.fromkeys(f for unit in report.units for f in counted_files(unit)))


def emit(report: CheckReport, findings, fmt: str, out, *, view=None, read_source=None) -> None:
    kwargs = {"stream": out, "files_checked": files_counted(report), "ignored": report.ignored,
              # the files the ignores already read: no second read
              "read_source": read_source or read_text,
              "profiles_used": report.profiles_used}
    if fmt == "json":  # only JSON lists the launches
        kwargs["extra"] = {"launches": report.launch_items(),
                           "stats": report.stats}
    if fmt == "text" and view is not None:
        view.kinds = report.stats.get("kinds", {})
        kwargs["view"] = view
        kwargs["color"] = view.color
    reporters.render(findings, fmt, **kwargs)
