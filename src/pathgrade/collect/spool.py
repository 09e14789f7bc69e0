"""The collector's spool: what it acknowledged and has not yet saved, on disk.

Two files in the spool folder:

- ``wal.jsonl``: one line per piece (one trace's spans of one request:
  ``{"t": trace id, "r": has the root, "n": spans, "d": OTLP/JSON}``), written and (by
  default) ``fsync``-ed *before* the request is answered, so an acknowledged span survives a
  ``kill -9``. A crash while writing leaves at most a torn last line, of a request that was
  not answered: :meth:`Spool.replay` skips it.
- ``ledger.jsonl``: one line per batch about to be saved (``{"batch": name, "traces":
  [...]}``), written before the save. On replay, the traces of a batch the store has are
  dropped (saved already), those of a batch it lacks are replayed: a trace is saved once.

After a batch is saved the WAL is rewritten from what the collector still holds (a new file,
``fsync``-ed, renamed over the old) and the ledger emptied.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

import orjson

from pathgrade.collect.buffer import Trace
from pathgrade.collect.decode import Piece

__all__ = ["Spool"]


class Spool:
    """Write-ahead log and batch ledger of one collector (module docstring)."""

    def __init__(self, folder: Path, fsync: bool = True) -> None:
        self.folder = folder
        self.fsync = fsync
        folder.mkdir(parents=True, exist_ok=True)
        self.wal_path = folder / "wal.jsonl"
        self.ledger_path = folder / "ledger.jsonl"
        self._wal: IO[bytes] = open(self.wal_path, "ab")  # noqa: SIM115 (held open)

    def _sync(self, handle: IO[bytes]) -> None:
        handle.flush()
        if self.fsync:
            os.fsync(handle.fileno())

    def append(self, pieces: Iterable[Piece]) -> None:
        """Log a request's pieces (on disk when this returns, with ``fsync``)."""
        self._wal.write(b"".join(_line(p.trace_id, p.root, p.spans, p.data) for p in pieces))
        self._sync(self._wal)

    def begin_batch(self, name: str, trace_ids: list[str]) -> None:
        """Note that batch ``name`` with these traces is about to be saved."""
        with open(self.ledger_path, "ab") as ledger:
            ledger.write(orjson.dumps({"batch": name, "traces": trace_ids}) + b"\n")
            self._sync(ledger)

    def rewrite(self, held: list[Trace]) -> None:
        """Make the WAL exactly ``held`` (atomically) and empty the ledger."""
        fresh = self.folder / "wal.jsonl.new"
        with open(fresh, "wb") as out:
            for trace in held:
                for k, data in enumerate(trace.lines):
                    root = k == 0 and trace.root_at is not None
                    out.write(_line(trace.trace_id, root, 0 if k else trace.spans, data))
            self._sync(out)
        self._wal.close()
        os.replace(fresh, self.wal_path)
        self._wal = open(self.wal_path, "ab")  # noqa: SIM115 (held open)
        with open(self.ledger_path, "wb") as ledger:
            self._sync(ledger)

    def replay(self, saved: Callable[[str], bool]) -> tuple[list[Piece], int]:
        """The pieces to hold again after a restart, and the number of torn lines skipped;
        ``saved(name)``: whether the store has batch ``name``."""
        done: set[str] = set()
        for record in _records(self.ledger_path):
            if isinstance(record, dict) and saved(str(record.get("batch"))):
                done.update(map(str, record.get("traces") or ()))
        pieces: list[Piece] = []
        torn = 0
        for record in _records(self.wal_path):
            if record is None:
                torn += 1
                continue
            if record["t"] in done:
                continue
            pieces.append(Piece(record["t"], record["d"], int(record["n"]), bool(record["r"])))
        return pieces, torn

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._wal.close()


def _line(trace_id: str, root: bool, spans: int, data: object) -> bytes:
    return orjson.dumps({"t": trace_id, "r": root, "n": spans, "d": data}) + b"\n"


def _records(path: Path) -> list[dict[str, Any] | None]:
    """The JSON lines of ``path`` (none if absent); an unreadable line is ``None``."""
    if not path.exists():
        return []
    out: list[dict[str, Any] | None] = []
    for raw in path.read_bytes().splitlines():
        if not raw.strip():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            out.append(None)
            continue
        out.append(value if isinstance(value, dict) else None)
    return out
