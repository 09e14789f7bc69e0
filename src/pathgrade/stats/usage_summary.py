"""The distribution of a per-run amount (latency, tokens, cost) over a run set.

Per amount (undefined runs, ``nan``, excluded and counted in ``unknown``):

* ``mean``: the mean of per-case means (the case is the unit, as in ``by_case`` and the
  gates' ``mean``);
* ``p50``, ``p95``, ``p99``: percentiles over every defined run (one slow run counts, as in
  the gates' ``pNN``), by pathgrade's one definition (:mod:`pathgrade.stats.percentiles`:
  Hyndman-Fan type 7); ``max``: the largest run;
* ``runs`` (defined runs), ``unknown`` (undefined runs), ``n_cases`` (cases with a defined
  run);
* with interval options, ``ci``: per statistic ``[low, high]``, percentile cluster-bootstrap
  intervals over cases: the mean's is
  :func:`pathgrade.stats.case_summary.case_intervals` (``by_case``'s, seed for seed, up to
  the rounding of resample means), the percentiles' and the max's
  :func:`pathgrade.stats.percentiles.cluster_quantile_intervals` (whole cases resampled,
  their runs pooled). The max's upper bound is the observed max (a bootstrap cannot exceed
  the data): read it as a lower bound on the population's worst run, not as a limit.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pathgrade.stats.case_summary import case_intervals
from pathgrade.stats.case_sums import case_table, first_seen
from pathgrade.stats.percentiles import DEFINITION, cluster_quantile_intervals, quantiles

__all__ = [
    "LEVELS",
    "STATISTICS",
    "IntervalOptions",
    "amount_summary",
    "usage_summary",
    "with_intervals",
]

FloatArray = NDArray[np.float64]
#: The percentile statistics and their levels; ``max`` is the level 1.
LEVELS: Mapping[str, float] = {"p50": 0.50, "p95": 0.95, "p99": 0.99, "max": 1.0}
#: Every statistic of an amount, in the order the summary gives them.
STATISTICS = ("mean", *LEVELS)


def _num(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


@dataclass(frozen=True)
class IntervalOptions:
    """How the intervals are computed (the summary over cases' ``resamples``, ``seed`` and
    ``confidence``)."""

    resamples: int
    seed: int = 0
    confidence: float = 0.95


def amount_summary(
    values: FloatArray,
    case_ids: Sequence[Hashable],
    unit: str,
    intervals: IntervalOptions | None = None,
) -> dict[str, Any]:
    """One amount's summary (module docstring); ``values[r]`` is run ``r``'s, of case
    ``case_ids[r]``.

    Example (case a: 100, 300 ms, mean 200; case b: 1,000 ms; mean of means 600; runs sorted
    100, 300, 1000: p50 at ``h = 2 * 0.5 = 1``: 300; p95 at ``h = 1.9``:
    ``300 + 0.9 * 700 = 930``):
        >>> s = amount_summary(np.array([100.0, 300.0, 1000.0]), ["a", "a", "b"], "ms")
        >>> s["mean"], s["p50"], round(s["p95"], 9), s["max"], s["n_cases"]
        (600.0, 300.0, 930.0, 1000.0, 2)

    Raises:
        ValueError: ``values`` and ``case_ids`` of different lengths, bad interval options.
    """
    data = np.asarray(values, dtype=np.float64)
    if data.shape != (len(case_ids),):
        raise ValueError(f"{data.size} values for {len(case_ids)} case ids")
    table = case_table(case_ids, {"v": data})
    per_case = table.means
    defined = int((~np.isnan(data)).sum())
    out: dict[str, Any] = {
        "unit": unit,
        "runs": defined,
        "unknown": int(data.size) - defined,
        "n_cases": int((~np.isnan(per_case[:, 0])).sum()),
        "mean": _num(float(np.nanmean(per_case[:, 0]))) if defined else None,
    }
    points = quantiles(data, list(LEVELS.values()))
    out.update({name: _num(float(v)) for name, v in zip(LEVELS, points, strict=True)})
    if intervals is None or not defined:
        return out
    mean_ci = case_intervals(
        per_case,
        resamples=intervals.resamples,
        confidence=intervals.confidence,
        seed=intervals.seed,
    )[0]
    codes, _ = first_seen(case_ids)
    found = cluster_quantile_intervals(
        data,
        codes,
        list(LEVELS.values()),
        resamples=intervals.resamples,
        confidence=intervals.confidence,
        seed=intervals.seed,
    )
    ci: dict[str, list[float | None]] = {"mean": [_num(mean_ci.low), _num(mean_ci.high)]}
    ci.update({name: [_num(q.low), _num(q.high)] for name, q in zip(LEVELS, found, strict=True)})
    out["ci"] = ci
    return out


def usage_summary(
    columns: Mapping[str, FloatArray],
    case_ids: Sequence[Hashable],
    units: Mapping[str, str],
    intervals: IntervalOptions | None = None,
) -> dict[str, Any]:
    """``{"percentile": <definition>, name: amount_summary, ..., "interval": {...}}`` for
    each column (``interval`` only with ``intervals``: how the ``ci`` were computed)."""
    out: dict[str, Any] = {"percentile": DEFINITION}
    for name, values in columns.items():
        out[name] = amount_summary(values, case_ids, units.get(name, ""), intervals)
    if intervals is not None:
        out["interval"] = {
            "unit": "case",
            "method": "percentile cluster bootstrap",
            "confidence": intervals.confidence,
            "resamples": intervals.resamples,
            "seed": intervals.seed,
        }
    return out


def with_intervals(
    system: Mapping[str, Any],
    columns: Mapping[str, FloatArray],
    case_ids: Sequence[Hashable],
    intervals: IntervalOptions,
) -> dict[str, Any]:
    """``system`` (a :func:`usage_summary` without intervals) with every amount of
    ``columns`` it has recomputed with ``ci``, its other entries (a cost's ``sources``)
    kept, and ``interval``."""
    out = dict(system)
    for name, values in columns.items():
        if isinstance(system.get(name), Mapping):
            entry = system[name]
            fresh = amount_summary(values, case_ids, str(entry.get("unit", "")), intervals)
            out[name] = {**entry, **fresh}
    out["interval"] = usage_summary({}, case_ids, {}, intervals)["interval"]
    return out
