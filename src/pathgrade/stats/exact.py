"""Exact small-sample paired tests: Wilcoxon signed-rank by dynamic programming, sign-flip by
full enumeration.

**Wilcoxon signed-rank** (:func:`signed_rank_test`). Zero differences are handled by
``zero_method``: ``"wilcox"`` (default; zeros are dropped before ranking) or ``"pratt"`` (zeros
are ranked with the others, then contribute to neither sign). Tied ``|d|`` get mid-ranks (exact
float equality decides a tie, as SciPy does). The statistic is ``R+``, the sum of the ranks of
the positive differences. Under the null each non-zero difference is positive or negative with
probability 1/2, independently, given the observed ranks (the exact *conditional* null, the one
SciPy's permutation path enumerates). Doubled mid-ranks are integers, so the null distribution
of ``2 R+`` is built exactly by a 0/1-knapsack recursion over the ranks (divided by their gcd;
``O(n^3)`` additions, vectorised per rank). Two-sided ``p = min(1, 2 min(P(R+ <= r),
P(R+ >= r)))``. Without ties and zeros this is SciPy's ``method="exact"``; with them it equals
SciPy's small-sample permutation result, without its cost.

Above :data:`EXACT_SIGNED_RANK_MAX` ranked differences the normal approximation is used, as
SciPy's ``method="asymptotic"`` with its default ``correction=False``:
``z = (R+ - sum(r) / 2) / sqrt(sum(r^2) / 4)`` over the ranks ``r`` of the non-zero differences
(this is SciPy's tie-corrected variance, and its Pratt adjustment), ``p = erfc(|z| / sqrt 2)``.

**Sign-flip** (:func:`sign_flip_exact`). The paired permutation test of the mean: under the
null each non-zero difference keeps or flips its sign with probability 1/2; ``p`` is the share
of the ``2^m`` sign patterns whose ``|sum|`` reaches the observed ``|sum|`` (within a relative
tolerance of ``1e-9``, so float rounding does not split ties). Enumerated by meet in the middle:
the ``2^(m/2)`` signed sums of each half, one half sorted, counted with ``searchsorted``;
``O(2^(m/2) m)``, exact up to :data:`EXACT_SIGN_FLIP_MAX` non-zero differences.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "EXACT_SIGNED_RANK_MAX",
    "EXACT_SIGN_FLIP_MAX",
    "SignedRankResult",
    "ZeroMethod",
    "doubled_midranks",
    "sign_flip_exact",
    "signed_rank_null",
    "signed_rank_test",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
ZeroMethod = Literal["wilcox", "pratt"]

#: Ranked differences up to which the signed-rank null is computed exactly (under 50 ms at
#: the limit with ties, whose odd doubled ranks double the table; at 200-400 differences the
#: normal approximation is within 1e-3 of the exact p).
EXACT_SIGNED_RANK_MAX = 400
#: Non-zero differences up to which the sign-flip test is enumerated exactly (2 x 65,536 sums).
EXACT_SIGN_FLIP_MAX = 32
_TOLERANCE = 1e-9


@dataclass(frozen=True)
class SignedRankResult:
    """``R+``, the two-sided p-value, the number of ranked differences and the method used."""

    statistic: float
    p_value: float
    n: int
    method: Literal["exact", "normal"]


def _finite(values: ArrayLike, name: str) -> FloatArray:
    data = np.asarray(values, dtype=np.float64)
    if data.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {data.shape}")
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name} contain nan or inf: drop undefined pairs first")
    return data


def doubled_midranks(values: ArrayLike) -> IntArray:
    """``2 x`` the 1-based mid-ranks of ``values`` (integers: a tie over ranks ``i..j`` gets
    ``i + j``), in the input order.

    Example:
        >>> doubled_midranks([0.5, 0.2, 0.5, 0.9]).tolist()
        [5, 2, 5, 8]
    """
    data = np.asarray(values, dtype=np.float64)
    n = data.size
    order = np.argsort(data, kind="stable")
    ordered = data[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    ends = np.concatenate((starts[1:], [n])) - 1  # 0-based last index of each tie group
    # ranks i..j (1-based) = starts+1 .. ends+1; doubled mid-rank = starts + ends + 2
    sizes = ends - starts + 1
    doubled = np.repeat(starts + ends + 2, sizes).astype(np.int64)
    out = np.empty(n, dtype=np.int64)
    out[order] = doubled
    return out


def signed_rank_null(weights: ArrayLike) -> FloatArray:
    """Exact distribution of ``S = sum(w_i B_i)``, ``B_i`` independent fair coins in {0, 1}.

    ``weights`` are non-negative integers; entry ``k`` of the result is ``P(S = k)`` for
    ``k = 0 .. sum(w)``. Built by the 0/1-knapsack recursion, smallest weights first.

    Example:
        >>> (signed_rank_null([1, 2, 3]) * 8).tolist()
        [1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0]
    """
    w = np.sort(np.asarray(weights, dtype=np.int64))
    if w.size and w[0] < 0:
        raise ValueError("weights must be non-negative integers")
    total = int(w.sum())
    pmf = np.zeros(total + 1, dtype=np.float64)
    pmf[0] = 1.0
    top = 0  # largest reachable sum so far
    for weight in w.tolist():
        if weight == 0:
            continue  # a coin of weight 0 leaves S unchanged
        # Overlapping in-place add: NumPy computes it as if the right-hand side were copied,
        # so this is pmf_new[k] = pmf[k] + pmf[k - weight].
        pmf[weight : top + weight + 1] += pmf[: top + 1]
        top += weight
        pmf[: top + 1] *= 0.5
    return pmf


def _two_sided(pmf: FloatArray, observed: int) -> float:
    lower = float(pmf[: observed + 1].sum())
    upper = float(pmf[observed:].sum())
    return min(1.0, 2.0 * min(lower, upper))


def signed_rank_test(
    differences: ArrayLike,
    *,
    zero_method: ZeroMethod = "wilcox",
    exact_max: int = EXACT_SIGNED_RANK_MAX,
) -> SignedRankResult:
    """Two-sided Wilcoxon signed-rank test (see the module docstring for the definition).

    ``p = 1`` when no difference is non-zero. Exact when the ranked differences number at
    most ``exact_max``; normal approximation above.

    Example (ranks of ``|d|`` = 1..5, ``R+ = 2 + 3 + 4 + 5 = 14``; of the 32 sign patterns only
    ``R+ = 14`` and ``15`` are ``>= 14``, so ``p = 2 * 2/32``):
        >>> signed_rank_test([-1.0, 2.0, 3.0, 4.0, 5.0]).p_value
        0.125
    """
    if zero_method not in ("wilcox", "pratt"):
        raise ValueError(f"zero_method must be 'wilcox' or 'pratt', got {zero_method!r}")
    data = _finite(differences, "differences")
    nonzero = data != 0
    if not np.any(nonzero):
        return SignedRankResult(0.0, 1.0, int(data.size if zero_method == "pratt" else 0), "exact")
    ranked = data if zero_method == "pratt" else data[nonzero]
    doubled = doubled_midranks(np.abs(ranked))
    signs = ranked[ranked != 0] > 0
    weights = doubled[ranked != 0]  # zeros (pratt) carry no sign: dropped from the sum
    observed2 = int(weights[signs].sum())
    statistic = observed2 / 2.0
    n = int(ranked.size)
    if weights.size <= exact_max:
        g = math.gcd(*weights.tolist())
        pmf = signed_rank_null(weights // g)
        return SignedRankResult(statistic, _two_sided(pmf, observed2 // g), n, "exact")
    ranks = weights / 2.0
    mean = float(ranks.sum()) / 2.0
    sd = math.sqrt(float(np.sum(ranks**2)) / 4.0)
    z = (statistic - mean) / sd
    return SignedRankResult(statistic, math.erfc(abs(z) / math.sqrt(2.0)), n, "normal")


def _signed_sums(values: FloatArray) -> FloatArray:
    """All ``2^k`` sums ``sum(s_i x_i)``, ``s_i`` in {+1, -1}."""
    sums = np.zeros(1, dtype=np.float64)
    for value in values.tolist():
        sums = np.concatenate((sums + value, sums - value))
    return sums


def sign_flip_exact(differences: ArrayLike) -> float:
    """Exact two-sided sign-flip p-value of the mean difference (module docstring).

    Raises:
        ValueError: more than :data:`EXACT_SIGN_FLIP_MAX` non-zero differences.

    Example (only ``+ + + + +`` and ``- - - - -`` reach ``|sum| = 15``):
        >>> sign_flip_exact([1.0, 2.0, 3.0, 4.0, 5.0])
        0.0625
    """
    data = _finite(differences, "differences")
    nonzero = data[data != 0]
    m = nonzero.size
    if m > EXACT_SIGN_FLIP_MAX:
        raise ValueError(
            f"exact sign-flip enumeration supports at most {EXACT_SIGN_FLIP_MAX} non-zero"
            f" differences, got {m}"
        )
    if m == 0:
        return 1.0
    threshold = abs(float(nonzero.sum())) - _TOLERANCE * max(1.0, float(np.abs(nonzero).sum()))
    if threshold <= 0:
        return 1.0  # every pattern reaches |sum| >= ~0
    half = m // 2
    left = _signed_sums(nonzero[:half])
    right = np.sort(_signed_sums(nonzero[half:]))
    # |l + r| >= t with t > 0: r >= t - l, or r <= -t - l (disjoint)
    high = right.size - np.searchsorted(right, threshold - left, side="left")
    low = np.searchsorted(right, -threshold - left, side="right")
    extreme = int(high.sum()) + int(low.sum())
    return extreme / float(1 << m)
