"""Percentiles: pathgrade's one definition, and their intervals with the case as the unit.

**Definition** (every percentile pathgrade reports: the score summary's system layer, the
gates' ``pNN`` statistics): linear interpolation between order statistics, Hyndman & Fan
(1996) type 7, NumPy's default ``method="linear"``. For ``n`` values sorted ``x[0] <= ... <=
x[n-1]`` and ``q`` in [0, 1], with ``h = (n - 1) * q``, ``j = floor(h)``, ``g = h - j``::

    Q(q) = x[j] + g * (x[j + 1] - x[j])       (Q(q) = x[n - 1] when j >= n - 1)

so ``Q(0)`` is the minimum, ``Q(1)`` the maximum and ``Q(0.5)`` the usual median. It equals
:func:`numpy.quantile` (``method="linear"``), R's ``quantile(type = 7)`` and Excel's
``PERCENTILE.INC``; it differs from nearest-rank percentiles (which always return a value of
the data). Undefined values (``nan``) are excluded before; no value gives ``nan``.

**Intervals** (:func:`cluster_quantile_intervals`): a percentile over *runs* (one slow run
counts) with a percentile cluster-bootstrap interval over *cases*: each resample draws the
cases with replacement (as :func:`pathgrade.stats.case_summary.case_intervals` draws them:
the same generator of ``seed``, the same blocks of draws) and pools every run of every drawn
case, a case drawn twice counting its runs twice. The resample's percentile is that of the
pooled multiset, computed without expanding it (:func:`weighted_quantiles`: integer weights,
the same arithmetic as :func:`numpy.quantile` on the repeated values, bit for bit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from pathgrade.stats._rng import as_generator

__all__ = [
    "DEFINITION",
    "QuantileInterval",
    "cluster_quantile_intervals",
    "quantile",
    "quantiles",
    "weighted_quantiles",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
#: The definition, as the summary states it.
DEFINITION = "linear interpolation, Hyndman-Fan type 7 (numpy.quantile method='linear')"
#: Elements of a block of weights (resamples x runs) built at once.
_BLOCK_ELEMENTS = 1 << 22


def _check_q(qs: Sequence[float] | FloatArray) -> FloatArray:
    q = np.asarray(qs, dtype=np.float64)
    if q.ndim != 1 or np.isnan(q).any() or (q < 0).any() or (q > 1).any():
        raise ValueError(f"quantile levels must be numbers in [0, 1], got {list(qs)!r}")
    return q


def quantiles(values: Sequence[float] | FloatArray, qs: Sequence[float]) -> FloatArray:
    """The type-7 quantiles ``qs`` (each in [0, 1]) of the defined values of ``values``.

    Example (``n = 4``, ``q = 0.5``: ``h = 1.5``, ``2 + 0.5 * (3 - 2)``; ``q = 0.95``:
    ``h = 2.85``, ``3 + 0.85 * (10 - 3) = 8.95``):
        >>> quantiles([10.0, 1.0, 3.0, 2.0], [0.5, 0.95]).round(12).tolist()
        [2.5, 8.95]

    Raises:
        ValueError: a level outside [0, 1].
    """
    q = _check_q(qs)
    data = np.asarray(values, dtype=np.float64)
    data = data[~np.isnan(data)]
    if data.size == 0:
        return np.full(q.size, np.nan)
    return np.asarray(np.quantile(data, q, method="linear"), dtype=np.float64)


def quantile(values: Sequence[float] | FloatArray, q: float) -> float:
    """One type-7 quantile (:func:`quantiles`); ``nan`` without a defined value."""
    return float(quantiles(values, [q])[0])


def weighted_quantiles(sorted_values: FloatArray, weights: IntArray, qs: FloatArray) -> FloatArray:
    """Type-7 quantiles of the multiset holding ``sorted_values[i]`` ``weights[.., i]`` times.

    ``sorted_values`` ascending (``n``); ``weights`` integer, ``n`` or ``(rows, n)`` (one
    multiset per row); each row must have a positive total. Returns ``(rows, len(qs))``
    (one row for one-dimensional weights). Equal, bit for bit, to
    ``numpy.quantile(numpy.repeat(sorted_values, w), qs)`` for each row ``w``: the position
    ``h = (N - 1) * q`` of a row of total ``N``, its two order statistics found by a search
    over the cumulative weights, and NumPy's interpolation (``a + (b - a) * g``, or
    ``b - (b - a) * (1 - g)`` when ``g >= 0.5``).
    """
    w = np.atleast_2d(np.asarray(weights, dtype=np.int64))
    cumulative = np.cumsum(w, axis=1)
    total = cumulative[:, -1]
    if (total <= 0).any():
        raise ValueError("every multiset needs a positive total weight")
    position = (total[:, None] - 1).astype(np.float64) * qs[None, :]  # (rows, q)
    low = np.floor(position)
    above = position >= (total[:, None] - 1)
    low_index = np.where(above, total[:, None] - 1, low.astype(np.int64))
    high_index = np.where(above, total[:, None] - 1, low_index + 1)
    gamma = position - low
    out = np.empty(position.shape, dtype=np.float64)
    for row in range(w.shape[0]):  # the k-th element of the expanded row is value[i] with
        cum = cumulative[row]  # cum[i - 1] <= k < cum[i]
        a = sorted_values[np.searchsorted(cum, low_index[row], side="right")]
        b = sorted_values[np.searchsorted(cum, high_index[row], side="right")]
        diff = b - a
        g = gamma[row]
        out[row] = np.where(g >= 0.5, b - diff * (1 - g), a + diff * g)
    return out


@dataclass(frozen=True)
class QuantileInterval:
    """A percentile over runs and its interval over cases (``nan`` without data)."""

    q: float
    estimate: float
    low: float
    high: float


def cluster_quantile_intervals(
    values: FloatArray,
    case_codes: IntArray,
    qs: Sequence[float],
    *,
    resamples: int,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[QuantileInterval]:
    """Per level of ``qs``: the type-7 quantile of the defined runs of ``values`` and its
    percentile cluster-bootstrap interval, cases (``case_codes[r]``: run ``r``'s case)
    resampled whole (module docstring). Cases without a defined run are left out, as in
    the summary over cases.

    Raises:
        ValueError: bad levels, ``resamples`` or ``confidence``, or lengths that differ.
    """
    q = _check_q(qs)
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an integer >= 1, got {resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    data = np.asarray(values, dtype=np.float64)
    codes = np.asarray(case_codes, dtype=np.int64)
    if data.shape != codes.shape:
        raise ValueError(f"{data.size} values for {codes.size} case codes")
    keep = ~np.isnan(data)
    data, codes = data[keep], codes[keep]
    nan = float("nan")
    if data.size == 0:
        return [QuantileInterval(float(level), nan, nan, nan) for level in q]
    order = np.argsort(data, kind="stable")
    sorted_values = data[order]
    _, case_of = np.unique(codes[order], return_inverse=True)  # dense case index per run
    n_cases = int(case_of.max()) + 1
    estimates = np.quantile(data, q, method="linear")
    gen = as_generator(seed)
    rows = max(1, (1 << 20) // n_cases)  # the draw blocks of case_intervals / resample_means
    index_type = np.uint32 if n_cases <= np.iinfo(np.uint32).max else np.int64
    draws = np.empty((resamples, q.size), dtype=np.float64)
    step = max(1, min(rows, _BLOCK_ELEMENTS // max(int(data.size), 1)))
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        index = gen.integers(0, n_cases, size=(stop - start, n_cases), dtype=index_type)
        for at in range(0, stop - start, step):
            block = index[at : at + step]
            counts = np.stack([np.bincount(r, minlength=n_cases) for r in block])
            draws[start + at : start + at + block.shape[0]] = weighted_quantiles(
                sorted_values, counts[:, case_of], q
            )
    alpha = (1.0 - confidence) / 2.0
    bounds = np.quantile(draws, [alpha, 1.0 - alpha], axis=0, method="linear")
    return [
        QuantileInterval(float(level), float(est), float(lo), float(hi))
        for level, est, lo, hi in zip(q, estimates, bounds[0], bounds[1], strict=True)
    ]
