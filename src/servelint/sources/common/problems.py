"""A problem met while reading a source file (never an exception to the caller)."""

from __future__ import annotations

from servelint.model import Span


class ReadProblem:
    """Something a reader could not read or resolve.

    ``kind`` is a short kebab-case category: ``read-error`` (file unreadable or
    unparsable), ``parse-error`` (syntax the parser rejected), ``unsupported``
    (construct skipped), ``budget`` (time/size bound hit), ``unresolved``
    (a reference that points nowhere: missing script, unknown runner, ...).
    A plain slotted record: nothing compares, hashes or copies one.
    """

    __slots__ = ("path", "span", "message", "kind", "subject")

    def __init__(
        self, path: str, span: Span | None, message: str, kind: str = "read-error",
        subject: str = "",
    ) -> None:
        self.path = path
        self.span = span
        self.message = message
        self.kind = kind
        # what the problem is about when that changes its weight: "source" for a helper file
        # the launch sources (the launch itself is still read)
        self.subject = subject
