"""What a container runs: its image's entrypoint (asked of the engine that owns the image,
``Images.entrypoint``) followed by its arguments, or the entrypoint the document sets.

* An entrypoint the document sets (``--entrypoint X``, Kubernetes ``command:``) replaces
  the image's: the command is ``X ARGS…``.
* An image whose entrypoint its engine knows (``vllm/vllm-openai`` runs ``vllm serve``):
  the arguments follow it. Arguments that start by repeating one of the engine's launchers
  (``vllm serve m``, ``python3 -m vllm.entrypoints.openai.api_server``) are the
  entrypoint-shape mistake (the server would receive ``vllm serve vllm serve m`` and stop
  on the extra positionals; the 0.21.0 parser: ``unrecognized arguments: serve org/m``):
  the repeated words are dropped, so the flags are still checked, and the mistake is
  returned as ``shape_error``.
* Another image of an engine with an ``assumed_entrypoint`` (vLLM's ROCm, CPU and TPU
  builds): arguments that start with a flag or a model id follow that entrypoint
  (``assumed`` says so); arguments that start with a command are that command.
* An image named by a variable with a default (``${IMAGE:-vllm/vllm-openai:v0.26.0}``): the
  default's entrypoint, said as assumed; the release stays unknown.
* Any other image, or one named by a variable: the arguments are the command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from servelint.engines import registry
from servelint.engines.images import resolve_image
from servelint.launches.recognise import launcher_at
from servelint.model import Span, Token
from servelint.profiles import store


@dataclass(slots=True)
class ContainerCommand:
    """The command a container runs, and whether its entrypoint is assumed or misshapen."""

    words: list[Token]  # the command the container runs (entrypoint + arguments)
    assumed: str = ""  # why the entrypoint is an assumption, when it is
    shape_error: str = ""  # the entrypoint-shape mistake, when there is one
    shape_span: Span | None = None


def container_command(
    image: Token | None, entrypoint: list[Token] | None, args: list[Token], runner: str
) -> ContainerCommand | None:
    """What a container of ``image`` runs (None: nothing to judge). ``runner`` names the
    construct in messages ("docker run")."""
    if image is None:
        return None
    if entrypoint is not None:
        return ContainerCommand([*entrypoint, *args])
    defaulted = ""
    if image.symbolic:
        fallback = _default_image(image)
        if fallback is None:
            return ContainerCommand(list(args)) if launcher_at(args, 0) else None
        # `${VLLM_IMAGE:-vllm/vllm-openai:v0.26.0}`: the image when the variable is unset;
        # its entrypoint is taken from it, its release stays unknown (the launch's range)
        defaulted = f"the image is {image.text}, {fallback.text} when the variable is unset"
        image = fallback
    ref = resolve_image(image.text)
    engine = registry.find(ref.engine)
    entry = engine.images.entrypoint(ref.repository, ref.release) if engine else None
    entry = _stored_entrypoint(image.text) or entry
    if entry:
        command = _after_entrypoint(image, entry, args, ref.engine, runner)
        command.assumed = command.assumed or defaulted
        return command
    if engine is not None and engine.images.assumed_entrypoint:
        if not args:
            return None  # an interactive container: the command comes later
        if args[0].text.startswith("-") or _looks_like_model(args[0].text):
            words = [Token(w, image.span) for w in engine.images.assumed_entrypoint]
            return ContainerCommand(
                [*words, *args],
                assumed=f"the entrypoint of {ref.repository} is taken to be "
                f"`{' '.join(engine.images.assumed_entrypoint)}`",
            )
    return ContainerCommand(list(args))


def _stored_entrypoint(image: str) -> tuple[str, ...] | None:
    """The entrypoint the image's own config gives, when the user's store has a profile
    built from its archive (``profile build --image-archive``) and it starts an engine."""
    entry = store.match(image)
    if entry is None or not entry.entrypoint or not entry.fresh():
        return None
    words = tuple(entry.entrypoint)
    return words if launcher_at([Token(w, None) for w in words], 0) else None


def _after_entrypoint(
    image: Token, entry: tuple[str, ...], args: list[Token], engine: str, runner: str
) -> ContainerCommand:
    words = [Token(w, image.span) for w in entry]
    hit = launcher_at(args, 0)
    skip = hit[2] if hit is not None and hit[0] == engine else 0
    if not skip:
        return ContainerCommand(words + args)
    written = " ".join(t.text for t in args[:skip])
    ran = " ".join(entry)
    return ContainerCommand(
        words + args[skip:],
        shape_error=(
            f"{runner}: the image {image.text} already runs `{ran}` "
            f"(its entrypoint); the arguments repeat `{written}`, so the "
            f"server receives `{ran} {written} …` and stops at parse time "
            '("unrecognized arguments"). Pass only `<model> --flags` after '
            "the image, or set --entrypoint"
        ),
        shape_span=args[0].span,
    )


_DEFAULTED = re.compile(r"\$\{\w+:?-([^${}\s]+)\}")


def _default_image(image: Token) -> Token | None:
    """The default of an image written ``${VAR:-IMAGE}`` (shell and Compose interpolation),
    when it is an image of an engine; None otherwise."""
    m = _DEFAULTED.fullmatch(image.text)
    if m is None or registry.find(resolve_image(m.group(1)).engine) is None:
        return None
    return Token(m.group(1), image.span)


def _looks_like_model(text: str) -> bool:
    """``org/name`` (a Hugging Face id) rather than a command word."""
    return text.count("/") == 1 and not text.startswith(("/", ".")) and " " not in text
