"""A results file (``score --out``) that readers see complete or not at all.

Records are written to ``.<name>.<writer>.tmp`` in the target's folder (``<writer>``: host,
process id and 12 random hex digits, unique to each writer), and :meth:`StagedOutput.commit`
renames that file to the target in one step. When writing stops early (an input error,
Ctrl-C, a killed worker), :meth:`StagedOutput.abandon` renames what was written to
``<target>.partial`` (removing the temporary file when nothing was written), and the target
is left as it was: missing, or the previous complete file. So ``compare``, ``gate`` and
``runs add`` are never handed a partial file under the name they were asked for.

A target that exists and is not a regular file (``/dev/stdout``, a named pipe) is a stream,
not a file to replace: it is written directly.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import uuid
from pathlib import Path
from typing import BinaryIO

from pathgrade.core.errors import InputError

PARTIAL_SUFFIX = ".partial"


def partial_path(target: Path) -> Path:
    """Where an interrupted write of ``target`` keeps its records: ``<target>.partial``."""
    return target.with_name(target.name + PARTIAL_SUFFIX)


def check_target(target: Path, option: str = "--out") -> None:
    """Raise :class:`InputError` if ``target`` cannot be written as a results file: its
    folder is missing or not a folder, or the target is a folder."""
    folder = target.parent
    if target.is_dir():
        raise InputError(
            "is a folder, not a file: give a file name", file=str(target), field=option
        )
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise InputError(f"the folder {folder} {what}", file=str(target), field=option)


def _tmp_name(target: Path) -> str:
    host = re.sub(r"[^A-Za-z0-9-]", "-", platform.node())[:32] or "host"
    return f".{target.name}.{host}-{os.getpid()}-{uuid.uuid4().hex[:12]}.tmp"


class StagedOutput:
    """An open results file, written under a unique temporary name until committed."""

    def __init__(self, target: str | Path, option: str = "--out") -> None:
        self.target = Path(target)
        check_target(self.target, option)
        #: Written in place: the target is a stream (a device, a pipe), not a regular file.
        self.direct = self.target.exists() and not self.target.is_file()
        self.tmp = self.target if self.direct else self.target.with_name(_tmp_name(self.target))
        self.count = 0
        try:
            self._handle: BinaryIO | None = self.tmp.open("wb" if self.direct else "xb")
        except OSError as error:
            reason = error.strerror or str(error)
            raise InputError(
                f"cannot write: {reason}", file=str(self.target), field=option
            ) from None

    def __repr__(self) -> str:
        return f"StagedOutput({str(self.target)!r}, records={self.count})"

    def write(self, chunk: bytes) -> None:
        """Append JSONL ``chunk`` (whole records, each ending in a newline)."""
        if self._handle is None:
            raise ValueError(f"{self!r} is closed")
        self._handle.write(chunk)
        self.count += chunk.count(b"\n")

    def _close(self) -> None:
        if self._handle is not None:
            handle, self._handle = self._handle, None
            handle.close()

    def commit(self) -> int:
        """Publish the records under the target name (one rename); the number written."""
        if self._handle is not None and not self.direct:
            self._handle.flush()
            os.fsync(self._handle.fileno())
        self._close()
        if not self.direct:
            self.tmp.replace(self.target)
        return self.count

    def abandon(self) -> Path | None:
        """Stop early: keep what was written as ``<target>.partial`` and return that path,
        or remove the temporary file and return None when nothing was written."""
        with contextlib.suppress(OSError):
            self._close()
        if self.direct:  # a stream: what was written is there already
            return self.target if self.count else None
        if self.count == 0:
            with contextlib.suppress(FileNotFoundError):
                self.tmp.unlink()
            return None
        kept = partial_path(self.target)
        try:
            self.tmp.replace(kept)
        except OSError:  # keep the records under the temporary name rather than lose them
            return self.tmp
        return kept
