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
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

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
    "default_scoring",
    "read_traces",
    "save_batch",
    "worker_lock",
    "write_batch",
]

_OPENINFERENCE = b"openinference.span.kind"


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


def read_traces(traces: list[Trace], folder: Path) -> Batch:
    """The runs of ``traces``, read by the reader their spans call for (module docstring)."""
    by_format: dict[str, list[Trace]] = {}
    for trace in traces:
        lines = b"\n".join(map(orjson.dumps, trace.lines))
        fmt = "openinference" if _OPENINFERENCE in lines else "otel-genai"
        by_format.setdefault(fmt, []).append(trace)
    out = Batch()
    for fmt, group in by_format.items():
        with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", dir=folder, delete=False) as f:
            for trace in group:
                for data in trace.lines:
                    f.write(orjson.dumps(data) + b"\n")
            path = Path(f.name)
        options = IngestOptions(skip_invalid=True)
        try:
            out.runs.extend(ingest([path], FORMATS[fmt].name, options))
        except InputError as error:
            out.errors.append(str(error))
        finally:
            path.unlink(missing_ok=True)
        out.errors.extend(str(e) for e in options.skipped)
    return out


def cases_of(runs: list[Run]) -> dict[str, Case]:
    """One case without a reference for each case id of ``runs``."""
    return {run.case_id: Case(case_id=run.case_id) for run in runs}


def default_scoring() -> ScoringConfig:
    """The scoring configuration of collected runs when none is given."""
    return ScoringConfig()


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


def write_batch(traces: list[Trace], path: Path) -> None:
    """``traces`` as a batch file: one ``{"t": trace id, "d": OTLP/JSON}`` line a piece."""
    with open(path, "wb") as out:
        for trace in traces:
            for data in trace.lines:
                out.write(orjson.dumps({"t": trace.trace_id, "d": data}) + b"\n")


def _read_batch(path: Path) -> list[Trace]:
    traces: dict[str, Trace] = {}
    for raw in path.read_bytes().splitlines():
        record = orjson.loads(raw)
        trace = traces.setdefault(record["t"], Trace(record["t"]))
        trace.lines.append(record["d"])
    return list(traces.values())


def save_batch(
    path: Path,
    name: str,
    store: Path,
    scoring: ScoringConfig,
    labels: Mapping[str, str],
    parent: int | None = None,
) -> Outcome:
    """Read, score and save the batch file ``path`` as stored run ``name`` (module
    docstring); ``parent``: the collector's pid (nothing is saved once it is gone)."""
    from pathgrade import score
    from pathgrade.store.save import save_scored

    with worker_lock(path.parent.parent):
        if parent is not None and os.getppid() != parent:
            return Outcome(0, 0, ("the collector is gone: batch left to its spool",))
        traces = _read_batch(path)
        batch = read_traces(traces, path.parent)
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
        path.unlink(missing_ok=True)
    return Outcome(len(batch.runs), len(traces) - len(batch.runs), tuple(batch.errors))
