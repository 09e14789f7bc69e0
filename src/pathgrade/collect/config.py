"""The collector's settings, with the defaults of ``pathgrade collect`` (docs/production.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pathgrade.core.fields import FieldError

__all__ = ["TOKEN_VARIABLE", "CollectConfig"]

#: The environment variable holding the bearer token a request must carry (unset: none).
TOKEN_VARIABLE = "PATHGRADE_COLLECT_TOKEN"


@dataclass(frozen=True)
class CollectConfig:
    """Where to listen, what to keep, when a trace is a run, and the limits.

    - ``name``: stored runs are named ``NAME.<window start>.<batch>`` (``prod.20261208T0100.0002``);
    - ``sample``: the share of traces kept, decided from the trace id as OpenTelemetry's
      ``TraceIdRatioBased`` sampler does (its lower 64 bits below ``sample * 2**64``), so every
      collector and the SDK agree on a trace;
    - ``root_grace_s``: a trace becomes a run this long after its root span arrives (children
      that end after their root still join it); ``idle_s``: a trace without a root becomes a
      run this long after its last span;
    - ``flush_s`` / ``batch_runs``: a batch is scored and saved every ``flush_s`` seconds, or
      as soon as ``batch_runs`` runs are ready; ``window_s``: the time window a batch's name
      gives (its partition);
    - ``max_body``: the largest request body, compressed or not (413 above it);
      ``max_pending_spans``: spans held in memory before requests get 503 (back-pressure);
      ``max_spans_per_s``: the sustained rate before requests get 429 (a token bucket of one
      second's worth);
    - ``fsync``: every acknowledged request is on disk (the spool) before the answer;
    - ``worker``: batches are read, scored and saved in a worker process (off: in the
      flusher thread of the receiving process).
    """

    name: str
    store: Path | None = None
    spool: Path | None = None
    host: str = "127.0.0.1"
    port: int = 4318
    token: str | None = None
    sample: float = 1.0
    root_grace_s: float = 2.0
    idle_s: float = 30.0
    flush_s: float = 5.0
    batch_runs: int = 1000
    window_s: float = 3600.0
    max_body: int = 16 * 1024 * 1024
    max_pending_spans: int = 200_000
    max_spans_per_s: float = 50_000.0
    fsync: bool = True
    worker: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.sample <= 1.0:
            raise FieldError("sample", f"must be within [0, 1], got {self.sample}")
        for field in ("root_grace_s", "idle_s", "flush_s", "window_s", "max_spans_per_s"):
            if getattr(self, field) <= 0:
                raise FieldError(field, f"must be above 0, got {getattr(self, field)}")
        for field in ("batch_runs", "max_body", "max_pending_spans"):
            if getattr(self, field) < 1:
                raise FieldError(field, f"must be at least 1, got {getattr(self, field)}")
