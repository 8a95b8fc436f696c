"""What the checks of the release's config classes share (``validators``' module docstring
says how a class gets its values): the values each class gets from a launch (``_json_values``
for a dataclass-JSON option, ``_built_values`` for a class ``create_engine_config`` builds),
the defaults, ``ConditionFailure`` and the failing checks, and ``per_release``, the tables
that depend on the release alone, kept with its profile."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from servelint.engines.vllm.conditions import (
    UNKNOWN,
    Closures,
    Values,
    check_outcome,
    check_reads,
    closures_of,
    outcome,
    reads,
    rendered,
    value_of,
)
from servelint.engines.vllm.field_coerce import coerce
from servelint.profiles import Profile

_MAX_DEPTH = 4
T = TypeVar("T")
ENGINE_ARGS_KEYS = ("checks", "model_checks")  # certain failures first


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


def per_release(profile: Profile, key: tuple[str, str], compute: Callable[[], T]) -> T:
    """``compute()`` once per release: what depends on the release alone (the index of built
    classes and read dests, the object each class is built as from the defaults alone and
    each test's outcome on it, each computed argument's value over the defaults), kept with
    the profile (``Profile.derived``) under ``key``."""
    return profile.derived("vllm.check_values " + " / ".join(key), lambda _: compute())


def _base(
    profile: Profile, key: tuple[str, str], build: Callable[..., Values | None], *args: Any,
    **kwargs: Any,
) -> tuple[Any, dict[str, Any]] | None:
    base = per_release(profile, key, lambda: (build(*args, **kwargs), {}))
    return base if base[0] is not None else None


_PLAIN = (str, int, float, bool, tuple, list, dict, frozenset, set, type(None))


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and type(a) in _PLAIN and a == b)


def _base_outcome(
    check: dict[str, Any],
    values: Values,
    base: tuple[Any, dict[str, Any]] | None,
    kind: str,
    closures: Closures | None = None,
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
        outcomes[test] = outcome(test, obj, closures)
    return outcomes[test]


def assigned_dests(profile: Profile, table: dict[str, Any]) -> frozenset[str]:
    """The dests the entrypoint assigns before the engine config is built (``*``: it may
    assign any, and a release that does not say is taken as that)."""
    return per_release(
        profile,
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
        return value_of(expr, _engine_args_fields(profile, table, dests, given), closures_of(profile))
    if "on_defaults" in passed:  # the builder's value over the defaults (a plain scalar)
        return passed["on_defaults"]
    return per_release(  # over the defaults alone: one value per release
        profile,
        ("expr", expr),
        lambda: value_of(expr, _engine_args_fields(profile, table, dests, {}), closures_of(profile)),
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
    *,
    closures: Closures,
) -> Iterator[ConditionFailure]:
    for check in table[cls].get(key, []):
        test = check["test"]
        if _base_outcome(check, values, base, kind, closures) in (None, "passes"):
            continue  # as on the defaults' object, which passes it
        found = check_outcome(check, values, closures)
        if found in (None, "passes"):
            continue
        message = rendered(check["message"], values, closures)
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
    assigned = assigned_dests(profile, table)
    if "*" in assigned:
        return None  # the entrypoint may change any dest
    return _built_object(profile, table, cls, built, given, payloads, assigned, own=True)




def _index(profile: Profile, table: dict[str, Any]) -> tuple[list[tuple[str, Any]], frozenset[str]]:
    """The classes create_engine_config builds, and every dest a condition can read (those
    constructions' dests and the dataclass-json options of classes with conditions);
    once per release."""

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

    return per_release(profile, ("index", ""), index)


def _dests_of(built: dict[str, Any]) -> frozenset[str]:
    """The dests one construction reads."""
    return frozenset(_dests(built))


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


def read_fields(profile: Profile, table: dict[str, Any]) -> frozenset[str]:
    """Every field the EngineArgs checks read (once per release: the conditions table's memo)."""
    entry = table.get("EngineArgs") or {}
    return per_release(
        profile,
        ("engine_args", "read"),
        lambda: frozenset(f for key in ENGINE_ARGS_KEYS for c in entry.get(key, []) for f in check_reads(c)),
    )
