"""The traces a collector holds: open ones (spans still arriving) and ready ones (to be made
runs), with the rules that close a trace and the sampling decision.

A trace is *ready* ``root_grace_s`` after its root span (no parent) arrived, or ``idle_s``
after its last span when no root came. Time is passed in (``now``: monotonic seconds), so the
rules are tested without sleeping. Not thread-safe: :class:`~pathgrade.collect.service.Collector`
holds its lock around every call.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from pathgrade.collect.decode import Piece

__all__ = ["Trace", "TraceBuffer", "sampled"]

_LOW_64 = (1 << 64) - 1


def sampled(trace_id: str, rate: float) -> bool:
    """Whether a trace is kept at ``rate``: OpenTelemetry's ``TraceIdRatioBased`` rule, the
    trace id's lower 64 bits below ``round(rate * 2**64)`` (``rate`` 1 keeps every trace)."""
    if rate >= 1.0:
        return True
    return (int(trace_id, 16) & _LOW_64) < round(rate * (1 << 64))


@dataclass
class Trace:
    """One trace's pieces (OTLP/JSON lines) in arrival order."""

    trace_id: str
    lines: list[dict[str, Any]] = field(default_factory=list)
    spans: int = 0
    root_at: float | None = None
    last_at: float = 0.0


class TraceBuffer:
    """Open and ready traces, and the span count they hold (the back-pressure measure)."""

    def __init__(self, root_grace_s: float, idle_s: float) -> None:
        self.root_grace_s = root_grace_s
        self.idle_s = idle_s
        self._open: OrderedDict[str, Trace] = OrderedDict()  # least recently fed first
        self.ready: list[Trace] = []
        self.spans = 0

    def add(self, piece: Piece, now: float) -> None:
        """Hold ``piece``'s spans in its trace."""
        trace = self._open.get(piece.trace_id)
        if trace is None:
            trace = self._open[piece.trace_id] = Trace(piece.trace_id)
        else:
            self._open.move_to_end(piece.trace_id)
        trace.lines.append(piece.data)
        trace.spans += piece.spans
        trace.last_at = now
        if piece.root and trace.root_at is None:
            trace.root_at = now
        self.spans += piece.spans

    def close_due(self, now: float, everything: bool = False) -> int:
        """Move the traces that are due (module docstring; ``everything``: all of them) to
        :attr:`ready`; returns how many moved."""
        due = [
            t
            for t in self._open.values()
            if everything
            or (t.root_at is not None and now - t.root_at >= self.root_grace_s)
            or now - t.last_at >= self.idle_s
        ]
        for trace in due:
            del self._open[trace.trace_id]
        self.ready.extend(due)
        return len(due)

    def take_ready(self, limit: int) -> list[Trace]:
        """Up to ``limit`` ready traces, oldest first, removed from the buffer."""
        taken, self.ready = self.ready[:limit], self.ready[limit:]
        self.spans -= sum(t.spans for t in taken)
        return taken

    def put_back(self, traces: list[Trace]) -> None:
        """Return traces taken by :meth:`take_ready` whose batch was not saved."""
        self.ready[:0] = traces
        self.spans += sum(t.spans for t in traces)

    def held(self) -> list[Trace]:
        """Every trace held, ready ones first (what the spool must keep)."""
        return [*self.ready, *self._open.values()]

    @property
    def open_count(self) -> int:
        return len(self._open)
