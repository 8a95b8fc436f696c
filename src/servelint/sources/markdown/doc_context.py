"""What a document says before a launch, carried to the launch (Markdown guides, a recipe's
``guide:`` text and ``dependencies:`` block).

Each shell block is interpreted on its own, but a reader follows a guide top to bottom:

* install steps (``pip``/``uv pip`` lines, a recipe's ``dependencies:``) before a launch are
  installed where it runs: they satisfy package gates and say which release it gets; so are
  installs of other packages given as inline code in prose, tables and shell comments
  (``prose_installs``);
* ``export X=…`` lines in a block with no launch of its own apply to the launches after it
  (a block that launches keeps its own exports, as the bash reader reads them); exports no
  launch runs with and env names in inline code (notes, tables of knobs) are judged by name
  only, against the nearest launch's release (``env_mentions``);
* ``pip install -e .`` after ``git clone …/vllm-project/vllm`` builds the engine from source;
* a name the document's own code registers (``register_module("example")``) is not judged
  as a value of a later launch;
* a file a heredoc writes (``cat > config.yaml <<EOF``), or a fenced YAML block the text
  names (``config.yaml`` in its info string, first-line comment or the sentence above it),
  is the ``--config`` file of a later launch that names it.

A ``docker run`` launch gets none of the host's installs or exports (its image and ``-e``
flags say what it has). Spans stay where the document wrote each step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from servelint.engines import registry
from servelint.launches import config_file_value, expand_config_file
from servelint.model import EnvVar, LaunchSpec, PackageInstall, Span, Token
from servelint.sources.markdown.fences import Fence
from servelint.sources.shell.values import is_symbolic, text_of

Lines = tuple[tuple[str, Span | None, bool], ...]
_FILE_NAME = re.compile(r"(?<![\w/.-])([\w][\w./-]*\.ya?ml)\b")
_CONFIG_LANGS = frozenset({"yaml", "yml"})
# a name the document's own code registers with the engine (a parser, a plugin):
# ``register_module("x")``, ``register_module(["x", "y"])``, ``register_lazy_module(name="x"``
_REGISTERS = re.compile(r"\bregister(?:_lazy)?_module\(\s*(?:name\s*=\s*)?\[?([^)\]]*)")
_CLONE = re.compile(r"\bgit\s+clone\b[^\n]*?\b([\w.-]+/[\w.-]+?)(?:\.git)?(?:\s|$)")
_QUOTED = re.compile(r"[\"']([\w.-]+)[\"']")


def _before(span: Span | None, at: Span) -> bool:
    return span is not None and (span.line, span.column) < (at.line, at.column)


@dataclass(slots=True, eq=False)
class DocContext:
    """What a document's code sets up for the launches after it (installs, exports, files),
    filled as the document is read."""

    installs: list[PackageInstall] = field(default_factory=list)
    exports: list[EnvVar] = field(default_factory=list)
    files: list[tuple[str, Span, Lines]] = field(default_factory=list)  # (name, where, lines)
    registered: set[str] = field(default_factory=set)  # names the document's code registers
    # the package whose source the document clones (``git clone …/vllm-project/vllm``:
    # an engine's ``source_repositories``)
    checkout: str = ""

    # ---------------------------------------------------------------- collecting
    def add_installs(self, installs: list[PackageInstall]) -> None:
        self.installs.extend(i for i in installs if i.span is not None)

    def add_checkout(self, fence: Fence) -> None:
        """``git clone …/vllm-project/vllm``: a later ``pip install -e .`` builds vLLM."""
        sources = {r: e.package for e in registry.engines() for r in e.source_repositories}
        for m in _CLONE.finditer("\n".join(fence.lines)):
            if sources.get(m.group(1)):
                self.checkout = sources[m.group(1)]

    def add_block(self, interp, mapper, launches: int) -> None:  # noqa: ANN001
        """Installs, exports (when the block launches nothing) and files of one block."""
        self.add_installs(
            [replace(i, span=mapper.span(i.span), from_context=True) for i in interp.installs_seen]
        )
        states = [s for s in interp.end_states if not s.flow]
        if len(states) != 1:
            return  # branches disagree (or none ended): nothing certain to carry on
        st = states[0]
        if not launches:
            for name, var in sorted(st.vars.items()):
                if var.exported and not var.external and var.scalar is not None:
                    self.exports.append(
                        EnvVar(
                            name,
                            text_of(var.scalar),
                            mapper.span(var.span),
                            is_symbolic(var.scalar),
                        )
                    )
        for name, vf in st.files.items():
            if vf.unknown or not vf.lines:
                continue
            lines = tuple((t, mapper.span(s), sym) for t, s, sym in vf.lines)
            where = lines[0][1]
            if where is not None:
                self.files.append((name, where, lines))

    def add_code(self, fence: Fence) -> None:
        """Names a code block registers with the engine (its values are the document's own)."""
        for m in _REGISTERS.finditer("\n".join(fence.lines)):
            self.registered.update(_QUOTED.findall(m.group(1).split("module_path", 1)[0]))

    def add_fenced_file(self, fence: Fence, prose: str, mapper) -> None:  # noqa: ANN001
        """A YAML block the document names as a file (``config.yaml``)."""
        if fence.lang not in _CONFIG_LANGS or not fence.lines:
            return
        first = fence.lines[0].strip()
        m = _FILE_NAME.search(first) if first.startswith("#") else None
        m = m or _FILE_NAME.search(prose.strip().splitlines()[-1] if prose.strip() else "")
        if m is None:
            return
        lines = tuple(
            (text, mapper.span(Span("", fence.line + i, 1, fence.line + i, len(text) + 1)), False)
            for i, text in enumerate(fence.lines)
        )
        where = lines[0][1]
        if where is not None:
            self.files.append((m.group(1), where, lines))

    # ---------------------------------------------------------------- applying
    def apply(self, spec: LaunchSpec) -> None:
        if spec.context.get("docker"):
            return  # a container: the host's installs and exports do not reach it
        at = spec.anchor
        have = {(i.requirement, i.span) for i in spec.installs}
        earlier = [
            i for i in self.installs if _before(i.span, at) and (i.requirement, i.span) not in have
        ]
        spec.installs = earlier + spec.installs
        for inst in spec.installs:  # `pip install -e .` in the engine's checkout
            if self.checkout and inst.name is None and inst.kind in ("path", "editable"):
                inst.name = self.checkout
        names = {e.name for e in spec.env}
        latest: dict[str, EnvVar] = {}
        for env in self.exports:
            if _before(env.span, at) and env.name not in names:
                latest[env.name] = env
        spec.env = list(latest.values()) + spec.env
        if self.registered:  # a value the document's own code registers is not judged
            spec.argv = [
                Token(t.text, t.span, True) if t.text in self.registered else t for t in spec.argv
            ]
        self._config(spec)

    def _config(self, spec: LaunchSpec) -> None:
        found = config_file_value(spec)
        if found is None:
            return
        name, at_value = found
        base = name.rsplit("/", 1)[-1]
        written = [f for f in self.files if f[0] in (name, base) or f[0].rsplit("/", 1)[-1] == base]
        written = [f for f in written if _before(f[1], spec.anchor)]
        if not written:
            return
        lines = written[-1][2]
        if expand_config_file(spec, at_value, lines):
            spec.context["config_text"] = "\n".join(t for t, _, _ in lines)
            spec.context["config_from"] = f"written at line {written[-1][1].line}"


def prose_before(text_lines: list[str], fence: Fence, previous_end: int) -> str:
    """The document's lines between the previous fence and ``fence`` (its opening line
    excluded)."""
    start = max(previous_end, 0)
    return "\n".join(text_lines[start : max(fence.line - 2, start)])
