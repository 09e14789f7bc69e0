"""Figures of a cosine rule at every threshold (or band) of a grid at once, and the choice rules.

Pure: arrays in, arrays out. A set of scored pairs is three parallel arrays: ``truth`` (the
people's label), ``cosine`` (``nan`` where the matcher decided without one) and ``fixed`` (that
decision; read only where ``cosine`` is ``nan``).

* A **threshold** ``t`` predicts "equivalent" when ``cosine >= t``
  (:meth:`pathgrade.semantic.agreement.Scored.predicted`); :func:`threshold_figures` gives
  kappa, precision, recall and accuracy at each ``t`` of a grid, equal to
  :func:`pathgrade.semantic.agreement.agreement` one threshold at a time (a differential test
  holds them equal).
* A **band** ``[low, high]`` (``low <= high``) leaves a pair *uncertain* when
  ``low <= cosine < high``; above it ("``cosine >= high``") a match, below it a mismatch.
  Pairs decided without a cosine are never uncertain. ``low == high`` is an empty band: the
  threshold ``high``. :func:`band_figures` gives, for every band of a grid, the *coverage*
  (the share of pairs decided, i.e. outside the band) and kappa on the decided pairs.

Choice rules (used on training folds only, :mod:`pathgrade.semantic.crossval`):

* :func:`choose_threshold`: the highest kappa; ties (within 1e-12) go to the threshold closest
  to ``default`` (the current default), then to the lower one. No defined kappa: ``default``.
* :func:`choose_band`: among the bands whose decided pairs reach ``target_kappa``, the one with
  the highest coverage (ties: higher decided kappa, then the narrower band, then the band
  whose centre is closest to ``default``). When none reaches it: among the bands with
  coverage ``>= min_coverage``, the highest decided kappa (ties: higher coverage, then as
  above). The empty bands (``low == high``) have coverage 1, so a band is always chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

_TIE = 1e-12


@dataclass(frozen=True)
class Band:
    """A band of cosine where the embedding is not trusted: ``low <= cosine < high``."""

    low: float
    high: float

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise ValueError(f"a band needs low <= high, got [{self.low}, {self.high}]")

    def to_list(self) -> list[float]:
        return [round(self.low, 4), round(self.high, 4)]


def kappa_from_counts(
    tp: npt.NDArray[np.int64],
    fp: npt.NDArray[np.int64],
    fn: npt.NDArray[np.int64],
    tn: npt.NDArray[np.int64],
) -> FloatArray:
    """Cohen's kappa of two binary raters from their 2x2 table, elementwise (``nan`` where
    ``p_e = 1`` or there are no items), equal to :func:`pathgrade.stats.agreement.cohen_kappa`."""
    n = (tp + fp + fn + tn).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (tp + tn) / n
        expected = ((tp + fn) * (tp + fp) + (fp + tn) * (fn + tn)) / (n * n)
        kappa = (observed - expected) / (1.0 - expected)
    return np.where((n > 0) & (expected < 1.0), kappa, np.nan)


def _table(
    truth: BoolArray, guess: npt.NDArray[np.bool_], weight: npt.NDArray[np.bool_] | None = None
) -> tuple[npt.NDArray[np.int64], ...]:
    """tp, fp, fn, tn of ``guess`` (rows: rules; columns: pairs) against ``truth``."""
    keep = np.ones_like(guess) if weight is None else weight
    t = truth[np.newaxis, :]
    tp = np.count_nonzero(guess & t & keep, axis=1)
    fp = np.count_nonzero(guess & ~t & keep, axis=1)
    fn = np.count_nonzero(~guess & t & keep, axis=1)
    tn = np.count_nonzero(~guess & ~t & keep, axis=1)
    return tp, fp, fn, tn


@dataclass(frozen=True)
class GridFigures:
    """Figures per rule of a grid (precision/recall ``nan`` when their denominator is 0)."""

    kappa: FloatArray
    precision: FloatArray
    recall: FloatArray
    accuracy: FloatArray


def _ratio(num: npt.NDArray[np.int64], den: npt.NDArray[np.int64]) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, np.nan)


def predictions(
    cosine: FloatArray, fixed: BoolArray, thresholds: Sequence[float] | FloatArray
) -> BoolArray:
    """Predictions of each threshold (rows) for each pair (columns)."""
    t = np.asarray(thresholds, dtype=np.float64)[:, np.newaxis]
    scored = ~np.isnan(cosine)
    with np.errstate(invalid="ignore"):
        above = cosine[np.newaxis, :] >= t
    out: BoolArray = np.where(scored[np.newaxis, :], above, fixed[np.newaxis, :])
    return out


def threshold_figures(
    truth: BoolArray, cosine: FloatArray, fixed: BoolArray, thresholds: Sequence[float]
) -> GridFigures:
    """Kappa, precision, recall and accuracy at each threshold, all at once."""
    if truth.size == 0:
        raise ValueError("no labelled pairs")
    tp, fp, fn, tn = _table(truth, predictions(cosine, fixed, thresholds))
    return GridFigures(
        kappa=kappa_from_counts(tp, fp, fn, tn),
        precision=_ratio(tp, tp + fp),
        recall=_ratio(tp, tp + fn),
        accuracy=(tp + tn) / truth.size,
    )


def bands(grid: Sequence[float]) -> list[Band]:
    """Every band ``[low, high]`` with ``low <= high`` on the grid (empty bands included)."""
    values = sorted(grid)
    return [Band(lo, hi) for i, lo in enumerate(values) for hi in values[i:]]


def decided(cosine: FloatArray, band: Band) -> BoolArray:
    """The pairs a band decides (outside it, or decided without a cosine)."""
    with np.errstate(invalid="ignore"):
        inside = (cosine >= band.low) & (cosine < band.high)
    out: BoolArray = ~inside
    return out


@dataclass(frozen=True)
class BandFigures:
    """Per band: coverage (share decided) and kappa / accuracy on the decided pairs."""

    coverage: FloatArray
    kappa: FloatArray
    accuracy: FloatArray


def band_figures(
    truth: BoolArray, cosine: FloatArray, fixed: BoolArray, candidates: Sequence[Band]
) -> BandFigures:
    """Coverage and decided-pairs kappa of each band, all at once."""
    if truth.size == 0:
        raise ValueError("no labelled pairs")
    lows = np.asarray([b.low for b in candidates])[:, np.newaxis]
    highs = np.asarray([b.high for b in candidates])[:, np.newaxis]
    with np.errstate(invalid="ignore"):
        inside = (cosine[np.newaxis, :] >= lows) & (cosine[np.newaxis, :] < highs)
    keep = ~inside
    guess = predictions(cosine, fixed, highs[:, 0])
    tp, fp, fn, tn = _table(truth, guess, keep)
    count = tp + fp + fn + tn
    return BandFigures(
        coverage=count / truth.size,
        kappa=kappa_from_counts(tp, fp, fn, tn),
        accuracy=_ratio(tp + tn, count),
    )


def choose_threshold(
    truth: BoolArray,
    cosine: FloatArray,
    fixed: BoolArray,
    thresholds: Sequence[float],
    default: float,
) -> float:
    """The best-kappa threshold; ties go to the one closest to ``default``, then the lower."""
    kappa = threshold_figures(truth, cosine, fixed, thresholds).kappa
    if np.all(np.isnan(kappa)):
        return default
    best = np.nanmax(kappa)
    tied = [t for t, k in zip(thresholds, kappa, strict=True) if k >= best - _TIE]
    return min(tied, key=lambda t: (abs(t - default), t))


def choose_band(
    truth: BoolArray,
    cosine: FloatArray,
    fixed: BoolArray,
    grid: Sequence[float],
    default: float,
    *,
    target_kappa: float = 0.8,
    min_coverage: float = 0.5,
) -> Band:
    """The band of the documented rule (module docstring) on these pairs."""
    candidates = bands(grid)
    fig = band_figures(truth, cosine, fixed, candidates)
    kappa = np.nan_to_num(fig.kappa, nan=-np.inf)

    def tiebreak(i: int) -> tuple[float, float, float]:
        band = candidates[i]
        return (band.high - band.low, abs((band.low + band.high) / 2 - default), band.low)

    reach = [i for i in range(len(candidates)) if kappa[i] >= target_kappa]
    if reach:
        top = max(fig.coverage[i] for i in reach)
        tied = [i for i in reach if fig.coverage[i] >= top - _TIE]
        best_k = max(kappa[i] for i in tied)
        tied = [i for i in tied if kappa[i] >= best_k - _TIE]
    else:
        wide = [i for i in range(len(candidates)) if fig.coverage[i] >= min_coverage - _TIE]
        best_k = max(kappa[i] for i in wide)
        tied = [i for i in wide if kappa[i] >= best_k - _TIE]
        top = max(fig.coverage[i] for i in tied)
        tied = [i for i in tied if fig.coverage[i] >= top - _TIE]
    return candidates[min(tied, key=tiebreak)]
