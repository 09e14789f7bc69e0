"""The collector: requests in, runs out (no sockets: :mod:`pathgrade.collect.http` serves it).

:meth:`Collector.accept` answers one OTLP/HTTP request: it checks the token, reads the body
(:mod:`.decode`), applies the rate limit (429) and the memory bound (503), both with
``Retry-After`` as the OTLP/HTTP specification asks, logs the accepted pieces to the spool
(:mod:`.spool`) and only then answers 200. A flusher thread closes due traces
(:mod:`.buffer`) and saves them as stored runs in batches (:mod:`.batches`), reading, scoring
and saving each in a worker process (``worker``, on by default: the receiving process keeps
its core); :meth:`stop` saves everything held, open traces included.
"""

from __future__ import annotations

import hmac
import logging
import math
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from pathgrade.collect.batches import (
    batch_name,
    save_batch,
    worker_lock,
    write_batch,
)
from pathgrade.collect.buffer import Trace, TraceBuffer, sampled
from pathgrade.collect.config import CollectConfig
from pathgrade.collect.decode import Decoded, RequestError, decode_body
from pathgrade.collect.replies import Reply, error_reply, ok_reply
from pathgrade.collect.spool import Spool
from pathgrade.core.config import ScoringConfig
from pathgrade.store.runs import RunStore

__all__ = ["Collector", "Counters"]

log = logging.getLogger("pathgrade.collect")
#: Trace ids saved lately, to drop spans that arrive after their trace was saved.
_RECENT = 100_000


@dataclass
class Counters:
    """What a collector has done since it started (``GET /stats`` shows them)."""

    requests: int = 0
    spans: int = 0
    rejected_spans: int = 0
    sampled_out: int = 0
    late_spans: int = 0
    bad_requests: int = 0
    throttled: int = 0
    busy: int = 0
    runs: int = 0
    batches: int = 0
    unread_traces: int = 0
    replayed_spans: int = 0
    errors: list[str] = field(default_factory=list)


class Collector:
    """Receives, holds and saves (module docstring)."""

    def __init__(
        self,
        config: CollectConfig,
        scoring: ScoringConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.scoring = scoring or ScoringConfig()
        self.store = RunStore(config.store)
        spool = config.spool or self.store.root / ".collect" / config.name
        self.spool = Spool(spool, fsync=config.fsync)
        self.buffer = TraceBuffer(config.root_grace_s, config.idle_s)
        self.counters = Counters()
        self._clock, self._wall = clock, wall
        self._lock = threading.Lock()
        self._save_lock = threading.Lock()
        self._tokens = config.max_spans_per_s
        self._refilled = clock()
        self._saved: OrderedDict[str, None] = OrderedDict()
        self._sequence = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool = self._new_pool() if config.worker else None
        self._replay()

    # -- receiving -------------------------------------------------------------------------

    def accept(
        self,
        body: bytes,
        content_type: str | None,
        encoding: str | None = None,
        authorization: str | None = None,
    ) -> Reply:
        """The answer to one ``POST /v1/traces`` (module docstring)."""
        self.count("requests")
        token = self.config.token
        if token is not None and not hmac.compare_digest(
            (authorization or "").encode(), f"Bearer {token}".encode()
        ):
            return self._refuse(content_type, RequestError(401, "missing or wrong bearer token"))
        try:
            decoded = decode_body(body, content_type, encoding, self.config.max_body)
        except RequestError as error:
            self.count("bad_requests")
            return self._refuse(content_type, error)
        return self._hold(decoded, content_type)

    def _refuse(self, content_type: str | None, error: RequestError, retry: int = 0) -> Reply:
        log.warning("collect: %d %s", error.status, error.message)
        return error_reply(content_type, error.status, error.message, retry)

    def _hold(self, decoded: Decoded, content_type: str | None) -> Reply:
        rate = self.config.sample
        pieces = [p for p in decoded.pieces.values() if sampled(p.trace_id, rate)]
        kept = sum(p.spans for p in pieces)
        with self._lock:
            now = self._clock()
            self._tokens = min(
                self.config.max_spans_per_s,
                self._tokens + (now - self._refilled) * self.config.max_spans_per_s,
            )
            self._refilled = now
            if kept and self._tokens < min(kept, self.config.max_spans_per_s):
                self.counters.throttled += 1
                wait = math.ceil((kept - self._tokens) / self.config.max_spans_per_s)
                return self._refuse(
                    content_type, RequestError(429, "span rate over the limit"), max(wait, 1)
                )
            if self.buffer.spans + kept > self.config.max_pending_spans:
                self.counters.busy += 1
                return self._refuse(
                    content_type, RequestError(503, "holding too many spans; saving them"), 2
                )
            if self._saved:  # spans of a trace already saved are counted, not held again
                held = [p for p in pieces if p.trace_id not in self._saved]
                self.counters.late_spans += kept - sum(p.spans for p in held)
                pieces = held
            self.spool.append(pieces)  # on disk before the answer
            self._tokens -= kept
            for piece in pieces:
                self.buffer.add(piece, now)
            self.counters.spans += decoded.spans
            self.counters.rejected_spans += decoded.rejected
            self.counters.sampled_out += decoded.spans - kept
        if decoded.rejected:
            log.warning("collect: rejected %d span(s): %s", decoded.rejected, decoded.reason)
        return ok_reply(content_type, decoded.rejected, decoded.reason)

    # -- saving ----------------------------------------------------------------------------

    def flush(self, everything: bool = False) -> int:
        """Close due traces (``everything``: all) and save the ready ones in batches of
        ``batch_runs`` traces; the number of runs saved."""
        saved = 0
        with self._save_lock:
            with self._lock:
                self.buffer.close_due(self._clock(), everything)
            while True:
                with self._lock:
                    traces = self.buffer.take_ready(self.config.batch_runs)
                if not traces:
                    break
                try:
                    saved += self._save(traces)
                except Exception:
                    with self._lock:
                        self.buffer.put_back(traces)
                    raise
        return saved

    def _save(self, traces: list[Trace]) -> int:
        """Save ``traces`` as one batch (in the worker process when there is one)."""
        work = self.spool.folder / "work"
        work.mkdir(exist_ok=True)
        ids = [t.trace_id for t in traces]
        name = self._next_name()
        files = write_batch(traces, work, name)
        self.spool.begin_batch(name, ids)
        labels = {"source": "pathgrade collect", "collector": self.config.name}
        job = (self.spool.folder, files, len(traces), name, self.store.root, self.scoring, labels)
        if self._pool is None:
            outcome = save_batch(*job)
        else:
            try:
                outcome = self._pool.submit(save_batch, *job, parent=os.getpid()).result()
            except BrokenProcessPool:  # the worker died: a new one, the batch retried later
                self._pool = self._new_pool()
                raise
        for error in outcome.errors:
            log.warning("collect: trace not read: %s", error)
        self.counters.unread_traces += outcome.unread
        self.counters.errors = (self.counters.errors + list(outcome.errors))[-20:]
        if outcome.runs:
            self.counters.batches += 1
            self.counters.runs += outcome.runs
            log.info("collect: saved %d run(s) as %s", outcome.runs, name)
        with self._lock:
            for trace_id in ids:
                self._saved[trace_id] = None
            while len(self._saved) > _RECENT:
                self._saved.popitem(last=False)
            self.spool.rewrite(self.buffer.held())
        return outcome.runs

    @staticmethod
    def _new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))

    def count(self, counter: str, by: int = 1) -> None:
        """Add ``by`` to one of :attr:`counters` (under the lock: requests run in threads)."""
        with self._lock:
            setattr(self.counters, counter, getattr(self.counters, counter) + by)

    def _next_name(self) -> str:
        while True:
            self._sequence += 1
            name = batch_name(self.config.name, self._wall(), self.config.window_s, self._sequence)
            if not self.store.path_of(name).exists():
                return name

    def _replay(self) -> None:
        with worker_lock(self.spool.folder):  # an orphaned worker's save ends first
            pieces, torn = self.spool.replay(lambda name: self.store.path_of(name).exists())
        now = self._clock()
        for piece in pieces:
            self.buffer.add(piece, now)
        self.counters.replayed_spans = sum(p.spans for p in pieces)
        if pieces or torn:
            log.info(
                "collect: replayed %d span(s) from the spool (%d torn line(s) skipped)",
                self.counters.replayed_spans,
                torn,
            )

    # -- running ---------------------------------------------------------------------------

    def start(self, tick_s: float = 0.5) -> None:
        """Start the flusher thread (closes and saves traces every ``tick_s`` seconds)."""

        def loop() -> None:
            last = self._clock()
            while not self._stop.wait(tick_s):
                now = self._clock()
                ready = len(self.buffer.ready) >= self.config.batch_runs
                if ready or now - last >= self.config.flush_s:
                    last = now
                    try:
                        self.flush()
                    except Exception as error:  # a bad batch must not end the flusher
                        log.error("collect: saving a batch failed (kept, retried): %s", error)

        self._thread = threading.Thread(target=loop, name="pathgrade-collect-flush", daemon=True)
        self._thread.start()

    def stop(self) -> int:
        """Stop the flusher and save everything held; the number of runs saved."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        try:
            saved = self.flush(everything=True)
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
            self.spool.close()
        return saved
