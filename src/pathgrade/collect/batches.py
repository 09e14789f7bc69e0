"""Ready traces to stored runs: the trace readers make them runs, the scorer scores them
(with the scores that need no reference: a collected run has no case of its own), and the
run store keeps each batch as one stored run.

:func:`save_batch` does all three from a batch file (the spool's line format) in the
collector's worker process, so the receiving process keeps its core. It holds the spool's
``worker.lock`` while it saves: a collector restarted after a ``kill -9`` takes that lock
before it replays its spool, so a batch an orphaned worker is still saving is either in the
store when the replay looks or not begun (the worker saves nothing once its parent is gone).

A trace is read by the OpenInference reader when its spans carry
``openinference.span.kind``, else by the OpenTelemetry GenAI reader (which also reads
Traceloop / OpenLLMetry and MCP spans): the same readers, and the same runs, as ``ingest``
of the exported file. Its case id is its ``pathgrade.case_id`` attribute when it has one,
else the trace id.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import orjson

from pathgrade.collect.buffer import Trace
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.io.ingest import FORMATS, IngestOptions, ingest

__all__ = [
    "Batch",
    "Outcome",
    "batch_name",
    "cases_of",
    "read_files",
    "save_batch",
    "worker_lock",
    "write_batch",
]


@dataclass
class Batch:
    """The runs read from a batch of traces, and the one-line errors of traces that were not
    runs (a bad span, no span any reader maps)."""

    runs: list[Run] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def batch_name(name: str, wall: float, window_s: float, sequence: int) -> str:
    """``NAME.<window start, UTC, YYYYmmddTHHMMSS>.<sequence>``: the store name of a batch."""
    start = int(wall // window_s * window_s)
    stamp = datetime.fromtimestamp(start, UTC).strftime("%Y%m%dT%H%M%S")
    return f"{name}.{stamp}.{sequence:06d}"


def write_batch(traces: list[Trace], folder: Path, name: str) -> list[tuple[str, Path]]:
    """``traces`` as OTLP/JSON Lines files in ``folder``, one per reader their spans call for
    (module docstring): ``[(format, path), ...]``. Each line is dumped once; the format is
    told by the OpenInference reader's own sniffer on the trace's lines."""
    sniff = FORMATS["openinference"].sniff
    files: dict[str, IO[bytes]] = {}
    try:
        for trace in traces:
            text = b"".join(orjson.dumps(data) + b"\n" for data in trace.lines)
            fmt = "openinference" if sniff(text) else "otel-genai"
            if fmt not in files:
                files[fmt] = open(folder / f"{name}.{fmt}.jsonl", "wb")  # noqa: SIM115
            files[fmt].write(text)
    finally:
        for handle in files.values():
            handle.close()
    return [(fmt, Path(handle.name)) for fmt, handle in files.items()]


def read_files(files: list[tuple[str, Path]]) -> Batch:
    """The runs of the files :func:`write_batch` wrote, each read by its format's reader."""
    out = Batch()
    for fmt, path in files:
        options = IngestOptions(skip_invalid=True)
        try:
            out.runs.extend(ingest([path], fmt, options))
        except InputError as error:
            out.errors.append(str(error))
        out.errors.extend(str(e) for e in options.skipped)
    return out


def cases_of(runs: list[Run]) -> dict[str, Case]:
    """One case without a reference for each case id of ``runs``."""
    return {run.case_id: Case(case_id=run.case_id) for run in runs}


@dataclass(frozen=True)
class Outcome:
    """What :func:`save_batch` did: runs saved, traces that were no run, their errors."""

    runs: int
    unread: int
    errors: tuple[str, ...] = ()


@contextmanager
def worker_lock(spool: Path) -> Iterator[None]:
    """Hold the spool's ``worker.lock`` (an exclusive ``flock``, freed when its holder dies)."""
    with open(spool / "worker.lock", "ab") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def save_batch(
    spool: Path,
    files: list[tuple[str, Path]],
    traces: int,
    name: str,
    store: Path,
    scoring: ScoringConfig,
    labels: Mapping[str, str],
    parent: int | None = None,
) -> Outcome:
    """Read, score and save the ``traces`` traces of ``files`` (:func:`write_batch`) as
    stored run ``name`` (module docstring); ``parent``: the collector's pid (nothing is
    saved once it is gone)."""
    from pathgrade import score
    from pathgrade.store.save import save_scored

    with worker_lock(spool):
        if parent is not None and os.getppid() != parent:
            return Outcome(0, 0, ("the collector is gone: batch left to its spool",))
        batch = read_files(files)
        if batch.runs:
            cases = cases_of(batch.runs)
            result = score(list(cases.values()), batch.runs, scoring)
            save_scored(
                result,
                name=name,
                runs=batch.runs,
                cases=cases,
                config=scoring,
                labels=dict(labels),
                store=store,
            )
        for _, path in files:
            path.unlink(missing_ok=True)
    return Outcome(len(batch.runs), traces - len(batch.runs), tuple(batch.errors))
