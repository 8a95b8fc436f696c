"""Fix builders shared by rules: rename a token, drop tokens or an env entry, set a value.

Edits point at token and env spans (what the readers give) and name the text they expect,
so ``servelint.fixes`` can refuse an edit the source does not match; a rule never reads
the file. Symbolic tokens (``$TP``) are never edited.
"""

from __future__ import annotations

from servelint.model import Edit, EnvVar, Fix, FixSafety, LaunchSpec, Span


def _editable(span: Span | None) -> bool:
    return span is not None and span.end_column is not None and span.end_line in (None, span.line)


def rename_token(
    spec: LaunchSpec, index: int | None, old: str, new: str, safety: FixSafety, description: str
) -> Fix | None:
    """Write ``new`` for the ``old`` part of argv token ``index`` (its flag name, say)."""
    if index is None or not 0 <= index < len(spec.argv):
        return None
    tok = spec.argv[index]
    if tok.symbolic and "$" in old or not _editable(tok.span) or old not in tok.text:
        return None
    return Fix((Edit(tok.span, new, old=old),), safety, description)  # type: ignore[arg-type]


def drop_tokens(spec: LaunchSpec, indices: list[int], description: str) -> Fix | None:
    """Delete argv tokens (a flag and its values): unsafe, it changes what runs."""
    edits = []
    for index in sorted(set(indices)):
        if not 0 <= index < len(spec.argv):
            return None
        tok = spec.argv[index]
        if not _editable(tok.span):
            return None
        edits.append(Edit(tok.span, "", old=tok.text))  # type: ignore[arg-type]
    return Fix(tuple(edits), FixSafety.UNSAFE, description) if edits else None


def option_tokens(opt) -> list[int]:
    """The argv indices of a parsed option: its flag and the separate value tokens."""
    indices = [opt.index]
    if opt.value_index is not None and opt.value_index != opt.index:
        count = len(opt.value) if isinstance(opt.value, list) else 1
        indices += range(opt.value_index, opt.value_index + count)
    return indices


def drop_env(env: EnvVar, description: str) -> Fix | None:
    """Delete an env entry (``NAME=value`` word, or a YAML ``NAME: value`` line)."""
    if env.symbolic or not _editable(env.span):
        return None
    return Fix((Edit(env.span, ""),), FixSafety.UNSAFE, description)  # type: ignore[arg-type]


def rename_env(env: EnvVar, new: str, safety: FixSafety, description: str) -> Fix | None:
    if not _editable(env.span):
        return None
    return Fix((Edit(env.span, new, old=env.name),), safety, description)  # type: ignore[arg-type]


def set_value(
    span: Span | None, old: str, new: str, safety: FixSafety, description: str
) -> Fix | None:
    """Write ``new`` for ``old`` inside ``span`` (a recipe floor, an image tag)."""
    if not _editable(span) or not old:
        return None
    return Fix((Edit(span, new, old=old),), safety, description)  # type: ignore[arg-type]
