"""The report's latency distribution, from result records.

A record's latency is its ``latency_ms`` as :func:`pathgrade.stats.records.amount` reads it
(the system-layer metric, else the ``latency_ms`` of the record's ``usage`` object: records
scored before the system layer); ``null`` is unknown and counted. The percentiles are
pathgrade's one definition (:mod:`pathgrade.stats.percentiles`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pathgrade.report.latency_chart import LatencyData
from pathgrade.stats.percentiles import quantiles
from pathgrade.stats.records import amount

__all__ = ["latency_data", "record_latency"]


def record_latency(record: Mapping[str, Any]) -> float | None:
    """The record's latency in ms (``None``: unknown)."""
    return amount(record, "latency_ms")


def latency_data(records: Sequence[Mapping[str, Any]]) -> LatencyData | None:
    """The chart's data (``None`` when no record has a latency)."""
    found = [record_latency(r) for r in records]
    values = sorted(v for v in found if v is not None)
    if not values:
        return None
    p50, p95, p99, top = (float(v) for v in quantiles(values, [0.5, 0.95, 0.99, 1.0]))
    return LatencyData(tuple(values), p50, p95, p99, top, len(found) - len(values))
