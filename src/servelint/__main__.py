"""``python -m servelint``: the same command line as the ``servelint`` script."""

from servelint.cli import main

raise SystemExit(main())
