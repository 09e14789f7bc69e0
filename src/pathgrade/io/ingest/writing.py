"""Writing what ``pathgrade ingest`` read: runs JSONL and cases JSONL, each file whole or not
at all.

The shapes are those :func:`pathgrade.io.cases.load_runs` and
:func:`~pathgrade.io.cases.load_cases` read back (``pathgrade score CASES RUNS``): one JSON
object per line, fields at their defaults left out (a conversation's ``steps`` too: its
``turns`` hold them).
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterable
from pathlib import Path

import orjson

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run

__all__ = ["case_record", "run_record", "write_cases", "write_lines", "write_runs"]


def run_record(run: Run) -> dict[str, object]:
    """A run as a runs-JSONL object (fields at their defaults left out).

    A conversation (a run with ``turns``) is written without ``steps``: they are its turns'
    steps in order, and reading the record rebuilds them (writing both would store each step
    twice).
    """
    exclude = {"steps"} if run.turns is not None else None
    return run.model_dump(mode="json", exclude_defaults=True, exclude=exclude)


def case_record(case: Case) -> dict[str, object]:
    """A case as a cases-JSONL object (fields at their defaults left out)."""
    return case.model_dump(mode="json", exclude_defaults=True)


def write_lines(lines: Iterable[bytes], path: str | Path | None, what: str) -> int:
    """Write ``lines`` (each one JSON text, without its newline) to ``path`` (``None`` or
    ``-``: standard output); the count. ``what`` names the content in errors.

    A file is written under a temporary name unique to this writer, in the same directory,
    and renamed when complete: an error leaves no partial file. A missing directory, a
    directory as ``path`` or an unwritable place is an :class:`InputError`, raised before
    the first line is asked for.
    """
    count = 0
    if path is None or str(path) == "-":
        for line in lines:
            sys.stdout.write(line.decode() + "\n")
            count += 1
        return count
    target = Path(path)
    if target.is_dir():
        raise InputError(f"cannot write {what}: it is a directory", file=str(path))
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        handle = tmp.open("xb")
    except OSError as error:
        raise _cannot(what, error, path) from None
    try:
        with handle:
            for line in lines:
                handle.write(line + b"\n")
                count += 1
        tmp.replace(target)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise _cannot(what, error, path) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count


def _cannot(what: str, error: OSError, path: str | Path) -> InputError:
    return InputError(f"cannot write {what}: {error.strerror or error}", file=str(path))


def write_runs(runs: Iterable[Run], path: str | Path | None) -> int:
    """Write runs as JSON lines to ``path`` (``None`` or ``-``: standard output), as
    :func:`write_lines` writes; the count. Nothing is read from ``runs`` before the file
    is open."""
    return write_lines((orjson.dumps(run_record(run)) for run in runs), path, "runs")


def write_cases(cases: Iterable[Case], path: str | Path | None) -> int:
    """Write cases as JSON lines to ``path``, as :func:`write_runs` writes runs; the count."""
    return write_lines((orjson.dumps(case_record(case)) for case in cases), path, "cases")
