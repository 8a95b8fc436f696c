"""``python -m servelint``: the same command line as the ``servelint`` script."""

from servelint.cli import run

run()
