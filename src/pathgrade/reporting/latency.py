"""The report's latency distribution, from result records.

A record's latency is its system-layer metric ``latency_ms`` when the record has it, else
its ``usage.latency_ms`` (records scored before the system layer); ``null`` is unknown and
counted. The percentiles are pathgrade's one definition (:mod:`pathgrade.stats.percentiles`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pathgrade.report.latency_chart import LatencyData
from pathgrade.stats.percentiles import quantiles

__all__ = ["latency_data", "record_latency"]


def record_latency(record: Mapping[str, Any]) -> float | None:
    """The record's latency in ms (``None``: unknown)."""
    metrics = record.get("metrics")
    value = metrics.get("latency_ms") if isinstance(metrics, Mapping) else None
    if value is None:
        usage = record.get("usage")
        value = usage.get("latency_ms") if isinstance(usage, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def latency_data(records: Sequence[Mapping[str, Any]]) -> LatencyData | None:
    """The chart's data (``None`` when no record has a latency)."""
    found = [record_latency(r) for r in records]
    values = sorted(v for v in found if v is not None)
    if not values:
        return None
    p50, p95, p99, top = (float(v) for v in quantiles(values, [0.5, 0.95, 0.99, 1.0]))
    return LatencyData(tuple(values), p50, p95, p99, top, len(found) - len(values))
