"""What the deployment readers add to a ``launches.CommandRecord``: a script word's text
placed where the file holds it (``ShellText``), so that ``sh -c`` scripts keep file spans."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class ShellText:
    """A shell script as the file holds it: ``text`` whose line 1 is line ``line_offset + 1``
    of the file and whose every word sits at its own column (a YAML scalar's lines as
    written, see ``scalar_text``)."""

    text: str
    line_offset: int
