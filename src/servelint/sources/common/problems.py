"""A problem met while reading a source file (never an exception to the caller)."""

from __future__ import annotations

from dataclasses import dataclass

from servelint.model import Span


@dataclass(slots=True, eq=False)
class ReadProblem:
    """Something a reader could not read or resolve.

    ``kind`` is a short kebab-case category: ``read-error`` (file unreadable or
    unparsable), ``parse-error`` (syntax the parser rejected), ``unsupported``
    (construct skipped), ``budget`` (time/size bound hit), ``unresolved``
    (a reference that points nowhere: missing script, unknown runner, ...).
    """

    path: str
    span: Span | None
    message: str
    kind: str = "read-error"
    # what the problem is about when that changes its weight: "source" for a helper file
    # the launch sources (the launch itself is still read)
    subject: str = ""
