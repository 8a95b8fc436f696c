"""Where ``check -o FILE`` writes its report: never over an input, never through a symlink,
never half-written.

- An output path that names an input (the same file, or a symlink to it) is refused before
  anything is read; so is a symlink (it is not followed) and a folder.
- A regular file (or a new one) is written to an exclusive temporary file beside it and
  renamed over it at the end: until then the old file is untouched, and a failed write (a
  full disk) leaves it as it was.
- A FIFO is opened without blocking: with no reader, that is said at once (it used to wait
  forever); a device (``/dev/null``, ``/dev/stdout``) is written directly.
- A failed write (full disk, closed pipe) is one line naming the file and the reason.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path
from typing import TextIO


class ReportFileError(Exception):
    """The report cannot go to the file named: exit 2 with this one line."""


class ReportWriteError(ReportFileError):
    """Writing the report failed (the message names the file and the reason)."""


def refuse(output: Path, inputs: list[str]) -> None:
    """Raise ReportFileError when ``output`` may not be written (see the module doc)."""
    name = str(output)
    try:
        st = os.lstat(output)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise ReportFileError(f"-o/--output: cannot use {name!r}: {exc.strerror}") from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise ReportFileError(f"-o/--output: {name!r} is a symlink; servelint does not write "
                              "through one (name its target)")
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise ReportFileError(f"-o/--output: {name!r} is a directory")
    for given in inputs:
        if given != "-" and _same_file(output, given):
            raise ReportFileError(f"-o/--output: {name!r} is one of the files to check; "
                                  "writing the report there would replace it")


def _same_file(output: Path, given: str) -> bool:
    try:
        return os.path.samefile(output, given) or (
            os.path.realpath(output) == os.path.realpath(given))
    except OSError:
        return os.path.realpath(output) == os.path.realpath(given)


class ReportFile:
    """The open report: ``stream`` to write to, ``commit()`` when done, ``discard()`` else."""

    def __init__(self, output: Path) -> None:
        self.output = output
        self.tmp: Path | None = None
        flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
        try:
            st = os.stat(output)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise self._error(exc) from None
        try:
            if st is not None and not stat.S_ISREG(st.st_mode):
                fd = self._open_special(output, st, flags)
            else:
                self.tmp = output.parent / f".{output.name}.{secrets.token_hex(6)}.tmp"
                fd = os.open(self.tmp, flags | os.O_CREAT | os.O_EXCL
                             | getattr(os, "O_NOFOLLOW", 0), 0o644)
                if st is not None:
                    os.chmod(fd, stat.S_IMODE(st.st_mode))
        except OSError as exc:
            raise self._error(exc) from None
        self._file = os.fdopen(fd, "w", encoding="utf-8", newline="")
        self.stream: TextIO = _Guarded(self._file, self._error)  # type: ignore[assignment]

    @staticmethod
    def _open_special(output: Path, st: os.stat_result, flags: int) -> int:
        if stat.S_ISFIFO(st.st_mode):
            try:  # no reader: ENXIO at once, where a blocking open would wait forever
                fd = os.open(output, flags | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno == errno.ENXIO:
                    raise OSError(errno.ENXIO, "a FIFO no process reads") from None
                raise
            os.set_blocking(fd, True)
            return fd
        return os.open(output, flags)

    def _error(self, exc: OSError) -> ReportWriteError:
        return ReportWriteError(f"-o/--output: cannot write {str(self.output)!r}: "
                                f"{exc.strerror or exc}")

    def commit(self) -> None:
        """Flush and put the report in place (rename over the old file)."""
        try:
            self._file.close()
            if self.tmp is not None:
                os.replace(self.tmp, self.output)
                self.tmp = None
        except OSError as exc:
            self.discard()
            raise self._error(exc) from None

    def discard(self) -> None:
        """Drop a report not completed: the old file stays as it was."""
        try:
            self._file.close()
        except OSError:
            pass
        if self.tmp is not None:
            try:
                self.tmp.unlink()
            except OSError:
                pass
            self.tmp = None


def guarded_stdout(stream: TextIO) -> TextIO:
    """Standard output whose write errors (a full disk behind ``>``) are one clear line; a
    closed pipe (``| head``) stays BrokenPipeError, which ends the run quietly."""
    return _Guarded(stream, lambda exc: ReportWriteError(  # type: ignore[return-value]
        f"cannot write the report to standard output: {exc.strerror or exc}"))


class _Guarded:
    """A text stream whose write errors become ReportWriteError (one clear line)."""

    def __init__(self, stream: TextIO, error) -> None:
        self._stream = stream
        self._error = error

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._error(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._error(exc) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)
