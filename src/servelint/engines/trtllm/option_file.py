"""Check a ``trtllm-serve --config``/``--extra_llm_api_options`` YAML file against the release.

``serve`` reads the file with ``yaml.safe_load`` (YAML 1.1: ``yes``/``on`` are booleans),
merges it into the LLM API arguments and builds the backend's pydantic class from them:
``TorchLlmArgs`` for ``--backend pytorch`` (the default), ``TrtLlmArgs`` for ``tensorrt``.
Unknown keys are refused (the LLM class checks the keys, the config classes forbid extras), a
key of the TensorRT backend on the PyTorch backend is refused by name, and values are
validated by pydantic in lax mode; ``speculative_config`` picks its class by
``decoding_type``. Symbolic values (``$MAX_BATCH_SIZE``) are never judged; a field whose type
the builder could not read accepts anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from servelint.engines.trtllm import BACKEND_ROOTS, bounds_check, model_rules
from servelint.engines.trtllm.lax_types import items_type, models_in, type_error
from servelint.engines.trtllm.llm_api_model import model_of
from servelint.model import Span
from servelint.profiles import Profile
from servelint.rules._util import suggest
from servelint.sources.common.yaml_bounded import YamlBudgetError, check_budget

# serve reads the file with yaml.safe_load: the same YAML 1.1 resolver, through libyaml here
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_PLACEHOLDER = "__servelint_symbolic_{}__"
_KEY_LINE = re.compile(r"^(\s*(?:-\s+)?[A-Za-z_][\w.-]*\s*:\s)(.*)$")
_ITEM_LINE = re.compile(r"^(\s*-\s+)(.*)$")


@dataclass(frozen=True, slots=True)
class FileProblem:
    """One problem of a TensorRT-LLM option file, with where it is."""

    span: Span | None
    message: str
    severity: str = "error"  # error | warning
    evidence: str = ""
    # a key, class tag or enum value the release does not know (a newer one may add it)
    unknown_name: bool = False


@dataclass(slots=True)
class _Node:
    """A value of the option file with its position."""

    value: Any
    span: Span | None
    symbolic: bool
    items: Any = None  # dict[str, tuple[_Node, _Node]] for mappings, list[_Node] for sequences


class OptionFile:
    """The text of the file with the span of each line and which values are symbolic."""

    def __init__(self, lines: tuple[tuple[str, Span | None, bool], ...]):
        self.lines = lines
        self.text, self.placeholders, self.opaque = _with_placeholders(lines)

    def parse(self) -> tuple[_Node | None, str | None]:
        try:
            loader = _LOADER(self.text)
            try:
                node = loader.get_single_node()
                check_budget(node, len(self.text))  # an alias bomb is not expanded
                return (self._tree(loader, node) if node is not None else None), None
            finally:
                loader.dispose()
        except yaml.YAMLError as exc:
            return None, f"not valid YAML: {str(exc).splitlines()[0]}"
        except YamlBudgetError as exc:
            return None, f"not read: it {exc}"
        except (RecursionError, ValueError, TypeError) as exc:
            return None, f"cannot be read: {exc}"

    def span_at(self, mark: Any) -> Span | None:
        if mark is None or mark.line >= len(self.lines):
            return None
        base = self.lines[mark.line][1]
        if base is None:
            return None
        return Span(
            base.path,
            base.line,
            base.column + (mark.column if base.end_line in (None, base.line) else 0),
        )

    def _tree(self, loader: Any, node: Any) -> _Node:
        span = self.span_at(node.start_mark)
        if isinstance(node, yaml.MappingNode):
            items: dict[str, tuple[_Node, _Node]] = {}
            for k, v in node.value:
                key = self._tree(loader, k)
                items[str(key.value)] = (key, self._tree(loader, v))
            return _Node({}, span, False, items)
        if isinstance(node, yaml.SequenceNode):
            return _Node([], span, False, [self._tree(loader, v) for v in node.value])
        value = loader.construct_object(node, deep=True)
        symbolic = isinstance(value, str) and value in self.placeholders
        return _Node(value, span, symbolic)


def _with_placeholders(
    lines: tuple[tuple[str, Span | None, bool], ...],
) -> tuple[str, set[str], bool]:
    """YAML text where each symbolic value is a placeholder string (so the structure parses);
    ``opaque`` when a symbolic line is not a ``key: value`` or ``- value`` line."""
    out: list[str] = []
    marks: set[str] = set()
    opaque = False
    for i, (text, _span, symbolic) in enumerate(lines):
        if not symbolic:
            out.append(text)
            continue
        m = _KEY_LINE.match(text) or _ITEM_LINE.match(text)
        mark = _PLACEHOLDER.format(i)
        if m and "$" not in m.group(1):
            out.append(f'{m.group(1)}"{mark}"')
            marks.add(mark)
        else:
            opaque = True
            out.append("")
    return "\n".join(out), marks, opaque


# ---------------------------------------------------------------- checking


class _Checker:
    def __init__(self, profile: Profile, backend: str, serve: bool = True):
        self.model = model_of(profile)
        self.profile = profile
        self.backend = backend
        self.serve = serve  # trtllm-serve pops some keys before the LLM class sees them
        root_key = BACKEND_ROOTS.get(backend, "TorchLlmArgs")
        self.root = self.model.roots.get(root_key, "")
        # fields the merge converts to their config class (update_llm_args_with_extra_dict)
        self.converted = set(profile.data.get("llm_api", {}).get("converted", ()))
        self.other = self.model.roots.get(
            "TrtLlmArgs" if backend != "tensorrt" else "TorchLlmArgs", ""
        )

    def top(self, tree: _Node) -> Iterator[FileProblem]:
        if not isinstance(tree.items, dict):
            if tree.value is None and tree.items is None:
                return  # an empty file is an empty dict to serve
            yield FileProblem(
                tree.span,
                f"the option file must be a mapping of LLM API "
                f"arguments ({self.model.label} reads it with yaml.safe_load and "
                f"merges it as keyword arguments)",
                evidence=self.model.evidence.get("loader", ""),
            )
            return
        fields = self.model.fields(self.root)
        other = self.model.fields(self.other) if self.other else {}
        for key, (knode, vnode) in tree.items.items():
            if knode.symbolic:
                continue
            if key in self.converted and _is_null(vnode):
                merge = self.profile.data.get("llm_api", {}).get("merge", "")
                yield _problem(model_rules.null_converted(self.model.label, key, merge, vnode.span))
                continue
            if self.popped(key):
                # dropped before the LLM class, but the merge already built its config class
                field = _field(fields, key) or _field(other, key)
                if field is not None and key in self.converted:
                    yield from self.value(key, field, vnode, self.root)
                continue
            field = _field(fields, key)
            if field is None:
                yield self.unknown_top(key, knode, other, fields)
                continue
            yield from self.value(key, field, vnode, self.root)

    def popped(self, key: str) -> bool:
        """serve pops the key before the LLM class sees it (consumed or dropped)."""
        if not self.serve:
            return False
        entry = self.profile.data.get("cli", {}).get("popped_llm_args", {}).get(key)
        return entry is not None and (
            entry["backends"] is None or self.backend in entry["backends"]
        )

    def unknown_top(self, key: str, knode: _Node, other: dict, fields: dict) -> FileProblem:
        label = self.model.label
        if key in other and self.backend != "tensorrt":
            return FileProblem(
                knode.span,
                f'"{key}" is a field of the TensorRT backend '
                f"({self.other}, {self.model.source(self.other, key)}); "
                f"{label} refuses it on the PyTorch backend",
                evidence=self.model.evidence.get("backend_specific", ""),
            )
        guess = suggest(key, list(fields), cutoff=0.75)
        msg = f'unknown LLM API argument "{key}" for {label} ({self.root})'
        if key in other:
            msg += f"; it is a field of {self.other}, not of the {self.backend} backend"
        if guess:
            msg += f'; did you mean "{guess}"?'
        return FileProblem(
            knode.span, msg, evidence=self.model.evidence.get("invalid_key", ""),
            unknown_name=True,
        )

    def value(self, path: str, field: dict, node: _Node, owner: str) -> Iterator[FileProblem]:
        ty = field.get("type")
        src = self.model.source(field.get("owner", owner), path.rsplit(".", 1)[-1])
        if field.get("status") == "deprecated":
            yield FileProblem(
                node.span,
                f'"{path}" is deprecated in {self.model.label}',
                severity="warning",
                evidence=src,
            )
        error = type_error(ty, node)
        if error is not None:
            named = isinstance(ty, dict) and ("literal" in ty or "enum" in ty)
            yield FileProblem(
                node.span, f"{path}: {error} ({self.model.label}: {src})", evidence=src,
                unknown_name=named and node.items is None,
            )
            return
        if node.symbolic:
            return
        refused = self.refused(path, owner, node, ty)
        if refused is not None:
            yield refused
            return
        if isinstance(node.items, dict):
            models = models_in(ty)
            if models:
                yield from self.mapping(path, models, node)
        elif isinstance(node.items, list):
            yield from self.list_items(path, items_type(ty, "list"), node, src)

    def list_items(self, path: str, item_ty: Any, node: _Node, src: str,
                   ) -> Iterator[FileProblem]:
        if item_ty is None:
            return
        for i, item in enumerate(node.items):
            err = type_error(item_ty, item)
            if err is not None:
                yield FileProblem(
                    item.span or node.span,
                    f"{path}[{i}]: {err} ({self.model.label}: {src})",
                    evidence=src,
                )

    def refused(self, path: str, cls: str, node: _Node, ty: Any) -> FileProblem | None:
        """A number (or null) a validator of the field refuses (bounds read from its source)."""
        value: Any = node.value
        if node.items is not None:
            return None
        if isinstance(value, str):
            value = bounds_check.lax_number(
                ty, value
            )  # pydantic's lax mode parses a numeric string
        elif value is None:
            value = bounds_check.NONE
        elif isinstance(value, bool) and ty in ("int", "float"):
            value = int(value)  # pydantic's lax int/float takes a bool as 0/1
        if value is None or isinstance(value, bool) or not isinstance(value, int | float):
            return None
        name = path.rsplit(".", 1)[-1]
        for refusal, validator in self.model.refusals(cls, name):
            if bounds_check.refuses(refusal, value):
                where = f"{self.model.classes.get(cls, {}).get('file', '?')}:{refusal['line']}"
                return FileProblem(
                    node.span,
                    f"{path}: {node.value!r} is refused by {validator} "
                    f"({bounds_check.describe(refusal)}; {self.model.label}: {where})",
                    evidence=where,
                )
        return None

    def mapping(self, path: str, models: list[str], node: _Node) -> Iterator[FileProblem]:
        cls = models[0]
        dispatch = self.model.dispatch(cls) if len(models) > 1 or self.model.dispatch(cls) else None
        items = dict(node.items)
        if dispatch is not None:
            key = dispatch["key"]
            tag_pair = items.pop(key, None)
            where = f"{self.model.classes.get(cls, {}).get('file', '?')}:{dispatch['line']}"
            if tag_pair is None:
                yield FileProblem(
                    node.span,
                    f"{path}: {key} is missing; {self.model.label} "
                    f"picks the config class by it ({where})",
                    evidence=where,
                )
                return
            if tag_pair[1].symbolic:
                return  # the class cannot be known: nothing to judge
            tag = tag_pair[1].value
            lookup = tag.lower() if dispatch.get("lower") and isinstance(tag, str) else tag
            if (
                self.backend in ("pytorch", "_autodeploy")
                and lookup == "Eagle"
                and "Eagle3" in dispatch["classes"]
            ):
                lookup = "Eagle3"  # from_dict builds Eagle3 for "Eagle" on the PyTorch backend
            if (
                not isinstance(lookup, str | int | float | bool)
                or lookup not in dispatch["classes"]
            ):  # a list or mapping: no class either
                where = f"{self.model.classes.get(cls, {}).get('file', '?')}:{dispatch['line']}"
                yield FileProblem(
                    tag_pair[1].span,
                    f"{path}.{key}: {tag!r} is not one of "
                    f"{', '.join(sorted(dispatch['classes']))} "
                    f"({self.model.label}: {where})",
                    evidence=where,
                    unknown_name=isinstance(lookup, str),
                )
                return
            cls = dispatch["classes"][lookup]
            if path == "speculative_config":
                refused = model_rules.backend_refused(
                    self.model, cls, self.backend, self.root, tag, tag_pair[1].span
                )
                if refused is None:
                    refused = model_rules.assert_refused(
                        self.model, self.root, cls, items, node.span
                    )
                if refused is not None:
                    yield _problem(refused)
        elif len(models) > 1:
            return  # a union of models without a dispatch key: pydantic tries each
        fields = self.model.fields(cls)
        for key, (knode, vnode) in items.items():
            if knode.symbolic:
                continue
            field = _field(fields, key)
            if field is None:
                if self.model.forbids(cls):
                    guess = suggest(key, list(fields), cutoff=0.75)
                    src = self.model.source(cls)
                    msg = (
                        f'{path}: unknown key "{key}" for {cls} in {self.model.label} '
                        f"(extra keys are forbidden; {src})"
                    )
                    if guess:
                        msg += f'; did you mean "{guess}"?'
                    yield FileProblem(knode.span, msg, evidence=src, unknown_name=True)
                continue
            yield from self.value(f"{path}.{key}", field, vnode, cls)
        if not any(k.symbolic for k, _ in node.items.values()):
            for found in model_rules.missing_required(self.model, cls, set(items), path, node.span):
                yield _problem(found)


def _is_null(node: _Node) -> bool:
    return node.value is None and node.items is None and not node.symbolic


def _problem(found: model_rules.Refusal) -> FileProblem:
    span, message, evidence = found
    return FileProblem(span, message, evidence=evidence)


def _field(fields: dict[str, Any], key: str) -> dict[str, Any] | None:
    if key in fields:
        return fields[key]
    return next((f for f in fields.values() if key in f.get("aliases", ())), None)


def check(
    profile: Profile,
    lines: tuple[tuple[str, Span | None, bool], ...],
    backend: str,
    anchor: Span,
    *,
    serve: bool = True,
) -> tuple[list[FileProblem], dict[str, Any]]:
    """Problems of one option file, and facts for the summary (resolved / symbolic).

    ``serve``: the file reaches the LLM class through ``trtllm-serve`` (its pops and its
    ``--backend`` choices); otherwise through ``update_llm_args_with_extra_options`` of another
    launcher (Dynamo's trtllm worker), which pops nothing and judges only the PyTorch class."""
    doc = OptionFile(lines)
    facts = {"symbolic_values": len(doc.placeholders), "opaque": doc.opaque}
    if doc.opaque:
        return [], facts  # a symbolic line that is not a value: the structure is unknown
    tree, error = doc.parse()
    if error is not None:
        return [
            FileProblem(
                anchor,
                f"the option file is {error}; {profile.label} fails reading it",
                evidence=model_of(profile).evidence.get("loader", ""),
            )
        ], facts
    if tree is None:
        return [], facts
    override = _backend_override(profile, tree) if serve else _pytorch_only(tree)
    if override is not None:
        problem, backend = override
        if problem is not None:
            return [problem], facts
        if backend is None:
            return [], facts  # a symbolic backend: the class is unknown
    return list(_Checker(profile, backend, serve).top(tree)), facts


def _pytorch_only(tree: _Node) -> tuple[None, str | None] | None:
    """Another launcher's ``backend:`` key: judged only when it names the PyTorch backend (the
    launcher decides what other values mean)."""
    if not isinstance(tree.items, dict) or "backend" not in tree.items:
        return None
    node = tree.items["backend"][1]
    return None, ("pytorch" if not node.symbolic and node.value == "pytorch" else None)


def _backend_override(
    profile: Profile, tree: _Node
) -> tuple[FileProblem | None, str | None] | None:
    """The file's own ``backend:`` key: merged over the command line's, it picks the class
    (``launch_server`` reads ``llm_args["backend"]``); a value it does not know fails there."""
    if not isinstance(tree.items, dict) or "backend" not in tree.items:
        return None
    node = tree.items["backend"][1]
    if node.symbolic:
        return None, None
    act = profile.by_dest.get("backend")
    known = set(act.choices or []) | set(act.raw.get("aliases", {})) if act else set()
    value = node.value
    if isinstance(value, str) and value in known:
        return None, (act.raw.get("aliases") or {}).get(value, value)  # type: ignore[union-attr]
    where = act.raw.get("source", "") if act else ""
    return FileProblem(
        node.span,
        f"backend: {value!r} is not a backend {profile.label} knows "
        f"({', '.join(sorted(known))}); the server refuses it "
        f"({where})",
        evidence=where,
    ), None
