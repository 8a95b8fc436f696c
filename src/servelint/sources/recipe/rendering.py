"""What rendering a recipe gives: one ``Rendering`` per launch the recipes site shows."""

from __future__ import annotations

from dataclasses import dataclass, field

from servelint.launches import CommandRecord, Origin, assemble
from servelint.model import EnvVar, LaunchSpec, Span, Token
from servelint.sources.common.problems import ReadProblem
from servelint.sources.common.yamlpos import Map, at
from servelint.sources.recipe.load import Recipe
from servelint.sources.recipe.text import command_lines, export_lines

FeatureChoice = str | bool  # a mode id, True (on, default mode) or False (off)
FLOOR_KEY = "min_vllm_version"  # the recipe key that states a release floor


def shell_words(tokens) -> list[Token]:
    """The site prints a token such as "--max-model-len auto" unquoted: the shell the user
    pastes it into splits it, so the launch gets two words (both pointing at that scalar)."""
    if " " not in "\0".join([t.text for t in tokens]):
        return list(tokens)  # the common case: nothing to split
    out: list[Token] = []
    for t in tokens:
        if t.text.startswith("-") and " " in t.text.strip():
            out.extend(Token(part, t.span, t.symbolic) for part in t.text.split())
        else:
            out.append(t)
    return out


@dataclass(slots=True, eq=False)
class Rendering:
    """One command the recipes site renders for a recipe (variant, hardware, strategy, features).
    A plain slotted record (one is built per launch; nothing compares, hashes or copies one)."""

    recipe: str  # hf id of the recipe file
    path: str
    variant: str
    hardware: str
    strategy: str  # "" for omni renderings
    features: dict[str, FeatureChoice]
    label: str
    argv: list[Token]  # "vllm", "serve", model id, flags...
    env: list[EnvVar]
    image: str | None
    image_span: Span | None
    floor: str | None
    floor_span: Span | None
    anchor: Span
    engine: str = "vllm"  # "vllm-omni" for omni recipes
    node_rank: int | None = None  # multi-node: 0 = head
    nodes: int = 1
    task: str | None = None  # omni task preset key
    role: str | None = None  # pd_cluster: "prefill" | "decode"

    @property
    def argv_text(self) -> list[str]:
        return [t.text for t in self.argv]

    @property
    def env_dict(self) -> dict[str, str]:
        return {e.name: e.value for e in self.env}

    def command_text(self) -> str:
        """``export`` lines, a blank line, then the command, as the site's pip/uv tab prints it."""
        body = command_lines(self.argv[2].text, self.argv[3:])
        exports = export_lines(self.env)
        return "\n".join(exports) + "\n\n" + body if exports else body

    def to_launch_spec(self) -> LaunchSpec:
        context = {
            "recipe": self.recipe,
            "variant": self.variant,
            "strategy": self.strategy,
            "features": ",".join(
                [k if v is True else f"{k}={v}" for k, v in self.features.items() if v is not False]
            ),
        }
        if self.node_rank is not None:
            context["node_rank"] = str(self.node_rank)
            context["nodes"] = str(self.nodes)
        if self.task:
            context["task"] = self.task
        if self.role:
            context["role"] = self.role
        if self.floor is not None:
            context["floor_key"] = FLOOR_KEY  # the recipe's own key: a fix may raise it
        # the site prints the whole command: it replaces the image's entrypoint
        image = Token(self.image, self.image_span) if self.image is not None else None
        record = CommandRecord(
            words=shell_words(self.argv),
            anchor=self.anchor,
            origin=Origin("recipe", self.path, self.label),
            env=list(self.env),
            image=image,
            entrypoint=[] if image is not None else None,
            context=context,
            floor=Token(self.floor, self.floor_span) if self.floor is not None else None,
            gpu=self.hardware,
            serves=self.engine,
        )
        (spec,) = assemble(record).specs
        return spec


@dataclass(slots=True, eq=False)
class RenderResult:
    """A recipe's renderings and the problems met rendering them."""

    renderings: list[Rendering] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)


def model_token(recipe: Recipe, variant: str, task: Map | None = None) -> Token:
    """The served checkpoint: task > variant > model ``model_id``."""
    for node in (
        at(task, "model_id"),
        recipe.node("variants", variant, "model_id"),
        recipe.node("model", "model_id"),
    ):
        if node is not None and getattr(node, "value", None):
            return Token(str(node.value), node.span)  # type: ignore[union-attr]
    return Token(recipe.hf_id, recipe.root.span)
