"""Paired significance tests and effect sizes for baseline-vs-variant comparisons.

* :func:`mcnemar_exact`: McNemar's exact test for binary outcomes. Only the discordant pairs
  carry information: ``b`` (baseline fails, variant passes) and ``c`` (baseline passes,
  variant fails). Under the null each discordant pair is a fair coin, so the two-sided p-value
  is ``min(1, 2 * P(X <= min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``. With no discordant
  pair at all the p-value is 1 (nothing differs), never a division by zero.
* :func:`wilcoxon_signed_rank`: the Wilcoxon signed-rank test on the differences
  (``zero_method="wilcox"``: zero differences dropped; mid-ranks for ties), computed by
  :func:`pathgrade.stats.exact.signed_rank_test`: the exact conditional null up to
  ``EXACT_SIGNED_RANK_MAX`` (400) non-zero differences, the normal approximation above (as
  SciPy's ``method="asymptotic"``). All-zero differences give p = 1.
* :func:`sign_flip_permutation`: the paired permutation test of the mean difference: under
  the null each difference is equally likely to have either sign. Exact (all ``2^m`` sign
  patterns of the ``m`` non-zero differences, :func:`pathgrade.stats.exact.sign_flip_exact`)
  when ``m <= EXACT_SIGN_FLIP_MAX`` (32), whatever ``resamples``; otherwise Monte Carlo with
  ``p = (1 + #{|T*| >= |T|}) / (1 + resamples)``.
* :func:`cohens_dz`: standardized mean difference of paired data, ``mean(d) / std(d, ddof=1)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pathgrade.stats._rng import Seed, as_generator
from pathgrade.stats.exact import EXACT_SIGN_FLIP_MAX, sign_flip_exact, signed_rank_test

__all__ = [
    "McNemarResult",
    "cohens_dz",
    "mcnemar_exact",
    "mcnemar_from_pairs",
    "sign_flip_permutation",
    "wilcoxon_signed_rank",
]

FloatArray = NDArray[np.float64]
_CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class McNemarResult:
    """Discordant counts and the exact two-sided p-value.

    ``b``: baseline fails, variant passes. ``c``: baseline passes, variant fails.
    """

    b: int
    c: int
    p_value: float


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts.

    Example:
        >>> round(mcnemar_exact(15, 5), 6)
        0.041389
        >>> mcnemar_exact(0, 0)
        1.0
    """
    for name, value in (("b", b), ("c", c)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer count, got {value!r}")
    total = int(b) + int(c)
    if total == 0:
        return 1.0
    from scipy import stats as sps  # imported on use: scipy costs ~0.3 s and ~40 MiB

    tail = float(sps.binom.cdf(min(int(b), int(c)), total, 0.5))
    return min(1.0, 2.0 * tail)


def mcnemar_from_pairs(baseline: ArrayLike, variant: ArrayLike) -> McNemarResult:
    """McNemar's exact test from paired binary outcomes (bools or 0/1)."""
    base = np.asarray(baseline)
    var = np.asarray(variant)
    if base.shape != var.shape or base.ndim != 1:
        raise ValueError(f"paired 1-d inputs required, got shapes {base.shape} and {var.shape}")
    for name, array in (("baseline", base), ("variant", var)):
        if not np.all(np.isin(array, (0, 1))):
            raise ValueError(f"{name} must be binary (bool or 0/1) for McNemar's test")
    base_ok = base.astype(bool)
    var_ok = var.astype(bool)
    b = int(np.count_nonzero(~base_ok & var_ok))
    c = int(np.count_nonzero(base_ok & ~var_ok))
    return McNemarResult(b, c, mcnemar_exact(b, c))


def _differences(differences: ArrayLike) -> FloatArray:
    data = np.asarray(differences, dtype=np.float64)
    if data.ndim != 1:
        raise ValueError(f"differences must be one-dimensional, got shape {data.shape}")
    if not np.all(np.isfinite(data)):
        raise ValueError("differences contain nan or inf: drop undefined pairs first")
    return data


def wilcoxon_signed_rank(differences: ArrayLike) -> float:
    """Two-sided Wilcoxon signed-rank p-value; 1.0 when no difference is non-zero."""
    return signed_rank_test(_differences(differences), zero_method="wilcox").p_value


def sign_flip_permutation(differences: ArrayLike, resamples: int = 10_000, rng: Seed = 0) -> float:
    """Two-sided paired sign-flip permutation p-value of the mean difference."""
    data = _differences(differences)
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an integer >= 1, got {resamples!r}")
    nonzero = data[data != 0]
    m = nonzero.size
    if m == 0:
        return 1.0
    if m <= EXACT_SIGN_FLIP_MAX:
        return sign_flip_exact(nonzero)
    observed = abs(float(nonzero.sum()))
    tolerance = 1e-9 * max(1.0, float(np.abs(nonzero).sum()))
    gen = as_generator(rng)
    rows = max(1, _CHUNK_ELEMENTS // m)
    extreme = 0
    total = float(nonzero.sum())
    for start in range(0, resamples, rows):
        size = min(rows, resamples - start)
        flips = gen.random((size, m)) < 0.5
        # sum of the flipped data = total - 2 * sum of the flipped entries
        sums = total - 2.0 * (flips.astype(np.float64) @ nonzero)
        extreme += int(np.count_nonzero(np.abs(sums) >= observed - tolerance))
    return (1.0 + extreme) / (1.0 + resamples)


def cohens_dz(differences: ArrayLike) -> float:
    """Cohen's ``d_z = mean(d) / std(d, ddof=1)``.

    ``0.0`` when every difference is zero; ``nan`` when fewer than two differences or when
    all differences are equal and non-zero (the spread is zero, the ratio undefined).
    """
    data = _differences(differences)
    if data.size >= 1 and np.all(data == 0):
        return 0.0
    if data.size < 2:
        return float("nan")
    spread = float(data.std(ddof=1))
    if spread == 0.0:
        return float("nan")
    return float(data.mean()) / spread
