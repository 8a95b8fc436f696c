"""Which validator conditions of the release (the profile's ``conditions``) a launch meets.

A config class gets its values two ways:

- a ``dataclass-json`` option (``--profiler-config '{…}'``, ``--profiler-config.profiler
  torch``): the keys the launch gives, the class defaults for the rest; pydantic runs the
  validators in the parser's ``type=``, so the launch fails at parse time;
- built by ``EngineArgs.create_engine_config`` from option dests (``ParallelConfig(
  enable_eplb=self.enable_eplb, …)``): each field the call passes as ``self.<dest>`` gets
  the launch's value of that dest (or the dest's default), fields the call does not pass
  get the class default; the launch fails when the engine config is built.

A value the launch does not decide is ``UNKNOWN``: a field the engine converts
(``converted``), changes before the check, passes as something else than a plain dest, or
whose default the source does not state. ``conditions.outcome`` decides a test only when
none of them matters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from servelint.engines.vllm.conditions import (
    UNKNOWN,
    Values,
    check_outcome,
    check_reads,
    outcome,
    reads,
    rendered,
    value_of,
)
from servelint.engines.vllm.field_coerce import coerce
from servelint.engines.vllm.launch_values import LaunchValues
from servelint.profiles import Profile

_MAX_DEPTH = 4


@dataclass(frozen=True, slots=True)
class ConditionFailure:
    """One validator condition of the release the launch makes true."""

    cls: str
    message: str
    source: str
    stage: str  # parse | engine_config
    test: str
    fields: tuple[str, ...]  # the option dests / config paths the failing test reads
    model: str = ""  # a model check: the engine raises only for models where this holds
    only_if: str = ""  # the failure holds only when this holds (model-dependent)
    guarded: bool = False  # the validators assign what the test reads, but not for these values
    env: tuple[str, ...] = ()  # env vars the test assumes unset (their registry default)
    assumes: tuple[str, ...] = ()  # calls before it hand the config to code not read


def failures(
    profile: Profile,
    options: list[Any],
    unknown: Callable[[Any], bool] = lambda opt: False,
    entry: str = "",
) -> tuple[ConditionFailure, ...]:
    """The validator conditions the launch's options make certainly true, parse-stage
    classes first (the order the engine meets them). ``unknown(option)``: the option's
    value is not known (a shell variable), so nothing that reads it is decided. ``entry``:
    the entrypoint's ``argv.ENTRIES`` name (``serve``: its namespace checks run first).
    The config classes' checks are memoised on the values of the dests they read, and
    each part of the checks (a class, the EngineArgs checks, the bounds, the namespace
    checks) on the values of its own dests (failures_memo.py)."""
    table = profile.data.get("conditions") or {}
    if not table or any(opt.canonical == "--config" for opt in options):
        return ()  # a --config file may set any option: nothing is decided by the argv alone
    from servelint.engines.vllm import failures_memo
    from servelint.engines.vllm.built_bounds import bound_failures
    from servelint.engines.vllm.serve_checks import serve_failures

    launch = LaunchValues(profile, options, unknown)
    served = tuple(serve_failures(profile, launch)) if entry == "serve" else ()
    classes = failures_memo.failures(profile, launch, _failures)
    bounds = tuple(bound_failures(profile, table, launch.given))
    return served + classes + bounds


def _failures(profile: Profile, launch: LaunchValues) -> Iterator[ConditionFailure]:
    table = profile.data.get("conditions") or {}
    given = launch.given
    built_classes, read = _index(profile, table)
    if any(opt.action is not None and opt.action.dest in read for opt in launch.options):
        payloads = launch.payloads
        for key in ("checks", "model_checks"):  # certain failures first
            yield from _class_failures(profile, table, built_classes, given, payloads, key)
        from servelint.engines.vllm.from_dict_checks import from_dict_failures

        yield from from_dict_failures(profile, table, launch)
    from servelint.engines.vllm.engine_args_checks import engine_args_failures

    yield from engine_args_failures(profile, table, given)


def _class_failures(
    profile: Profile,
    table: dict[str, Any],
    built_classes: list[tuple[str, Any]],
    given: dict[str, Any],
    payloads: dict[str, Any],
    key: str,
) -> Iterator[ConditionFailure]:
    for dest, payload in payloads.items():
        cls = profile.by_dest[dest].raw.get("json_dataclass")
        if (table.get(cls) or {}).get(key) and isinstance(payload, dict):
            values = _json_values(profile, table, cls, payload, 0, own=True)
            base = _base(table, ("json", cls), _json_values, profile, table, cls, {}, 0, own=True)
            yield from _failing(table, cls, values, "parse", f"{dest}.", key, base)
    from servelint.engines.vllm.failures_memo import part_failures

    def built_failures(cls: str, built: dict[str, Any]) -> Iterator[ConditionFailure]:
        values = _built_values(profile, table, cls, built, given, payloads)
        if values is not None:
            base = _base(
                table, ("built", cls), _built_values, profile, table, cls, built, {}, {}, force=True
            )
            yield from _failing(table, cls, values, "engine_config", "", key, base, "built")

    for cls, built in built_classes:
        dests = _dests_of(built)
        if not (table.get(cls) or {}).get(key) or (
            dests.isdisjoint(given) and dests.isdisjoint(payloads)
        ):
            continue  # the release's defaults, which pass its own validators
        yield from part_failures(
            table, ("built", cls, key), dests, (given, payloads),
            lambda c=cls, b=built: built_failures(c, b),
        )


# per profile conditions table, the one memo of what depends on the release alone: the index
# of built classes and read dests, the object each class is built as from the defaults alone
# and each test's outcome on it (a test reading only fields equal to those has the same
# outcome), and each computed argument's value over the defaults
_BASES: dict[int, tuple[dict[str, Any], dict[tuple[str, str], Any]]] = {}


def _table_cache(table: dict[str, Any]) -> dict[tuple[str, str], Any]:
    hit = _BASES.get(id(table))
    if hit is None or hit[0] is not table:
        if len(_BASES) > 64:
            _BASES.clear()
        hit = _BASES[id(table)] = (table, {})
    return hit[1]


def per_release(table: dict[str, Any], key: tuple[str, str], compute: Callable[[], Any]) -> Any:
    """``compute()`` once per release: what depends on the release alone, kept in its
    conditions table's memo under ``key``."""
    cache = _table_cache(table)
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _base(
    table: dict[str, Any], key: tuple[str, str], build: Callable[..., Values | None], *args: Any,
    **kwargs: Any,
) -> tuple[Any, dict[str, Any]] | None:
    base = per_release(table, key, lambda: (build(*args, **kwargs), {}))
    return base if base[0] is not None else None


_PLAIN = (str, int, float, bool, tuple, list, dict, frozenset, set, type(None))


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and type(a) in _PLAIN and a == b)


def _base_outcome(
    check: dict[str, Any], values: Values, base: tuple[Any, dict[str, Any]] | None, kind: str
) -> Any:
    """The check's outcome on the defaults' object of ``kind`` ("json": the class from an
    empty dict, "built": as create_engine_config builds it from the defaults) when ``values``
    agrees with it on every field the test reads (``False`` when it does not, or there is
    no such object). The builder stores these outcomes (``on_defaults``)."""
    if base is None:
        return False
    obj, outcomes = base
    fields = check_reads(check)
    if not all(_same(values.fields.get(f, UNKNOWN), obj.fields.get(f, UNKNOWN)) for f in fields):
        return False
    stored = check.get("on_defaults")
    if stored is not None and kind in stored:
        return stored[kind]
    test = check["test"]
    if test not in outcomes:
        outcomes[test] = outcome(test, obj)
    return outcomes[test]


def assigned_dests(table: dict[str, Any]) -> frozenset[str]:
    """The dests the entrypoint assigns before the engine config is built (``*``: it may
    assign any, and a release that does not say is taken as that)."""
    return per_release(
        table,
        ("engine_args", "assigned"),
        lambda: frozenset((table.get("EngineArgs") or {}).get("assigned", ["*"])),
    )


def _computed(
    profile: Profile, table: dict[str, Any], passed: dict[str, Any], given: dict[str, Any]
) -> Any:
    """What ``create_engine_config`` passes when it computes an argument from the dests
    (builder/engine_locals.py; ``passed``: ``{"expr", "reads", "on_defaults"}``): the
    expression over the launch's dests, or UNKNOWN."""
    expr = passed["expr"]
    dests = check_reads(passed, "expr")
    if any(d in given for d in dests):
        return value_of(expr, _engine_args_fields(profile, table, dests, given))
    if "on_defaults" in passed:  # the builder's value over the defaults (a plain scalar)
        return passed["on_defaults"]
    return per_release(  # over the defaults alone: one value per release
        table, ("expr", expr), lambda: value_of(expr, _engine_args_fields(profile, table, dests, {}))
    )


def _engine_args_fields(
    profile: Profile, table: dict[str, Any], dests: Iterable[str], given: dict[str, Any]
) -> Values:
    dests = set(dests)
    fields = {d: given[d] if d in given else _dest_default(profile, table, d) for d in dests}
    return Values("EngineArgs", fields, {d: d for d in dests if d in given})


def _failing(
    table: dict[str, Any],
    cls: str,
    values: Values,
    stage: str,
    prefix: str,
    key: str = "checks",
    base: tuple[Any, dict[str, Any]] | None = None,
    kind: str = "json",
) -> Iterator[ConditionFailure]:
    for check in table[cls].get(key, []):
        test = check["test"]
        if _base_outcome(check, values, base, kind) in (None, "passes"):
            continue  # as on the defaults' object, which passes it
        found = check_outcome(check, values)
        if found in (None, "passes"):
            continue
        message = rendered(check["message"], values)
        if found == "divides-by-zero":
            message = f"ZeroDivisionError while checking `{test}` (before: {message})"
        shown = check.get("when", test)  # the engine's test, without the "unchanged" part
        names = tuple(values.given.get(f, prefix + f) for f in reads(shown))
        yield ConditionFailure(
            cls,
            message,
            check["source"],
            stage,
            shown,
            names,
            model=check.get("model", ""),
            only_if="; ".join(
                c for c in (_env_caveat(check.get("env") or ()), check.get("after_hooks", "")) if c
            ),
            guarded="when" in check and not check.get("env"),
            env=tuple(check.get("env") or ()),
            assumes=tuple(check.get("assumes", ())),
        )


def without_env_caveat(failure: ConditionFailure) -> ConditionFailure:
    """``failure`` once the environment is known to leave the env vars it assumed unset so
    (its other caveats kept)."""
    caveat = _env_caveat(failure.env)
    only_if = failure.only_if
    if caveat and only_if.startswith(caveat):
        only_if = only_if[len(caveat) :].removeprefix("; ")
    return replace(failure, only_if=only_if, env=())


def _env_caveat(names: Iterable[str]) -> str:
    """builder/assigned_values.py: a value the engine read from ``envs.NAME``, taken as the
    registry's default."""
    names = list(names)
    if not names:
        return ""
    listed = ", ".join(names)
    return (
        f"an earlier validator sets a field it reads from {listed}: this holds when the "
        f"environment does not set {listed} (its vllm/envs.py default)"
    )


# ---- a config object's values ----------------------------------------------------------------
def _field_specs(profile: Profile, cls: str) -> dict[str, Any]:
    return (profile.configs.get(cls) or {}).get("fields", {})


def _unknowable(entry: dict[str, Any], own: bool) -> set[str] | None:
    """Fields whose value is not the launch's (None: every field). A class's own checks were
    kept only where no earlier statement changes what they read; a nested object has been
    through all of its validators."""
    converted = set(entry.get("converted", []))
    if "*" in converted or (not own and entry.get("opaque")):
        return None
    return converted if own else converted | set(entry.get("changes", []))


def _default(profile: Profile, table: dict[str, Any], cls: str, name: str, depth: int) -> Any:
    found = ((table.get(cls) or {}).get("defaults") or {}).get(name)
    if found is None:
        return UNKNOWN
    if "factory" in found:
        sub = found["factory"]
        return (
            _json_values(profile, table, sub, {}, depth + 1) if sub in profile.configs else UNKNOWN
        )
    return found["value"]


def _json_values(
    profile: Profile,
    table: dict[str, Any],
    cls: str,
    payload: dict[str, Any],
    depth: int,
    own: bool = False,
) -> Values:
    entry = table.get(cls) or {}
    specs = _field_specs(profile, cls)
    blocked = _unknowable(entry, own)
    fields: dict[str, Any] = {}
    for name, spec in specs.items():
        if blocked is None or name in blocked or depth > _MAX_DEPTH:
            fields[name] = UNKNOWN
        elif name in payload:
            fields[name] = _from_json(profile, table, spec, payload[name], depth)
        else:
            fields[name] = _default(profile, table, cls, name, depth)
    return Values(cls, fields)


def _from_json(
    profile: Profile, table: dict[str, Any], spec: dict[str, Any], value: Any, depth: int
) -> Any:
    sub = spec.get("config")
    if sub and isinstance(value, dict) and sub in profile.configs:
        return _json_values(profile, table, sub, value, depth + 1)
    return coerce(spec, value)


def _built_values(
    profile: Profile,
    table: dict[str, Any],
    cls: str,
    built: dict[str, Any],
    given: dict[str, Any],
    payloads: dict[str, Any],
    force: bool = False,
) -> Values | None:
    """The object ``create_engine_config`` builds, or None when the launch sets none of the
    dests it reads (the release's defaults pass its own validators; ``force``: build it)."""
    dests = _dests_of(built)
    if not force and dests.isdisjoint(given) and dests.isdisjoint(payloads):
        return None
    assigned = assigned_dests(table)
    if "*" in assigned:
        return None  # the entrypoint may change any dest
    return _built_object(profile, table, cls, built, given, payloads, assigned, own=True)




def _index(profile: Profile, table: dict[str, Any]) -> tuple[list[tuple[str, Any]], frozenset[str]]:
    """The classes create_engine_config builds, and every dest a condition can read (those
    constructions' dests and the dataclass-json options of classes with conditions);
    memoised on the profile's own table."""

    def index() -> tuple[list[tuple[str, Any]], frozenset[str]]:
        built = [
            (cls, e["built"])
            for cls, e in table.items()
            if e.get("built") and (e.get("checks") or e.get("model_checks")) and cls != "EngineArgs"
        ]
        read = {d for _, b in built for d in _dests(b)}
        read |= {
            f for c in (table.get("EngineArgs") or {}).get("checks", []) for f in check_reads(c)
        }
        read |= {
            a.dest
            for a in profile.actions
            if any(
                (table.get(a.raw.get("json_dataclass") or "") or {}).get(k)
                for k in ("checks", "model_checks")
            )
        }
        for entry in table.values():
            if entry.get("from_dict"):
                how = entry["from_dict"]
                read |= {how["dest"], *filter(None, how["keys"].values())}
        return built, frozenset(read)

    return per_release(table, ("index", ""), index)


_DESTS: dict[int, tuple[dict[str, Any], frozenset[str]]] = {}


def _dests_of(built: dict[str, Any]) -> frozenset[str]:
    """The dests one construction reads (memoised on the profile's own dict)."""
    hit = _DESTS.get(id(built))
    if hit is None or hit[0] is not built:
        if len(_DESTS) > 256:
            _DESTS.clear()
        hit = _DESTS[id(built)] = (built, frozenset(_dests(built)))
    return hit[1]


def _dests(built: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for dest in built.get("fields", {}).values():
        if isinstance(dest, dict) and "expr" in dest:
            out += check_reads(dest, "expr")
        elif isinstance(dest, dict):
            out += _dests(dest)
        elif dest:
            out.append(dest)
    return out


def _built_object(
    profile: Profile,
    table: dict[str, Any],
    cls: str,
    built: dict[str, Any],
    given: dict[str, Any],
    payloads: dict[str, Any],
    assigned: frozenset[str],
    own: bool,
) -> Values:
    passed = built.get("fields", {})
    blocked = _unknowable(table.get(cls) or {}, own=own)
    fields: dict[str, Any] = {}
    named: dict[str, str] = {}
    for name, spec in _field_specs(profile, cls).items():
        dest = passed.get(name)
        if blocked is None or name in blocked:
            fields[name] = UNKNOWN
        elif name not in passed:
            fields[name] = UNKNOWN if built.get("open") else _default(profile, table, cls, name, 0)
        elif isinstance(dest, dict) and "expr" in dest:  # computed from the dests
            fields[name] = coerce(spec, _computed(profile, table, dest, given))
        elif isinstance(dest, dict):  # field=Other(...) built in the same call
            sub = dest.get("cls", "")
            fields[name] = (
                _built_object(profile, table, sub, dest, given, payloads, assigned, own=False)
                if sub in profile.configs
                else UNKNOWN
            )
        elif dest is None or dest in assigned:
            fields[name] = UNKNOWN
        elif dest in payloads:
            fields[name] = (
                _from_json(profile, table, spec, payloads[dest], 0)
                if isinstance(payloads[dest], dict)
                else UNKNOWN
            )
            named[name] = dest
        elif dest in given:
            fields[name] = coerce(spec, given[dest])
            named[name] = dest
        else:
            fields[name] = _dest_default(profile, table, dest)
    return Values(cls, fields, named)


def _dest_default(profile: Profile, table: dict[str, Any], dest: str) -> Any:
    """The dest's value when the launch does not set it: the EngineArgs field default, when
    the parser's default for the option says the same (else the parser's default differs)."""
    value = _default(profile, table, "EngineArgs", dest, 0)
    act = profile.by_dest.get(dest)
    if value is UNKNOWN or isinstance(value, Values) or act is None:
        return value if act is not None and isinstance(value, Values) else UNKNOWN
    text = act.raw.get("default")
    same = text is None if value is None else text == str(value)
    return value if same else UNKNOWN
