"""Bash launchers (``*.sh``, ``*.bash``, or a bash shebang): every engine launch a script
can make, read by a symbolic interpreter (nothing is executed)."""

from __future__ import annotations

from pathlib import Path

from servelint.sources.base import Head, ReadContext, ReadResult, on_first_use

read_script = on_first_use("servelint.sources.shell.script", "read_script")


class ShellReader:
    name = "shell"

    def claims(self, path: Path, head: Head) -> bool:
        suffix = path.suffix.lower()
        if suffix in {".sh", ".bash"}:
            return True
        if suffix:
            return False
        first = head.text(64)
        line = first.splitlines()[0] if first.startswith("#!") else ""
        return "bash" in line or line.endswith("/sh")

    def read(self, path: str, ctx: ReadContext) -> ReadResult:
        result = read_script(path, time_limit=ctx.time_limit)
        return ReadResult(list(result.launches), list(result.problems))
