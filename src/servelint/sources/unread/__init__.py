"""The last reader: a YAML, shell, Markdown, template or JSON file no other reader claims
that mentions an engine (a launcher command, a ``python -m`` module, an image repository)
gets one info line saying what it is and why it is not read. Never a silent skip."""

from __future__ import annotations

import re
from pathlib import Path

from servelint.engines import image_table, registry
from servelint.model import Span
from servelint.sources.base import Head, ReadContext, ReadResult
from servelint.sources.common.problems import ReadProblem

SUFFIXES = frozenset({".yaml", ".yml", ".json", ".sh", ".bash", ".md", ".markdown", ".j2",
                      ".jinja", ".jinja2", ".tpl", ".gotmpl", ".txt", ".toml"})
HEAD_BYTES = 1 << 16


def engine_words() -> re.Pattern[str]:
    """A launcher's words, a launcher module or an image repository of any engine."""
    words = {" ".join(c.words) for _, c in registry.commands()}
    words |= set(registry.modules())
    words |= set(registry.repositories())
    words |= set(image_table.repositories())  # images holding an engine (llm-d, Dynamo)
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    registry_host = r"(?:[\w\-]+(?:\.[\w\-]+)+(?::\d+)?/)?"  # ghcr.io/, nvcr.io/
    return re.compile(rf"(?<![\w.\-/]){registry_host}(?:{alternatives})(?![\w\-])")


def what_it_is(path: Path, text: str) -> str:
    """Words naming the file's kind, as far as its name and head tell."""
    if path.suffix.lower() in (".tpl", ".gotmpl") or "{{- define" in text:
        return "Helm/Go template helpers"
    if re.search(r"^modelArtifacts:", text, re.M) and re.search(r"^(decode|prefill):", text,
                                                                   re.M):
        return ("Helm values file of llm-d's llm-d-modelservice chart, whose "
                "`llm-d-modelservice.container` helper writes the command from `modelCommand` "
                "(llm-d-incubation/llm-d-modelservice: charts/llm-d-modelservice/templates/"
                "_helpers.tpl); none of its containers names a modelCommand the chart map "
                "knows (sources/helm/llmd.py)")
    if (path.parent / "Chart.yaml").exists() and path.name.startswith("values"):
        return "Helm values file of the chart beside it"
    if path.name == "Chart.yaml":
        return "Helm chart metadata"
    if "{{" in text or "{%" in text:
        return "template"
    return f"{path.suffix.lstrip('.') or 'text'} file"


def no_launch_note(path: str, text: str, result: ReadResult, what: str,
                   always: bool = False) -> ReadResult:
    """A file a reader read that found no launch although it mentions an engine (or,
    ``always``, whose kind says a launch is made elsewhere): one note saying so (``what``:
    the kind and why), never silence."""
    if result.specs:
        return result
    m = engine_words().search(text)
    if m is None and always:
        result.problems.append(ReadProblem(path, Span(path, 1, 1, 1, 1),
                                           f"{what}; nothing checked here", "unsupported"))
        return result
    if m is None:
        return result
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    result.problems.append(ReadProblem(
        path, Span(path, line, column, line, column + len(m.group(0))),
        f"{what} mentions `{m.group(0)}` but starts no engine servelint recognises "
        "(no container's command is a launcher it knows); nothing checked", "unsupported"))
    return result


class UnreadReader:
    name = "unread"

    def claims(self, path: Path, head: Head) -> bool:
        return path.suffix.lower() in SUFFIXES and \
            engine_words().search(head.text(HEAD_BYTES)) is not None

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        p = Path(path)
        text = Head(p).text(HEAD_BYTES)
        m = engine_words().search(text)
        if m is None:
            return ReadResult()
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        span = Span(path, line, column, line, column + len(m.group(0)))
        message = (f"{what_it_is(p, text)} mentions `{m.group(0)}` but holds no launch "
                   "servelint can read (no reader claims this layout); not checked")
        return ReadResult(problems=[ReadProblem(path, span, message, "unsupported")])
