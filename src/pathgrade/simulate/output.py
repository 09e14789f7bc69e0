"""Writing simulated runs as they finish: one whole JSON line each, flushed at once.

The runs file is the one ``pathgrade score`` reads (each line is
:func:`~pathgrade.io.ingest.writing.run_record`). Unlike ``ingest`` (whole file or nothing),
it is written in place, line by line, so an interrupted simulation leaves every finished
conversation in it and no partial line. Conversations that have no turn (a
:class:`~pathgrade.simulate.conversation.Failure`) go to the errors file beside it,
``<out>.errors.jsonl``, created on the first one; an errors file left by an earlier
simulation is removed when the runs file is opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

import orjson

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest.writing import run_record
from pathgrade.simulate.conversation import Failure

__all__ = ["RunWriter", "errors_path"]


def errors_path(out: Path) -> Path:
    """The errors file of the runs file ``out``: ``<out>.errors.jsonl``."""
    return out.with_name(out.name + ".errors.jsonl")


class RunWriter:
    """Appends runs (and failures) to ``out``; use as ``with RunWriter(out) as writer``."""

    def __init__(self, out: Path) -> None:
        self.out, self.errors = out, errors_path(out)
        self.runs = self.failures = 0
        self._handle: BinaryIO | None = None
        self._errors: BinaryIO | None = None

    def __repr__(self) -> str:
        return f"RunWriter({str(self.out)!r}, {self.runs} run(s), {self.failures} failure(s))"

    def __enter__(self) -> RunWriter:
        try:
            self.errors.unlink(missing_ok=True)
            self._handle = self.out.open("wb")
        except OSError as error:
            raise _cannot(error, self.out) from None
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in (self._handle, self._errors):
            if handle is not None:
                handle.close()
        self._handle = self._errors = None

    def run(self, run: Run) -> None:
        """Write one run as one line and flush it."""
        if self._handle is None:
            raise RuntimeError("use the RunWriter as 'with RunWriter(out) as writer'")
        self._write(self._handle, orjson.dumps(run_record(run)), self.out)
        self.runs += 1

    def failure(self, failure: Failure) -> None:
        """Write one conversation without a turn to the errors file and flush it."""
        if self._errors is None:
            try:
                self._errors = self.errors.open("wb")
            except OSError as error:
                raise _cannot(error, self.errors) from None
        self._write(self._errors, orjson.dumps(failure.record()), self.errors)
        self.failures += 1

    @staticmethod
    def _write(handle: BinaryIO, line: bytes, path: Path) -> None:
        try:
            handle.write(line + b"\n")
            handle.flush()
        except OSError as error:
            raise _cannot(error, path) from None


def _cannot(error: OSError, path: Path) -> InputError:
    return InputError(f"cannot write: {error.strerror or error}", file=str(path))
