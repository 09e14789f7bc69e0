"""Per-case statistics over repeated trials; the case, not the trial, is the unit.

A case with ``n`` trials contributes one number (its mean over defined trials) to every
overall statistic, so running more trials never inflates the sample size. Undefined values
(``None``/``nan``) are excluded and counted, never treated as zero.

Statistics (both per case over its trials, and overall over the per-case means):
``mean``; ``median``; ``std`` (sample standard deviation, ``ddof=1``, ``nan`` for fewer
than two values); ``worst`` (the ``worst_quantile`` quantile, p10 by default, linear
interpolation as :func:`numpy.quantile`; for a lower-is-better metric pass
``worst_quantile=0.9``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["CaseMeans", "Summary", "TrialsSummary", "case_means", "summarize", "summarize_trials"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Summary:
    """``n`` defined values, their mean, median, sample std and worst quantile."""

    n: int
    mean: float
    median: float
    std: float
    worst: float


@dataclass(frozen=True)
class CaseMeans:
    """Per-case means over defined trials, in first-seen case order.

    ``means[i]`` is ``nan`` when case ``case_ids[i]`` has no defined trial; ``defined[i]`` and
    ``undefined[i]`` count its defined and undefined trials.
    """

    case_ids: tuple[Hashable, ...]
    means: FloatArray
    defined: NDArray[np.int64]
    undefined: NDArray[np.int64]


@dataclass(frozen=True)
class TrialsSummary:
    """Per-case summaries and the overall summary of the per-case means."""

    per_case: dict[Hashable, Summary]
    overall: Summary
    undefined_cases: int


def _as_float(values: Sequence[float | bool | None] | NDArray[np.generic]) -> FloatArray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def summarize(
    values: Sequence[float | bool | None] | NDArray[np.generic], worst_quantile: float = 0.1
) -> Summary:
    """Summary of one sample; ``None``/``nan`` excluded (``n`` counts the rest)."""
    if not 0.0 <= worst_quantile <= 1.0:
        raise ValueError(f"worst_quantile must be in [0, 1], got {worst_quantile!r}")
    array = _as_float(values)
    array = array[~np.isnan(array)]
    n = int(array.size)
    if n == 0:
        return Summary(0, np.nan, np.nan, np.nan, np.nan)
    return Summary(
        n=n,
        mean=float(array.mean()),
        median=float(np.median(array)),
        std=float(array.std(ddof=1)) if n > 1 else np.nan,
        worst=float(np.quantile(array, worst_quantile)),
    )


def case_means(
    case_ids: Sequence[Hashable], values: Sequence[float | bool | None] | NDArray[np.generic]
) -> CaseMeans:
    """Mean of each case over its defined trials (parallel sequences, one entry per run)."""
    if len(case_ids) != len(values):
        raise ValueError(
            f"case_ids and values must have the same length, got {len(case_ids)}, {len(values)}"
        )
    order: dict[Hashable, int] = {}
    index = np.empty(len(case_ids), dtype=np.int64)
    for i, case_id in enumerate(case_ids):
        index[i] = order.setdefault(case_id, len(order))
    array = _as_float(values)
    ok = ~np.isnan(array)
    size = len(order)
    sums = np.bincount(index[ok], weights=array[ok], minlength=size)
    defined = np.bincount(index[ok], minlength=size).astype(np.int64)
    undefined = np.bincount(index[~ok], minlength=size).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(defined > 0, sums / np.maximum(defined, 1), np.nan)
    return CaseMeans(tuple(order), means.astype(np.float64), defined, undefined)


def summarize_trials(
    case_ids: Sequence[Hashable],
    values: Sequence[float | bool | None] | NDArray[np.generic],
    worst_quantile: float = 0.1,
) -> TrialsSummary:
    """Per-case summaries over trials and the overall summary over per-case means."""
    grouped: dict[Hashable, list[float | bool | None]] = {}
    if len(case_ids) != len(values):
        raise ValueError(
            f"case_ids and values must have the same length, got {len(case_ids)}, {len(values)}"
        )
    for case_id, value in zip(case_ids, values, strict=True):
        grouped.setdefault(case_id, []).append(None if value is None else float(value))
    per_case = {cid: summarize(vals, worst_quantile) for cid, vals in grouped.items()}
    means = [s.mean for s in per_case.values() if s.n > 0]
    return TrialsSummary(
        per_case=per_case,
        overall=summarize(means, worst_quantile),
        undefined_cases=sum(1 for s in per_case.values() if s.n == 0),
    )
