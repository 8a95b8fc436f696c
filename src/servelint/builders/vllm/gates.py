"""The ``gates`` profile section: settings that make vLLM import an optional distribution.

1. Find gate sites by scanning the wheel: ``raise ImportError/ModuleNotFoundError``, raises
   whose text says ``pip install`` / ``is required``, and ``X = PlaceholderModule("x")``.
2. Name the distribution: the text of ``pip install <req>`` in the message, else the module of
   the guarding ``try: import x`` / placeholder, mapped to ``Requires-Dist`` names and extras.
3. Tie each site to a trigger by code shape: the ``if`` tests guarding the site or the call
   sites of its function (env checks ``envs.VLLM_X``; comparisons ``x.field == "value"``,
   including through a property), the message naming ``VLLM_X=1``, or the registry entry
   (tokenizer mode, load format, quantization method, backend, parser, connector) whose module
   is, or imports, the gated module. A site with no trigger is kept with ``trigger: None``.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from servelint.builders.astutil import dotted
from servelint.builders.vllm.facts_common import (
    file_module,
    files_with,
    lines_with,
    module_consts,
    parse,
    per_wheel,
    ref,
    specifier_in,
    text_of,
    walk_lines,
)
from servelint.builders.vllm.facts_registries import value_sets
from servelint.builders.vllm.values import engine_fields
from servelint.builders.wheel import WheelSource

_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}
_PIP = re.compile(r"pip install\s+(?:-[-\w]+\s+)*[`'\"]?([A-Za-z0-9][\w.\-]*(?:\[[\w,\-]+\])?"
                  r"(?:\s*(?:[<>=!~]=?)\s*[\w.]+(?:\s*,\s*[<>=!~]=?\s*[\w.]+)*)?)")
_QUOTED_PKG = re.compile(r"[`'\"]([A-Za-z0-9][\w.\-]*)[`'\"] (?:package|library)")
_ENV_IN_MSG = re.compile(r"\b(VLLM_[A-Z0-9_]+)=1\b")
_NOT_DISTS = {"vllm", "torch", "triton"}
_SITE_MARKERS = ("raise ImportError", "raise ModuleNotFoundError", "PlaceholderModule(",
                 "pip install", "is required")


def extract(src: WheelSource, profile: dict[str, Any]) -> dict[str, Any]:
    reqs = _requirements(src)
    per_wheel(src, "parser_dests", set).update(
        a["dest"] for a in (profile.get("parser") or {}).get("actions", []) if "dest" in a)
    gates: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for site in _sites(src, reqs):
        triggers = _triggers(src, site, profile) or [None]
        for trigger in triggers:
            key = (repr(trigger), site["package"], site["source"])
            if key in seen:
                continue
            seen.add(key)
            via = trigger.pop("via", None) if trigger else None
            gates.append({"trigger": trigger, "via": via, "platform": _platform(site),
                          "package": site["package"],
                          "specifier": site["specifier"], "extra": site["extra"],
                          "package_named_by": site["named_by"],
                          "source": site["source"], "message": site["message"]})
    return {"gates": gates}


# ---------------------------------------------------------------- requirements

def _requirements(src: WheelSource) -> dict[str, list[Requirement]]:
    out: dict[str, list[Requirement]] = {}
    for line in src.requires_dist:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        out.setdefault(canonicalize_name(req.name), []).append(req)
    return out


def _extra_of(req: Requirement) -> str | None:
    m = re.search(r"extra\s*==\s*['\"]([\w\-]+)['\"]", str(req.marker or ""))
    return m.group(1) if m else None


def _hard_required(reqs: dict[str, list[Requirement]], name: str) -> bool:
    return any(_extra_of(r) is None for r in reqs.get(name, []))


# ---------------------------------------------------------------- sites

def _sites(src: WheelSource, reqs: dict[str, list[Requirement]]) -> list[dict[str, Any]]:
    sites = []
    candidates = set(files_with(src, *_SITE_MARKERS[:-1])) | {
        p for p in files_with(src, "is required")
        if "except ImportError" in src.read(p) or "except ModuleNotFoundError" in src.read(p)}
    for path in sorted(candidates):
        tree = parse(src, path)
        if tree is None:
            continue
        consts = module_consts(tree)
        # a raise's message may sit a few lines below the marker ("raise ImportError(\n …")
        marks = lines_with(src.read(path), *_SITE_MARKERS, "raise ")
        for node, parents in walk_lines(tree, marks):
            site = None
            if isinstance(node, ast.Raise) and node.exc is not None:
                site = _raise_site(node, parents, consts)
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Call) \
                    and dotted(node.value.func) in _IMPORT_ERRORS:  # `return ImportError(…)`
                site = _raise_site(ast.Raise(exc=node.value), parents, consts)
            elif isinstance(node, ast.Call) and dotted(node.func).endswith("PlaceholderModule") \
                    and node.args and text_of(node.args[0]):
                site = {"module": text_of(node.args[0]), "message": ""}
            if not site:
                continue
            pkg, spec, extra = _distribution(site, reqs)
            if not pkg or pkg in _NOT_DISTS or (_hard_required(reqs, pkg) and not spec):
                continue
            if not site["message"] and extra:
                site["message"] = f"Please install vllm[{extra}] for {extra} support"
            func = next((p for p in reversed(parents)
                         if isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef)), None)
            sites.append({"path": path, "node": node, "parents": parents, "func": func,
                          "package": pkg, "specifier": spec, "extra": extra,
                          "named_by": _named_by(site, pkg, reqs),
                          "source": ref(path, node), "message": site["message"]})
    return sites


def _raise_site(node: ast.Raise, parents: list[ast.AST], consts: dict[str, str]
                ) -> dict[str, Any] | None:
    exc = node.exc
    call = exc if isinstance(exc, ast.Call) else None
    name = dotted(call.func if call else exc).rsplit(".", 1)[-1]
    msg = (text_of(call.args[0], consts) if call and call.args else "") or ""
    import_try = _guarding_import(parents) or _guarding_find_spec(parents)
    if name in _IMPORT_ERRORS or "pip install" in msg or "is required" in msg:
        if name not in _IMPORT_ERRORS and not import_try and "pip install" not in msg:
            return None
        if not msg and not import_try:
            return None
        return {"module": import_try, "message": msg}
    return None


def _guarding_import(parents: list[ast.AST]) -> str | None:
    """Top-level module imported by the ``try`` whose ``except ImportError`` holds the raise."""
    for i in range(len(parents) - 1, 0, -1):
        handler, tr = parents[i], parents[i - 1]
        if isinstance(handler, ast.ExceptHandler) and isinstance(tr, ast.Try):
            for stmt in tr.body:
                for sub in ast.walk(stmt):
                    if isinstance(sub, ast.Import):
                        return sub.names[0].name.split(".")[0]
                    if isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
                        return sub.module.split(".")[0]
    return None


def _named_by(site: dict[str, Any], pkg: str, reqs: dict[str, list[Requirement]]) -> str:
    """How sure the distribution name is: stated in the message, a wheel requirement, or only
    the imported module's name (a guess, e.g. ``mooncake``)."""
    msg = (site["message"] or "").lower()
    if pkg in reqs:
        return "requires-dist"
    if pkg in msg or pkg.replace("-", "_") in msg:
        return "message"
    return "module"


def _guarding_find_spec(parents: list[ast.AST]) -> str | None:
    """Module named by ``if importlib.util.find_spec("x") is None:`` around the raise."""
    for node in reversed(parents):
        if isinstance(node, ast.If):
            for sub in ast.walk(node.test):
                if isinstance(sub, ast.Call) and dotted(sub.func).endswith("find_spec") \
                        and sub.args and text_of(sub.args[0]):
                    return (text_of(sub.args[0]) or "").split(".")[0]
    return None


def _distribution(site: dict[str, Any], reqs: dict[str, list[Requirement]]
                  ) -> tuple[str | None, str, str | None]:
    msg = site["message"] or ""
    stated = _PIP.search(msg)
    pkg, spec = None, ""
    if stated and not stated.group(1).startswith(("vllm[", "-")):
        try:
            req = Requirement(stated.group(1).strip("`'\""))
            pkg, spec = canonicalize_name(req.name), str(req.specifier)
        except InvalidRequirement:
            pkg = None
    extra_m = re.search(r"vllm\[([\w\-]+)\]", msg)
    if pkg is None and extra_m:
        names = [n for n, rs in reqs.items() if any(_extra_of(r) == extra_m.group(1)
                                                     for r in rs)]
        pkg = names[0] if len(names) == 1 else None
    if pkg is None:
        module = site.get("module")
        quoted = _QUOTED_PKG.search(msg)
        if quoted:
            pkg = canonicalize_name(quoted.group(1))
        elif module:
            pkg = _dist_for_module(module, reqs)
            # a bare module name that no requirement or message names is not a distribution
            # we can vouch for (cv2 -> opencv-*): keep only names the wheel or message state
            if pkg not in reqs and module.lower() not in msg.lower():
                return None, "", None
    if pkg is None:
        return None, "", None
    spec = spec or specifier_in(msg)
    extra = None
    for req in reqs.get(pkg, []):
        if _extra_of(req):
            extra = _extra_of(req)
            spec = spec or str(req.specifier)
    return pkg, spec, extra


def _dist_for_module(module: str, reqs: dict[str, list[Requirement]]) -> str | None:
    if module in ("vllm", "__future__") or module.startswith("_"):
        return None
    name = canonicalize_name(module)
    if name in reqs:
        return name
    for dist in reqs:  # runai_model_streamer -> runai-model-streamer, mooncake -> mooncake-…
        if dist.startswith(name + "-") and not _hard_required(reqs, dist):
            return dist
    return name


# ---------------------------------------------------------------- triggers

_PLATFORM_CALL = re.compile(r"\bis_(rocm|xpu|cpu|tpu|cuda)\(\)")


def _platform(site: dict[str, Any]) -> str | None:
    """The platform a gate is confined to: an enclosing ``if current_platform.is_xpu()``, or
    the gate's message naming it (``XPU AWQ requires …``)."""
    parents = site["parents"]
    for i, node in enumerate(parents):
        if isinstance(node, ast.If) and i + 1 < len(parents) and parents[i + 1] in node.body:
            m = _PLATFORM_CALL.search(ast.unparse(node.test))
            if m and not ast.unparse(node.test).lstrip().startswith("not "):
                return m.group(1)
    m = re.match(r"^(ROCm|XPU|TPU|CPU)\b", site["message"] or "")
    return m.group(1).lower() if m else None


def _triggers(src: WheelSource, site: dict[str, Any], profile: dict[str, Any]
              ) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for env in _ENV_IN_MSG.findall(site["message"] or ""):
        out.append({"kind": "env", "name": env, "value": "truthy"})
    via = "message"
    if not out:
        out, via = _guard_triggers(src, site["path"], site["parents"] + [site["node"]]), "guard"
    func = site["func"]
    # call sites of a distinctive module-level function (methods like from_config are not)
    parents = site["parents"]
    top_level = func is not None and (parents.index(func) == 1 or func.name.startswith("_"))
    if not out and func is None and isinstance(site["node"], ast.Raise):
        # a module that raises on import: the guarded imports of it are the triggers (a
        # PlaceholderModule only fails on use, so importing its module triggers nothing)
        for path, imp_parents in _import_sites(src, site["path"]):
            out += _guard_triggers(src, path, imp_parents)
        via = "import-site"
    if not out and top_level:
        calls = _call_sites(src, func.name, site["path"])
        if len(calls) <= 5:
            for path, call_parents in calls:
                out += _guard_triggers(src, path, call_parents)
            via = "call-site"
    if not out:
        out, via = _registry_triggers(src, site["path"], profile, module_level=func is None)
    return [dict(t, via=via) for t in {repr(t): t for t in out}.values()]


def _guard_triggers(src: WheelSource, path: str, parents: list[ast.AST]
                    ) -> list[dict[str, Any]]:
    """Triggers from the ``if`` tests whose body holds the last node of ``parents``."""
    out: list[dict[str, Any]] = []
    cls = next((p for p in reversed(parents) if isinstance(p, ast.ClassDef)), None)
    for i, node in enumerate(parents):
        if not isinstance(node, ast.If):
            continue
        inside_body = i + 1 < len(parents) and parents[i + 1] in node.body
        if not inside_body:
            continue
        out += _test_triggers(src, node.test, cls)
    return out


def _test_triggers(src: WheelSource, test: ast.AST, cls: ast.ClassDef | None,
                   depth: int = 0) -> list[dict[str, Any]]:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return []
    out: list[dict[str, Any]] = []
    dests = _known_dests(src)
    compared: dict[str, str] = {}  # envs.VLLM_X == "text": the exact value
    for sub in ast.walk(test):
        if isinstance(sub, ast.Compare) and len(sub.ops) == 1 and isinstance(sub.ops[0], ast.Eq) \
                and re.match(r"^envs\.VLLM_\w+$", dotted(sub.left)) \
                and isinstance(sub.comparators[0], ast.Constant):
            compared[dotted(sub.left)] = str(sub.comparators[0].value)
    for sub in ast.walk(test):
        name = dotted(sub)
        if isinstance(sub, ast.Attribute) and re.match(r"^envs\.VLLM_\w+$", name):
            out.append({"kind": "env", "name": name.split(".", 1)[1],
                        "value": compared.get(name, "truthy")})
        # bare truth tests of a CLI value: `if args.grpc:` / `getattr(args, "grpc", False)`
        if test is sub or isinstance(test, ast.BoolOp) and sub in test.values:
            flag = None
            if isinstance(sub, ast.Attribute) and dotted(sub.value) == "args":
                flag = sub.attr
            elif isinstance(sub, ast.Call) and dotted(sub.func) == "getattr" \
                    and len(sub.args) >= 2 and dotted(sub.args[0]) == "args":
                flag = text_of(sub.args[1])
            if flag and flag in dests:
                out.append({"kind": "option", "dest": flag, "value": "truthy"})
        if isinstance(sub, ast.Compare) and len(sub.ops) == 1:
            out += _compare_trigger(src, sub, cls)
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) \
                and sub.value.id == "self" and cls is not None and depth == 0:
            prop = _property_compare(cls, sub.attr)
            if prop is not None:
                out += _test_triggers(src, prop, cls, depth + 1)
    return out


def _known_dests(src: WheelSource) -> set[str]:
    fields = engine_fields(src)
    extra = per_wheel(src, "parser_dests", set)
    return set(fields.annotations) | extra


def _property_compare(cls: ast.ClassDef, attr: str) -> ast.AST | None:
    for fn in cls.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == attr and any(
                dotted(d) in ("property", "cached_property", "functools.cached_property")
                for d in fn.decorator_list):
            ret = next((n for n in ast.walk(fn) if isinstance(n, ast.Return)), None)
            return ret.value if ret else None
    return None


def _compare_trigger(src: WheelSource, cmp: ast.Compare, cls: ast.ClassDef | None
                     ) -> list[dict[str, Any]]:
    op, right = cmp.ops[0], cmp.comparators[0]
    if isinstance(op, ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        values = [right.value]
    elif isinstance(op, ast.In) and isinstance(right, ast.Tuple | ast.List | ast.Set):
        values = [e.value for e in right.elts if isinstance(e, ast.Constant)
                  and isinstance(e.value, str)]
    else:
        return []
    attr = cmp.left.attr if isinstance(cmp.left, ast.Attribute) else (
        cmp.left.id if isinstance(cmp.left, ast.Name) else "")
    if not attr or not values:
        return []
    target = _target_for(src, attr, cmp.left, cls)
    return [dict(target, value=v) for v in values] if target else []


def _target_for(src: WheelSource, attr: str, left: ast.AST, cls: ast.ClassDef | None
                ) -> dict[str, Any] | None:
    fields = engine_fields(src)
    owner = dotted(left).split(".")
    if cls is not None and owner[:1] == ["self"] and len(owner) == 2:
        for cfg, (prefix, _) in fields.json_prefix.items():
            if cfg == cls.name:
                if attr in fields.annotations and any(
                        cfg == c for c, _f in _field_owner(fields, attr)):
                    return {"kind": "option", "dest": attr}
                return {"kind": "config", "path": f"{prefix}.{attr}"}
    if attr in fields.annotations:
        return {"kind": "option", "dest": attr}
    return None


def _field_owner(fields: Any, dest: str) -> list[tuple[str, str]]:
    return [cf for cf, dests in fields.by_config_field.items() if dest in dests]


def _call_sites(src: WheelSource, fname: str, home: str) -> list[tuple[str, list[ast.AST]]]:
    if fname.startswith("__") or len(fname) < 4:
        return []
    out = []
    for path in files_with(src, f"{fname}("):
        tree = parse(src, path)
        marks = lines_with(src.read(path), f"{fname}(")
        for node, parents in walk_lines(tree, marks) if tree else []:
            if isinstance(node, ast.Call) and (dotted(node.func).rsplit(".", 1)[-1] == fname):
                out.append((path, parents + [node]))
    return out


def _import_sites(src: WheelSource, path: str) -> list[tuple[str, list[ast.AST]]]:
    """Function-level ``import``/``from … import`` statements of ``path``'s module."""
    module = file_module(path)
    out = []
    for cand in files_with(src, module):
        marks = {i for i, line in enumerate(src.read(cand).splitlines(), 1)
                 if module in line and "import" in line and line[:1].isspace()}
        if not marks:  # only module-level imports: not a guarded import site
            continue
        tree = parse(src, cand)
        for node, parents in walk_lines(tree, marks) if tree else []:
            if isinstance(node, ast.ImportFrom | ast.Import) and len(parents) > 1 \
                    and _imports_module(node, cand, module):
                out.append((cand, parents + [node]))
    return out


def _imports_module(node: ast.AST, path: str, module: str) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.module == module and not node.level
    if isinstance(node, ast.Import):
        return any(a.name == module for a in node.names)
    return False


def _registry_triggers(src: WheelSource, path: str, profile: dict[str, Any],
                       module_level: bool) -> tuple[list[dict[str, Any]], str]:
    """Registry values implemented by ``path`` itself or, for a module-level gate (a
    placeholder or failing import), by the few registry modules that import it directly.
    A module shared by many entries of a set (a utility) triggers none of them."""
    importers = _importers_of(src, path) if module_level else set()
    if len(importers) > 3:  # a shared utility module: the gate fires only on some paths
        importers = set()
    late = profile.get("late_values") or {}
    out = []
    via = "registry"
    for name, vs in value_sets(src).items():
        targets = (late.get(name) or {}).get("targets") or []
        if name == "kv_connector":
            targets = ["kv_transfer_config.kv_connector"]
        direct = [v for v, mods in vs.modules.items() if path in mods]
        via_import = [v for v, mods in vs.modules.items() if importers & set(mods)]
        hits = direct or (via_import if len(via_import) <= 2 else [])
        if not direct and hits:
            via = "registry-import"
        for value in hits:
            for t in targets:
                out.append({"kind": "config", "path": t, "value": value} if "." in t
                           else {"kind": "option", "dest": t, "value": value})
    return out, via


_IMPORT_LINE = re.compile(r"^(?:from\s+(\.*)([\w.]*)\s+import\s+(\(?[^#\n]*)|import\s+([\w.]+))",
                          re.M)


def _importers_of(src: WheelSource, path: str) -> set[str]:
    """Package files that import ``path``'s module at module level (one hop), read from
    their unindented import lines."""
    def make() -> set[str]:
        module = file_module(path)
        parent, _, base = module.rpartition(".")
        out: set[str] = set()
        for cand in files_with(src, base):
            if cand == path:
                continue
            here = file_module(cand).split(".")
            for m in _IMPORT_LINE.finditer(src.read(cand)):
                dots, mod, names, plain = m.groups()
                if plain:
                    hit = plain == module
                else:
                    if dots:
                        keep = len(here) - len(dots) + (1 if cand.endswith("__init__.py") else 0)
                        mod = ".".join(here[:keep] + ([mod] if mod else []))
                    hit = mod == module or (mod == parent and re.search(
                        rf"\b{re.escape(base)}\b", names or "") is not None)
                if hit:
                    out.add(cand)
                    break
        return out
    return per_wheel(src, f"importers:{path}", make)
