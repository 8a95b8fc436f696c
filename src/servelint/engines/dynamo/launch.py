"""A Dynamo worker launch: the engine half for the engine's rules, the Dynamo half judged
here against the ai-dynamo release (:mod:`servelint.rules.dynamo_worker`).

The Dynamo engine's ``launch_adapter``: ``servelint.pipeline.judge`` calls ``adapt`` for a
launch whose entrypoint is one of ``Engine.adapted_entrypoints``, then ``engineless``,
``file_findings``, ``findings`` and ``judged`` on what it returned, naming no engine."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from servelint import profiles
from servelint.engines.dynamo import engine_file
from servelint.engines.dynamo.entrypoints import WORKER_MODULES
from servelint.engines.dynamo.worker import (
    ENGINE_OPTION_SOURCES,
    Split,
    Target,
    split_argv,
    takes_values,
)
from servelint.engines.dynamo.worker import targets as dynamo_targets
from servelint.model import Finding, LaunchSpec, Severity, Token
from servelint.rules import dynamo_worker as rule

# the worker's engine option file, judged against the engine release (dynamo.trtllm)
engine_file_findings = engine_file.findings
# entrypoints with no engine behind them: nothing of their argv reaches an engine parser
NO_ENGINE_ARGV = {"frontend", "trtllm"}


@dataclass(slots=True)
class WorkerLaunch:
    """A Dynamo worker launch: its spec, the ai-dynamo releases it can meet and how each splits its argv."""

    spec: LaunchSpec  # as written: Dynamo and engine options together
    worker: str
    targets: list[Target]
    splits: dict[str, Split] = field(default_factory=dict)  # dynamo version -> split
    consumed: set[int] = field(default_factory=set)  # tokens some release's parser takes
    notes: list[str] = field(default_factory=list)


def adapt(spec: LaunchSpec) -> tuple[LaunchSpec, WorkerLaunch | None]:
    """-> (the launch the engine's rules judge, the worker facts) for a Dynamo worker."""
    worker = WORKER_MODULES.get(spec.entrypoint)
    if worker is None:
        return spec, None
    tgts = dynamo_targets(
        spec.context.get("dynamo_release"),
        spec.context.get("dynamo_release_how", "Dynamo release"),
        spec.image,
    )
    if spec.context.get("dynamo_release_how", "").startswith("srtctl's default"):
        # the default differs between srtctl versions, which the recipe does not pin
        for t in tgts:
            t.certain = False
    wl = WorkerLaunch(spec, worker, tgts)
    for t in tgts:
        prof = profiles.load("dynamo", t.version)
        w = prof.data.get("workers", {}).get(worker) if prof else None
        if w is None:
            wl.notes.append(
                f"ai-dynamo {t.version} has no dynamo.{worker} parser servelint "
                "could read: its own options are not checked"
            )
            continue
        split = split_argv(w, spec.argv)
        wl.splits[t.version] = split
        wl.consumed.update(i for i, _, _ in split.dynamo)
    if not wl.splits or not any(t.certain for t in tgts):
        # no readable worker, or a release not known: an option some release's worker
        # defines is the worker's (it reaches the engine on none of those releases)
        for v in profiles.available("dynamo"):
            w = profiles.load("dynamo", v).data.get("workers", {}).get(worker)
            if w:
                wl.consumed.update(i for i, _, _ in split_argv(w, spec.argv).dynamo)
    argv = (
        []
        if worker in NO_ENGINE_ARGV
        else [t for i, t in enumerate(spec.argv) if i not in wl.consumed]
    )
    if worker == "vllm":
        argv = _model_first(argv)
    return replace(spec, argv=argv, context=dict(spec.context)), wl


def _model_first(argv: list[Token]) -> list[Token]:
    """The vLLM worker hands vLLM's engine arguments to a parser whose argv never starts with
    ``serve``, so ``--model X`` is an option there (FlexibleArgumentParser refuses it only
    after ``serve``, and the last one given wins); the engine's argv model parses ``vllm
    serve``'s argv, where the model is the positional: the last ``--model X`` is given to it
    as that positional and the others are dropped."""
    rest: list[Token] = []
    model: Token | None = None
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.text == "--model" and i + 1 < len(argv):
            model, i = argv[i + 1], i + 2
            continue
        if tok.text.startswith("--model="):
            model = Token(tok.text[len("--model="):], tok.span, tok.symbolic)
        else:
            rest.append(tok)
        i += 1
    return argv if model is None else [model, *rest]


def engineless(wl: WorkerLaunch) -> bool:
    """A Dynamo entrypoint with no engine behind it (the frontend): no engine rules."""
    return wl.worker in NO_ENGINE_ARGV


def judges_file(wl: WorkerLaunch) -> bool:
    """The worker hands the engine a file that is judged against the engine release."""
    return wl.worker == engine_file.WORKER


def file_findings(spec: LaunchSpec, wl: WorkerLaunch, res, cap_guesses: bool, custom_image):  # noqa: ANN001, ANN201
    """What a worker hands the engine without argv (dynamo.trtllm's option file)."""
    return engine_file_findings(spec, wl.worker, res, cap_guesses, custom_image)


def judged(wl: WorkerLaunch) -> list[str]:
    """The ai-dynamo releases judged, for the launch report."""
    return [f"dynamo {t.version} ({t.how})" for t in wl.targets]


def findings(wl: WorkerLaunch, engine_profiles: list) -> list[Finding]:
    """Worker-level findings over every ai-dynamo release the launch can meet."""
    per: dict[tuple, list[tuple[Target, Finding]]] = {}
    for t in wl.targets:
        split = wl.splits.get(t.version)
        if split is None:
            continue
        prof = profiles.load("dynamo", t.version)
        w = prof.data["workers"][wl.worker]
        for f in (
            _choice_findings(wl, split, t)
            + _explicit_value_findings(wl, split, t)
            + _abbrev_findings(wl, split, t)
            + _engine_scope_findings(wl, split, t, w, engine_profiles)
            + _leftover_findings(wl, split, t, w)
        ):
            per.setdefault(
                (f.span.line, f.span.column, f.message.split(" in ai-dynamo")[0]), []
            ).append((t, f))
    out = []
    for hits in per.values():
        t, f = hits[0]
        everywhere = len(hits) == len([x for x in wl.targets if x.version in wl.splits])
        if not (t.certain or (everywhere and len(wl.targets) > 1)):
            f.severity = min(f.severity, Severity.WARNING)
        if len(hits) > 1:
            f.message += " (holds on " + ", ".join(h[0].version for h in hits) + ")"
        f.message += f"; Dynamo release: {t.how}"
        out.append(f)
    return out


def _finding(
    wl: WorkerLaunch,
    i: int,
    message: str,
    evidence: str,
    t: Target,
    severity: Severity = Severity.ERROR,
    fix: str = "",
) -> Finding:
    tok = wl.spec.argv[i]
    return Finding(
        rule=rule.NAME,
        code=rule.CODE,
        severity=severity,
        message=message,
        span=tok.span or wl.spec.anchor,
        engine="dynamo",
        release=t.version,
        renderings=[wl.spec.rendering] if wl.spec.rendering else [],
        evidence=evidence,
        fix=fix or "drop the option or use the worker's spelling",
    )


def _choice_findings(wl: WorkerLaunch, split: Split, t: Target) -> list[Finding]:
    out = []
    taken = {i: (a, how) for i, a, how in split.dynamo}
    for i, action, how in split.dynamo:
        if how == "value" or not action.get("choices"):
            continue
        text = wl.spec.argv[i].text
        vi = i + 1 if "=" not in text else i
        value = (
            text.partition("=")[2]
            if "=" in text
            else (wl.spec.argv[vi].text if vi in taken and taken[vi][1] == "value" else None)
        )
        if value is None or wl.spec.argv[vi].symbolic or value in action["choices"]:
            continue
        out.append(
            _finding(
                wl,
                vi,
                f"dynamo.{wl.worker} rejects {action['option_strings'][0]} {value!r} in "
                f"ai-dynamo {t.version}: choose from {', '.join(action['choices'])}",
                action.get("source", ""),
                t,
            )
        )
    return out


def _explicit_value_findings(wl: WorkerLaunch, split: Split, t: Target) -> list[Finding]:
    """``--flag=value`` on a worker option that takes no value: argparse exits with
    'ignored explicit argument'."""
    out = []
    for i, action, how in split.dynamo:
        tok = wl.spec.argv[i]
        if how == "value" or "=" not in tok.text or tok.symbolic or takes_values(action) != 0:
            continue
        name, _, value = tok.text.partition("=")
        out.append(
            _finding(
                wl,
                i,
                f"dynamo.{wl.worker} rejects {name}={value!r} in ai-dynamo {t.version}: "
                f"{name} takes no value (argparse: ignored explicit "
                "argument)",
                action.get("source", ""),
                t,
                fix=f"write {name} alone",
            )
        )
    return out


def _abbrev_findings(wl: WorkerLaunch, split: Split, t: Target) -> list[Finding]:
    out = []
    for i, action, how in split.dynamo:
        if how.startswith("abbreviation of"):
            name = wl.spec.argv[i].text.partition("=")[0]
            out.append(
                _finding(
                    wl,
                    i,
                    f"{name} is taken by the dynamo.{wl.worker} parser as an {how} in "
                    f"ai-dynamo {t.version} (its allow_abbrev is on): the engine never sees it",
                    action.get("source", ""),
                    t,
                    Severity.WARNING,
                    fix="spell the engine option in full, or use the Dynamo option's own name",
                )
            )
    return out


def _engine_options(wl: WorkerLaunch, split: Split) -> Iterator[tuple[int, Token]]:
    """(index, token) of the literal ``--`` options the worker leaves to the engine."""
    for i in split.engine:
        tok = wl.spec.argv[i]
        if not tok.symbolic and tok.text.startswith("--"):
            yield i, tok


def _engine_scope_findings(
    wl: WorkerLaunch, split: Split, t: Target, w: dict, engine_profiles: list
) -> list[Finding]:
    """vLLM options the worker's AsyncEngineArgs-only parser does not have."""
    sources = ENGINE_OPTION_SOURCES.get(w.get("engine_parser") or "")
    if not sources or not engine_profiles:
        return []
    out = []
    for i, tok in _engine_options(wl, split):
        name = tok.text.partition("=")[0]
        head, dot, rest = name.partition(".")
        norm = "--" + head[2:].replace("_", "-") + dot + rest
        for prof in engine_profiles:
            act = prof.option_index.get(norm) or prof.option_index.get(head.replace("_", "-"))
            src = (act.raw.get("source") or "") if act else ""
            if act is None or not src or src.startswith(sources) or src == "argparse":
                continue
            out.append(
                _finding(
                    wl,
                    i,
                    f"{prof.engine} serve accepts {name} ({prof.label}, {src}) but "
                    f"dynamo.{wl.worker} does not in ai-dynamo {t.version}: it gives the engine "
                    f"a parser of AsyncEngineArgs.add_cli_args only ({w.get('engine_parser_source')})"
                    " and exits with 'unrecognized arguments'",
                    f"{w.get('engine_parser_source')}; {prof.label} {src}",
                    t,
                )
            )
            break
    return out


def _leftover_findings(wl: WorkerLaunch, split: Split, t: Target, w: dict) -> list[Finding]:
    """``dynamo.frontend`` exits on arguments its own parser leaves over, unless
    ``--chat-processor`` hands them to an engine's parser."""
    where = w.get("rest_rejected_at")
    if wl.worker != "frontend" or not where:
        return []
    if any(
        a["option_strings"][0] == "--chat-processor" for _, a, how in split.dynamo if how != "value"
    ):
        return []
    out = []
    for i, tok in _engine_options(wl, split):
        out.append(
            _finding(
                wl,
                i,
                f"dynamo.frontend has no option {tok.text.partition('=')[0]} in ai-dynamo "
                f"{t.version}: it exits on arguments its parser leaves over ({where})",
                where,
                t,
            )
        )
    return out
