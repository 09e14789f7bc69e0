"""Exact Wilcoxon signed-rank (DP over doubled mid-ranks) and exact sign-flip enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from pathgrade.stats.exact import (
    EXACT_SIGN_FLIP_MAX,
    doubled_midranks,
    sign_flip_exact,
    signed_rank_null,
    signed_rank_test,
)
from pathgrade.stats.paired import sign_flip_permutation, wilcoxon_signed_rank


def plain_midranks(values: list[float]) -> list[float]:
    """1-based mid-ranks, written the slow obvious way."""
    return [
        sum(1 for w in values if w < v) + (sum(1 for w in values if w == v) + 1) / 2 for v in values
    ]


def brute_force_wilcoxon(d: list[float], zero_method: str = "wilcox") -> float:
    """Two-sided p by enumerating every sign pattern of the non-zero differences."""
    kept = [x for x in d if x != 0] if zero_method == "wilcox" else list(d)
    if not any(kept):
        return 1.0
    ranks = plain_midranks([abs(x) for x in kept])
    observed = sum(r for r, x in zip(ranks, kept, strict=True) if x > 0)
    signed = [r for r, x in zip(ranks, kept, strict=True) if x != 0]
    stats = [
        sum(r for r, keep in zip(signed, pattern, strict=True) if keep)
        for pattern in itertools.product([False, True], repeat=len(signed))
    ]
    lower = sum(1 for s in stats if s <= observed + 1e-9) / len(stats)
    upper = sum(1 for s in stats if s >= observed - 1e-9) / len(stats)
    return min(1.0, 2 * min(lower, upper))


def brute_force_sign_flip(d: list[float]) -> float:
    nonzero = [x for x in d if x != 0]
    if not nonzero:
        return 1.0
    observed = abs(sum(nonzero))
    tolerance = 1e-9 * max(1.0, sum(abs(x) for x in nonzero))
    hits = sum(
        1
        for signs in itertools.product([1, -1], repeat=len(nonzero))
        if abs(sum(s * x for s, x in zip(signs, nonzero, strict=True))) >= observed - tolerance
    )
    return hits / 2 ** len(nonzero)


def test_hand_computed_ties_and_zeros() -> None:
    # d = [0, 1, -1, 2, 3], zero_method="wilcox": drop the 0; |d| = 1, 1, 2, 3 get mid-ranks
    # 1.5, 1.5, 3, 4; R+ = 1.5 + 3 + 4 = 8.5. Of the 16 sign patterns, R+ >= 8.5 for
    # {1.5, 3, 4} (twice, either 1.5) and {all} = 10: 3/16. p = 2 * 3/16 = 0.375.
    result = signed_rank_test([0.0, 1.0, -1.0, 2.0, 3.0])
    assert (result.statistic, result.n, result.method) == (8.5, 4, "exact")
    assert result.p_value == 0.375
    # Pratt: rank with the zero (|d| = 0, 1, 1, 2, 3 -> 1, 2.5, 2.5, 4, 5), the zero carries no
    # sign: R+ = 2.5 + 4 + 5 = 11.5 of a total 14; >= 11.5 again 3 of 16: p = 0.375.
    pratt = signed_rank_test([0.0, 1.0, -1.0, 2.0, 3.0], zero_method="pratt")
    assert (pratt.statistic, pratt.n, pratt.p_value) == (11.5, 5, 0.375)


def test_hand_computed_no_ties() -> None:
    # d = [-1, 2, 3, 4, 5]: ranks 1..5, R+ = 14; R+ >= 14 only for 14 and 15 (2 of 32).
    assert signed_rank_test([-1.0, 2.0, 3.0, 4.0, 5.0]).p_value == 2 * 2 / 32
    # all positive, n = 4: R+ = 10 is the maximum (1 of 16): p = 2/16
    assert wilcoxon_signed_rank([0.1, 0.2, 0.3, 0.4]) == 0.125


def test_null_distribution_and_midranks() -> None:
    # sums of subsets of {1, 2, 3}: 0, 1, 2, 3, 3, 4, 5, 6
    assert (signed_rank_null([1, 2, 3]) * 8).tolist() == [1, 1, 1, 2, 1, 1, 1]
    assert (signed_rank_null([0, 2]) * 2).tolist() == [1, 0, 1]
    assert doubled_midranks([3.0, 1.0, 3.0, 3.0]).tolist() == [6, 2, 6, 6]  # ranks 2..4 -> 3


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=1, max_size=10), st.sampled_from(["wilcox", "pratt"]))
def test_equals_brute_force_with_ties_and_zeros(xs: list[int], zero_method: str) -> None:
    d = [x / 4 for x in xs]  # exact binary fractions: many ties and zeros
    ours = signed_rank_test(d, zero_method=zero_method).p_value  # type: ignore[arg-type]
    assert ours == pytest.approx(brute_force_wilcoxon(d, zero_method), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.floats(0.01, 100.0, allow_nan=False), min_size=1, max_size=50, unique=True).flatmap(
        lambda xs: st.lists(st.booleans(), min_size=len(xs), max_size=len(xs)).map(
            lambda signs: [x if s else -x for x, s in zip(xs, signs, strict=True)]
        )
    )
)
def test_equals_scipy_exact_without_ties_or_zeros(d: list[float]) -> None:
    expected = sps.wilcoxon(d, method="exact").pvalue
    assert signed_rank_test(d).p_value == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_equals_scipy_permutation_path_for_small_n_with_ties() -> None:
    # SciPy's method="auto" enumerates all 2^n sign patterns for n <= 13 with ties or zeros.
    rng = np.random.default_rng(4)
    for _ in range(20):
        d = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0], size=12)
        if not np.any(d):
            continue
        for zero_method in ("wilcox", "pratt"):
            expected = sps.wilcoxon(d, zero_method=zero_method).pvalue
            ours = signed_rank_test(d, zero_method=zero_method).p_value  # type: ignore[arg-type]
            assert ours == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
def test_normal_approximation_equals_scipy_asymptotic(zero_method: str) -> None:
    rng = np.random.default_rng(5)
    d = np.round(rng.normal(0.2, 1.0, 80), 1)  # ties and zeros
    forced = signed_rank_test(d, zero_method=zero_method, exact_max=0)  # type: ignore[arg-type]
    expected = sps.wilcoxon(d, zero_method=zero_method, method="asymptotic").pvalue
    assert forced.method == "normal"
    assert forced.p_value == pytest.approx(expected, rel=1e-9)
    exact = signed_rank_test(d, zero_method=zero_method)  # type: ignore[arg-type]
    assert exact.method == "exact"
    assert exact.p_value == pytest.approx(forced.p_value, abs=0.01)  # n = 80: close


def test_edge_cases() -> None:
    assert signed_rank_test([0.0, 0.0]).p_value == 1.0
    assert signed_rank_test([]).p_value == 1.0
    assert signed_rank_test([3.0]).p_value == 1.0  # one difference: 2 * min(1/2, 1) = 1
    with pytest.raises(ValueError, match="nan"):
        signed_rank_test([1.0, math.nan])
    with pytest.raises(ValueError, match="zero_method"):
        signed_rank_test([1.0], zero_method="zsplit")  # type: ignore[arg-type]


def test_sign_flip_hand_computed() -> None:
    # d = [1, 2, 3, -1]: observed |sum| = 5. T = s1 + 2 s2 + 3 s3 + s4 reaches |T| >= 5 only
    # when s2 = s3 (else |2 s2 + 3 s3| = 1 and |T| <= 3); with s2 = s3 = +1, T = 5 + s1 + s4 is
    # 7, 5, 5 or 3: three patterns; their mirror images three more: 6 of 16.
    assert sign_flip_exact([1.0, 2.0, 3.0, -1.0]) == 6 / 16
    assert sign_flip_exact([1.0, -1.0]) == 1.0  # observed sum 0: every pattern reaches it
    assert sign_flip_exact([0.0, 0.0]) == 1.0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-5, 5).map(lambda x: x / 2), min_size=0, max_size=12))
def test_sign_flip_equals_brute_force(d: list[float]) -> None:
    assert sign_flip_exact(d) == pytest.approx(brute_force_sign_flip(d), abs=1e-12)


@pytest.mark.parametrize("m", [21, 27, EXACT_SIGN_FLIP_MAX])
def test_sign_flip_large_m_equals_subset_sum_distribution(m: int) -> None:
    # For integer d, T = sum(s_i |d_i|) = 2 S - sum|d| with S = sum(|d_i| B_i), whose exact
    # distribution is signed_rank_null(|d|): an independent exact answer.
    rng = np.random.default_rng(m)
    d = rng.integers(-9, 10, size=m)
    d[d == 0] = 3
    absd = np.abs(d)
    pmf = signed_rank_null(absd)
    t = 2 * np.arange(pmf.size) - absd.sum()
    expected = float(pmf[np.abs(t) >= abs(d.sum())].sum())
    assert sign_flip_exact(d.astype(float)) == pytest.approx(expected, rel=1e-12)
    assert sign_flip_permutation(d.astype(float), resamples=100) == pytest.approx(expected)


def test_sign_flip_above_the_cut_off_is_an_error_and_monte_carlo_in_paired() -> None:
    d = np.arange(1.0, EXACT_SIGN_FLIP_MAX + 2)
    with pytest.raises(ValueError, match="at most"):
        sign_flip_exact(d)
    assert sign_flip_permutation(d, 999, 1) == pytest.approx(1 / 1000)
