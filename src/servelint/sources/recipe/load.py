"""Load a vLLM recipe (``models/<org>/<model>.yaml``) together with its repository's
taxonomy, strategies and kv_store files (loaded once per repository root).

A recipe outside a recipes checkout uses the copy bundled under
``servelint/data/recipes_default`` (see the README there for provenance).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from servelint.model import Span
from servelint.sources.common.deps import note
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq, YamlDoc, at, load_yaml

BUNDLED_ROOT = Path(__file__).resolve().parents[2] / "data" / "recipes_default"


@dataclass(slots=True, eq=False)
class HardwareProfile:
    """One ``taxonomy.yaml`` hardware profile (only the fields command synthesis reads); one
    instance per id in a checkout, keyed by ``id`` wherever a key is needed."""

    id: str
    brand: str  # NVIDIA | AMD | Google | Intel | Huawei
    generation: str  # hopper | blackwell | ada | amd | tpu | cpu | xpu | npu
    gpu_count: int
    vram_gb: float | None  # memory of the whole node
    scalable: bool = True
    restricted: bool = False

    @property
    def per_gpu_gb(self) -> float | None:
        if self.vram_gb is None or not self.gpu_count:
            return None
        return self.vram_gb / self.gpu_count


@dataclass(slots=True, eq=False, repr=False)
class RecipeRepo:
    """The files every recipe of one checkout shares."""

    root: Path
    bundled: bool
    hardware: dict[str, HardwareProfile]
    strategies: Mapping[str, Map]  # strategies/*.yaml and kv_store/*.yaml keyed by ``name``
    strategy_ids: list[str]  # taxonomy ``strategies`` order
    taxonomy: Map | None
    problems: list[ReadProblem] = field(default_factory=list)
    files: tuple[str, ...] = ()  # the files read: taxonomy.yaml, strategies, kv_store
    # strategy id -> its deploy_type (recipe_select.deploy_type), filled on first use
    deploy_types: dict[str, str] = field(default_factory=dict, repr=False, compare=False)


@dataclass(slots=True, eq=False, repr=False)
class Recipe:
    """One recipe file, composed, with the checkout it belongs to."""

    path: str
    hf_id: str  # "<org>/<repo>" from the path inside models/, else model.model_id
    root: Map
    repo: RecipeRepo
    problems: list[ReadProblem] = field(default_factory=list)
    # key path -> node: the renderer asks for the same paths for every rendering
    _nodes: dict[tuple, Node | None] = field(default_factory=dict, repr=False, compare=False)
    # variant -> span of its ``variants.<v>`` key (recipe_nodes.variant_anchor)
    anchors: dict[str, Span] = field(default_factory=dict, repr=False, compare=False)

    def node(self, *keys: str | int) -> Node | None:
        try:
            return self._nodes[keys]
        except KeyError:
            found = self._nodes[keys] = at(self.root, *keys)
            return found

    @property
    def is_omni(self) -> bool:
        tasks = self.node("meta", "tasks")
        return isinstance(tasks, Seq) and any(
            isinstance(t, Scalar) and t.value == "omni" for t in tasks
        )


def find_repo_root(recipe_path: str | Path) -> Path | None:
    """The nearest enclosing folder holding ``taxonomy.yaml`` and ``strategies/``."""
    path = Path(recipe_path).resolve()
    for folder in path.parents:
        if (folder / "taxonomy.yaml").is_file() and (folder / "strategies").is_dir():
            return folder
    return None


def load_repo(root: str | Path | None) -> RecipeRepo:
    """The shared files of a checkout (or the bundled copy for ``None``), cached per root."""
    repo = (
        _load_repo(str(BUNDLED_ROOT), True)
        if root is None
        else _load_repo(str(Path(root).resolve()), False)
    )
    for file in repo.files:  # loaded once per root, depended on by every recipe of it
        note(file)
    return repo


class BundledStrategies(Mapping[str, Map]):
    """The bundled copy's strategy files, each composed on first use (a recipe uses two or
    three of eleven). Every bundled file is named by its stem and reads without a problem
    (``tests/test_recipe_reader.py`` proves it), so ``k`` is the file ``k.yaml`` and this
    mapping equals the one :func:`strategy_files` builds."""

    def __init__(self, files: list[Path]) -> None:
        self._files = {file.stem: file for file in files}
        self._loaded: dict[str, Map | None] = {}

    def __getitem__(self, key: str) -> Map:
        if key not in self._loaded:
            file = self._files[key]
            doc = load_yaml(file)
            self._loaded[key] = doc.root if isinstance(doc.root, Map) else None
        found = self._loaded[key]
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


def strategy_files(files: list[Path], problems: list[ReadProblem]) -> dict[str, Map]:
    """Every strategy file composed, keyed by its ``name`` (else its stem; the last wins)."""
    strategies: dict[str, Map] = {}
    for file in files:
        doc = load_yaml(file)
        problems += doc.problems
        if not isinstance(doc.root, Map):
            if doc.root is not None:
                problems.append(
                    ReadProblem(doc.path, doc.root.span, "strategy is not a mapping", "parse-error")
                )
            continue
        name = doc.root.get("name")
        key = str(name.value) if isinstance(name, Scalar) and name.value else file.stem
        strategies[key] = doc.root
    return strategies


@lru_cache(maxsize=16)
def _load_repo(root: str, bundled: bool) -> RecipeRepo:
    base = Path(root)
    problems: list[ReadProblem] = []
    tax_doc = load_yaml(base / "taxonomy.yaml")
    problems += tax_doc.problems
    taxonomy = tax_doc.root if isinstance(tax_doc.root, Map) else None
    if tax_doc.root is not None and taxonomy is None:
        problems.append(
            ReadProblem(tax_doc.path, tax_doc.root.span, "taxonomy is not a mapping", "parse-error")
        )
    hardware = _hardware_profiles(taxonomy, tax_doc.path, problems)
    files = [str(base / "taxonomy.yaml")]
    sources: list[Path] = []
    for folder in ("strategies", "kv_store"):
        files.append(str(base / folder))  # its listing: a strategy added changes renderings
        listed = sorted((base / folder).glob("*.yaml"))
        files += [str(file) for file in listed]
        sources += listed
    strategies = BundledStrategies(sources) if bundled else strategy_files(sources, problems)
    ids_node = at(taxonomy, "strategies")
    strategy_ids = (
        [str(n.value) for n in ids_node if isinstance(n, Scalar)]
        if isinstance(ids_node, Seq)
        else [k for k in strategies if not k.startswith("kv_store")]
    )
    return RecipeRepo(
        base, bundled, hardware, strategies, strategy_ids, taxonomy, problems, tuple(files)
    )


def _hardware_profiles(
    taxonomy: Map | None, path: str, problems: list[ReadProblem]
) -> dict[str, HardwareProfile]:
    profiles = at(taxonomy, "hardware_profiles")
    out: dict[str, HardwareProfile] = {}
    if not isinstance(profiles, Map):
        problems.append(
            ReadProblem(path, None, "taxonomy has no hardware_profiles mapping", "parse-error")
        )
        return out
    for hw_id, node in profiles.items():
        if not isinstance(node, Map):
            problems.append(
                ReadProblem(
                    path, node.span, f"hardware profile {hw_id!r} is not a mapping", "parse-error"
                )
            )
            continue
        gen = node.get("generation")
        if isinstance(gen, Seq):  # an array means "first element"
            gen = gen.items[0] if gen.items else None
        count = scalar_value(node.get("gpu_count"))
        vram = scalar_value(node.get("vram_gb"))
        out[hw_id] = HardwareProfile(
            id=hw_id,
            brand=str(scalar_value(node.get("brand")) or ""),
            generation=str(scalar_value(gen) or ""),
            gpu_count=count if isinstance(count, int) and not isinstance(count, bool) else 1,
            vram_gb=vram if isinstance(vram, (int, float)) and not isinstance(vram, bool) else None,
            scalable=scalar_value(node.get("scalable")) is not False,
            restricted=scalar_value(node.get("restricted")) is True,
        )
    return out


def scalar_value(node: Node | None) -> object:
    return node.value if isinstance(node, Scalar) else None


def load_recipe(
    path: str | Path, doc: YamlDoc | None = None
) -> tuple[Recipe | None, list[ReadProblem]]:
    """Read one recipe file (``doc``: already composed); ``(None, problems)`` when it cannot
    be used at all."""
    doc = doc if doc is not None else load_yaml(path)
    problems = list(doc.problems)
    if doc.root is None:
        if not problems:
            problems.append(ReadProblem(doc.path, None, "recipe file is empty"))
        return None, problems
    if not isinstance(doc.root, Map):
        problems.append(
            ReadProblem(doc.path, doc.root.span, "recipe is not a mapping", "read-error")
        )
        return None, problems
    root_dir = find_repo_root(path)
    repo = load_repo(root_dir)
    problems += repo.problems
    recipe = Recipe(doc.path, _hf_id(Path(path), root_dir, doc.root), doc.root, repo, problems)
    problems += _shape_problems(recipe)
    return recipe, problems


def _hf_id(path: Path, root_dir: Path | None, root: Map) -> str:
    if root_dir is not None:
        try:
            rel = path.resolve().relative_to(root_dir / "models")
            return str(rel.with_suffix("")).replace("\\", "/")
        except ValueError:
            pass
    model_id = scalar_value(at(root, "model", "model_id"))
    return str(model_id) if model_id else path.stem


# Keys whose shape the renderer depends on: (key path, expected node kind).
_SHAPES: list[tuple[tuple[str, ...], type]] = [
    (("model",), Map),
    (("model", "base_args"), Seq),
    (("model", "base_env"), Map),
    (("variants",), Map),
    (("features",), Map),
    (("opt_in_features",), Seq),
    (("compatible_strategies",), Seq),
    (("hardware_overrides",), Map),
    (("strategy_overrides",), Map),
]


def _shape_problems(recipe: Recipe) -> list[ReadProblem]:
    out: list[ReadProblem] = []
    for keys, kind in _SHAPES:
        node = recipe.node(*keys)
        if node is None or isinstance(node, kind):
            continue
        if isinstance(node, Scalar) and node.value is None:
            continue  # an empty value reads as "nothing"
        want = "a mapping" if kind is Map else "a list"
        out.append(
            ReadProblem(
                recipe.path, node.span, f"'{'.'.join(keys)}' should be {want}", "parse-error"
            )
        )
    if not isinstance(recipe.node("model", "model_id"), Scalar):
        out.append(
            ReadProblem(
                recipe.path, recipe.root.span, "recipe has no model.model_id", "parse-error"
            )
        )
    return out
