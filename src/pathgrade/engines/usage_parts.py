"""The system layer's amounts (latency, tokens, cost) of partitions, merged exactly.

Percentiles have no exact merge from partial summaries, so each partition sends its runs'
per-run columns (three small float arrays, ``nan`` = unknown, 24 bytes a run) with the
runs' case codes, and its cost sources and unknown reasons (counts, which add). The
coordinator concatenates them in input order and computes the summary once, by
:func:`pathgrade.stats.usage_summary.usage_summary`: the same numbers as scoring in
memory (:func:`pathgrade.layers.system_columns`), intervals included
(:meth:`UsageParts.system`).

A partition whose runs record nothing (the layer not computed there) or nothing to price
(no ``cost`` column) sends ``nan`` for them, and its runs' costs count as unknown for
``no_tokens``: what the in-memory pass finds for those runs when another partition emits
the column.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from pathgrade.metrics.system.usage import AMOUNTS, UNITS
from pathgrade.stats.usage_summary import IntervalOptions, usage_summary, with_intervals

__all__ = ["UsageParts"]

FloatArray = npt.NDArray[np.float64]
Int64Array = npt.NDArray[np.int64]


@dataclass
class UsageParts:
    """Per-run amounts and case codes of one or more partitions, in input order, and which
    amounts some partition emitted; cost sources and unknown reasons by count."""

    codes: list[Int64Array] = field(default_factory=list)
    values: dict[str, list[FloatArray]] = field(
        default_factory=lambda: {name: [] for name in AMOUNTS}
    )
    emitted: set[str] = field(default_factory=set)
    sources: Counter[str] = field(default_factory=Counter)
    unknown: Counter[str] = field(default_factory=Counter)

    def add(
        self,
        codes: Int64Array,
        metrics: Mapping[str, FloatArray],
        system: Mapping[str, Any] | None,
    ) -> None:
        """Account for a scored batch: its runs' case ``codes``, its metric columns and its
        summary's ``system`` entry (``None``: the layer was not computed there)."""
        n = int(codes.size)
        self.codes.append(codes)
        for name in AMOUNTS:
            column = metrics.get(name)
            if column is not None:
                self.emitted.add(name)
                self.values[name].append(np.asarray(column, dtype=np.float64))
            else:
                self.values[name].append(np.full(n, np.nan))
        cost = system.get("cost") if system else None
        if isinstance(cost, Mapping):
            self.sources.update(cost.get("sources", {}))
            self.unknown.update(cost.get("unknown_reasons", {}))
        elif n:
            self.unknown["no_tokens"] += n

    def absorb(self, other: UsageParts) -> None:
        """Add ``other`` (which comes after ``self``) into ``self``."""
        self.codes.extend(other.codes)
        for name in AMOUNTS:
            self.values[name].extend(other.values[name])
        self.emitted |= other.emitted
        self.sources.update(other.sources)
        self.unknown.update(other.unknown)

    def columns(self) -> tuple[dict[str, FloatArray], list[int]]:
        """The emitted amounts' per-run columns and the runs' case codes, in input order."""
        codes = np.concatenate(self.codes) if self.codes else np.zeros(0, np.int64)
        found = {
            name: np.concatenate(self.values[name]) for name in AMOUNTS if name in self.emitted
        }
        return found, codes.tolist()

    def system(self, intervals: IntervalOptions | None = None) -> dict[str, Any] | None:
        """The summary's ``system`` entry, as in memory (``None`` when no run records an
        amount); with ``intervals``, as :func:`pathgrade.api.scoring.summarize` gives it."""
        found, codes = self.columns()
        if not found:
            return None
        out = usage_summary(found, codes, UNITS)
        if "cost" in out:
            out["cost"]["sources"] = dict(sorted((+self.sources).items()))
            out["cost"]["unknown_reasons"] = dict(sorted((+self.unknown).items()))
        if intervals is not None:
            out = with_intervals(out, found, codes, intervals)
        return out
