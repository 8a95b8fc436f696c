"""Run a job's reader: the checks every read shares (size, file type) and the files it read."""

from __future__ import annotations

import os

from servelint.pipeline.discover import Job
from servelint.sources.base import ReadContext, ReadResult
from servelint.sources.common import deps
from servelint.sources.common.problems import ReadProblem

MAX_FILE_BYTES = 8 * 1024 * 1024  # larger files are a read-error finding, not read
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def read_job(job: Job, ctx: ReadContext) -> ReadResult:
    """Launch specs, read problems and files read of one job (never raises for bad input)."""
    path = job.path
    if job.reader is None:
        return ReadResult(problems=[ReadProblem(path, None, job.problem or "", job.problem_kind)])
    if not os.path.isdir(path):
        refused_why = refused(path)
        if refused_why is not None:
            return ReadResult(problems=[ReadProblem(path, None, refused_why)])
    with deps.recording() as seen:
        try:
            result = job.reader.read(path, ctx)
        except RecursionError:
            result = _problem(path, "input nested too deeply to read")
        except MemoryError:
            result = _problem(path, "input too large to read")
        except (OSError, UnicodeError, ValueError) as exc:
            result = _problem(path, f"cannot read: {exc}")
    if not os.path.isdir(path):
        seen.add(os.path.abspath(path))
    # servelint's own files (the bundled recipe repository) change only with servelint
    result.deps = sorted(p for p in seen if not p.startswith(_PACKAGE))
    return result


def refused(path: str) -> str | None:
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if not os.path.isfile(path):  # FIFO, socket, device: reading would block or not end
        return "cannot read: not a regular file"
    if size > MAX_FILE_BYTES:
        return f"file too large to check ({size} bytes; the limit is {MAX_FILE_BYTES})"
    return None


def _problem(path: str, message: str) -> ReadResult:
    return ReadResult(problems=[ReadProblem(path, None, message)])
