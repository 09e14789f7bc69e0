"""Held-out figures of the semantic matcher: a threshold and a band chosen on some labelled
pairs, measured on others (``pathgrade matcher-agreement``).

Pure: scored pairs (:class:`~pathgrade.semantic.agreement.Scored`, cosines computed once) and
fold assignments in, figures out.

* **Folds**: :func:`stratified_folds` (k folds, each label's pairs shuffled with the seed and
  dealt in turn, so each fold holds about ``1/k`` of each label) or :func:`group_folds` (one
  fold per domain: leave-one-domain-out).
* **Cross-validation** (:func:`cross_validate`): for each fold, the threshold
  (:func:`~pathgrade.semantic.threshold_grid.choose_threshold`) and the band
  (:func:`~pathgrade.semantic.threshold_grid.choose_band`) are chosen on the *other* folds
  only; the held-out fold is then decided with them. The held-out predictions of all folds,
  pooled, give the held-out kappa, precision and recall, with a percentile bootstrap 95%
  interval of kappa (pairs resampled, seeded); the band's held-out coverage (share of pairs
  decided by the embedding alone) and kappa on those decided pairs; and the same per domain
  and per kind. A group whose labels are all one value (the kinds ``paraphrase`` and
  ``near_miss`` of the bundled pairs) has kappa 0 or undefined whatever the matcher does:
  its kappa is ``None`` (shown ``-``), and accuracy tells how it did.
* **Recommended defaults**: the threshold (and band) chosen most often across the folds (ties:
  closest to the current default). Its figures on all pairs are in-sample, and labelled so.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pathgrade.semantic.agreement import Scored
from pathgrade.semantic.threshold_grid import (
    Band,
    BoolArray,
    FloatArray,
    choose_band,
    choose_threshold,
    decided,
    kappa_from_counts,
    predictions,
)
from pathgrade.stats._rng import Seed, as_generator

IntArray = np.ndarray[Any, np.dtype[np.int64]]


def arrays(pairs: Sequence[Scored]) -> tuple[BoolArray, FloatArray, BoolArray]:
    """``truth``, ``cosine`` (``nan``: no cosine) and ``fixed`` of scored pairs."""
    truth = np.asarray([p.equivalent for p in pairs], dtype=np.bool_)
    cosine = np.asarray([math.nan if p.cosine is None else p.cosine for p in pairs], np.float64)
    fixed = np.asarray([p.decided for p in pairs], dtype=np.bool_)
    return truth, cosine, fixed


def stratified_folds(truth: BoolArray, k: int, seed: Seed) -> IntArray:
    """A fold number in ``0..k-1`` for each pair, stratified by label, seeded.

    Raises:
        ValueError: ``k < 2`` or more folds than pairs.
    """
    if k < 2 or k > truth.size:
        raise ValueError(f"folds must be between 2 and the number of pairs, got {k}")
    rng = as_generator(seed)
    out = np.empty(truth.size, dtype=np.int64)
    start = 0
    for label in (True, False):
        members = rng.permutation(np.flatnonzero(truth == label))
        out[members] = (start + np.arange(members.size)) % k
        start = (start + members.size) % k
    return out


def group_folds(groups: Sequence[str]) -> tuple[IntArray, list[str]]:
    """One fold per distinct group (sorted by name), and the names in fold order."""
    names = sorted(set(groups))
    index = {name: i for i, name in enumerate(names)}
    return np.asarray([index[g] for g in groups], dtype=np.int64), names


@dataclass(frozen=True)
class Figures:
    """Kappa, precision, recall, accuracy of predictions against labels (``nan``: undefined)."""

    n: int
    equivalent: int
    kappa: float
    precision: float
    recall: float
    accuracy: float

    def to_dict(self) -> dict[str, Any]:
        def clean(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 4)

        return {
            "n": self.n,
            "equivalent": self.equivalent,
            "kappa": clean(self.kappa),
            "precision": clean(self.precision),
            "recall": clean(self.recall),
            "accuracy": clean(self.accuracy),
        }


def figures(truth: BoolArray, guess: BoolArray) -> Figures:
    """The figures of ``guess`` against ``truth`` (``nan`` figures for no pairs)."""
    tp = int(np.count_nonzero(truth & guess))
    fp = int(np.count_nonzero(~truth & guess))
    fn = int(np.count_nonzero(truth & ~guess))
    tn = int(np.count_nonzero(~truth & ~guess))
    n = truth.size
    kappa = kappa_from_counts(*(np.asarray([x]) for x in (tp, fp, fn, tn)))[0]
    return Figures(
        n=n,
        equivalent=tp + fn,
        kappa=float(kappa),
        precision=tp / (tp + fp) if tp + fp else math.nan,
        recall=tp / (tp + fn) if tp + fn else math.nan,
        accuracy=(tp + tn) / n if n else math.nan,
    )


def kappa_interval(
    truth: BoolArray, guess: BoolArray, *, resamples: int = 1000, seed: Seed = 0
) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of kappa, resampling pairs (undefined resamples
    dropped; ``nan`` bounds when none is defined)."""
    if truth.size == 0 or resamples < 1:
        return (math.nan, math.nan)
    rng = as_generator(seed)
    idx = rng.integers(0, truth.size, size=(resamples, truth.size))
    t, g = truth[idx], guess[idx]
    counts = [np.count_nonzero(a & b, axis=1) for a, b in ((t, g), (~t, g), (t, ~g), (~t, ~g))]
    kappa = kappa_from_counts(*counts)
    kappa = kappa[~np.isnan(kappa)]
    if kappa.size == 0:
        return (math.nan, math.nan)
    low, high = np.percentile(kappa, [2.5, 97.5])
    return (float(low), float(high))


@dataclass(frozen=True)
class Fold:
    """One held-out fold: what was chosen on the others, and how it did on this one."""

    name: str
    threshold: float
    band: Band
    held_out: Figures
    coverage: float
    band_kappa: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "fold": self.name,
            "threshold": round(self.threshold, 4),
            "band": self.band.to_list(),
            **{f"held_out_{k}": v for k, v in self.held_out.to_dict().items()},
            "coverage": round(self.coverage, 4),
            "band_kappa": None if math.isnan(self.band_kappa) else round(self.band_kappa, 4),
        }


@dataclass(frozen=True)
class BandRule:
    """Parameters of the band rule (:func:`~pathgrade.semantic.threshold_grid.choose_band`)."""

    target_kappa: float = 0.8
    min_coverage: float = 0.5


@dataclass(frozen=True)
class CrossValidation:
    """Held-out predictions of every pair, pooled over the folds."""

    folds: list[Fold]
    guess: BoolArray  # the held-out threshold's prediction of each pair
    band_decided: BoolArray  # the pair is outside its fold's band
    band_guess: BoolArray  # the band's prediction (read where band_decided)
    names: list[str] = field(default_factory=list)


def cross_validate(
    pairs: Sequence[Scored],
    folds: IntArray,
    grid: Sequence[float],
    default: float,
    *,
    names: Sequence[str] | None = None,
    rule: BandRule = BandRule(),
) -> CrossValidation:
    """Choose on the other folds, predict the held-out one, for every fold."""
    truth, cosine, fixed = arrays(pairs)
    guess = np.zeros(truth.size, dtype=np.bool_)
    band_decided = np.zeros(truth.size, dtype=np.bool_)
    band_guess = np.zeros(truth.size, dtype=np.bool_)
    out: list[Fold] = []
    numbers = sorted(set(folds.tolist()))
    labels = list(names) if names is not None else [str(f) for f in numbers]
    for number in numbers:
        test = folds == number
        train = ~test
        if not train.any():
            raise ValueError("cross-validation needs at least two folds")
        t = choose_threshold(truth[train], cosine[train], fixed[train], grid, default)
        band = choose_band(
            truth[train],
            cosine[train],
            fixed[train],
            grid,
            default,
            target_kappa=rule.target_kappa,
            min_coverage=rule.min_coverage,
        )
        guess[test] = predictions(cosine[test], fixed[test], [t])[0]
        keep = decided(cosine[test], band)
        band_decided[test] = keep
        band_guess[test] = predictions(cosine[test], fixed[test], [band.high])[0]
        held = figures(truth[test], guess[test])
        on_decided = figures(truth[test][keep], band_guess[test][keep])
        out.append(Fold(labels[number], t, band, held, float(keep.mean()), on_decided.kappa))
    return CrossValidation(out, guess, band_decided, band_guess, labels)


def _modal(values: Sequence[Any], distance: Any) -> Any:
    counts = Counter(values)
    top = max(counts.values())
    return min((v for v in counts if counts[v] == top), key=distance)


def summarise(
    pairs: Sequence[Scored],
    result: CrossValidation,
    default: float,
    *,
    domains: Sequence[str | None] | None = None,
    kinds: Sequence[str | None] | None = None,
    resamples: int = 1000,
    seed: Seed = 0,
) -> dict[str, Any]:
    """Pooled held-out figures with the kappa interval, the band's coverage and decided
    kappa, per domain and kind, the per-fold choices and the recommended defaults (JSON-ready)."""
    truth, _, _ = arrays(pairs)
    pooled = figures(truth, result.guess)
    low, high = kappa_interval(truth, result.guess, resamples=resamples, seed=seed)
    keep = result.band_decided
    on_decided = figures(truth[keep], result.band_guess[keep])
    threshold = _modal([f.threshold for f in result.folds], lambda t: (abs(t - default), t))
    band = _modal(
        [f.band for f in result.folds],
        lambda b: (abs((b.low + b.high) / 2 - default), b.high - b.low),
    )

    def clean(x: float) -> float | None:
        return None if math.isnan(x) else round(x, 4)

    def by(groups: Sequence[str | None]) -> dict[str, Any]:
        values = np.asarray(["(none)" if g is None else g for g in groups], dtype=object)
        out: dict[str, Any] = {}
        for name in sorted(set(values.tolist())):
            sel = values == name
            k = keep & sel
            row = figures(truth[sel], result.guess[sel]).to_dict()
            on_band = figures(truth[k], result.band_guess[k]).to_dict()
            one_label = bool(truth[sel].all() or not truth[sel].any())
            out[name] = {
                **row,
                # one label only: kappa is 0 or undefined whatever the matcher does: not shown
                "kappa": None if one_label else row["kappa"],
                "coverage": round(float(k.sum() / sel.sum()), 4),
                "band_kappa": None if one_label else on_band["kappa"],
                "band_accuracy": on_band["accuracy"],
            }
        return out

    report: dict[str, Any] = {
        "folds": [f.to_dict() for f in result.folds],
        "held_out": {
            **pooled.to_dict(),
            "kappa_95": [clean(low), clean(high)],
            "resamples": resamples,
        },
        "band": {
            "coverage": round(float(keep.mean()), 4),
            "decided": int(keep.sum()),
            "uncertain": int((~keep).sum()),
            **{f"decided_{k}": v for k, v in on_decided.to_dict().items() if k != "n"},
        },
        "recommended": {"threshold": threshold, "band": band.to_list()},
    }
    if domains is not None:
        report["by_domain"] = by(domains)
    if kinds is not None:
        report["by_kind"] = by(kinds)
    return report
