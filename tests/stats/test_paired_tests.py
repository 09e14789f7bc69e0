"""McNemar, Wilcoxon, sign-flip permutation, Holm, effect size."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from pathgrade.stats.holm import holm
from pathgrade.stats.paired import (
    cohens_dz,
    mcnemar_exact,
    mcnemar_from_pairs,
    sign_flip_permutation,
    wilcoxon_signed_rank,
)


def test_mcnemar_worked_example() -> None:
    assert round(mcnemar_exact(15, 5), 6) == 0.041389
    assert mcnemar_exact(5, 15) == mcnemar_exact(15, 5)
    assert mcnemar_exact(15, 5) == pytest.approx(sps.binomtest(5, 20, 0.5).pvalue)


def test_mcnemar_never_discordant_is_p1_not_division_by_zero() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    result = mcnemar_from_pairs([True, False, True], [True, False, True])
    assert (result.b, result.c, result.p_value) == (0, 0, 1.0)


def test_mcnemar_from_pairs_counts() -> None:
    base = [0] * 15 + [1] * 5 + [1] * 30
    var = [1] * 15 + [0] * 5 + [1] * 30
    result = mcnemar_from_pairs(base, var)
    assert (result.b, result.c) == (15, 5)
    with pytest.raises(ValueError, match="binary"):
        mcnemar_from_pairs([0.5], [1])
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_wilcoxon_matches_scipy_and_handles_zeros() -> None:
    d = np.array([0.5, -0.2, 0.8, 0.3, 0.0, 1.1, -0.4, 0.9])
    expected = sps.wilcoxon(d, zero_method="wilcox").pvalue
    assert wilcoxon_signed_rank(d) == pytest.approx(expected)
    assert wilcoxon_signed_rank(np.zeros(5)) == 1.0


def test_sign_flip_exact_small_sample() -> None:
    # 5 positive differences: only the all-positive and all-negative patterns reach |sum|
    d = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert sign_flip_permutation(d) == pytest.approx(2 / 32)
    assert sign_flip_permutation([0.0, 0.0]) == 1.0


def test_sign_flip_monte_carlo_is_seeded_and_sane() -> None:
    rng = np.random.default_rng(3)
    d = rng.normal(0.0, 1.0, 200)
    p1 = sign_flip_permutation(d, 2000, 7)
    assert p1 == sign_flip_permutation(d, 2000, 7)
    assert 0.0 < p1 <= 1.0
    shifted = d + 1.0
    assert sign_flip_permutation(shifted, 2000, 7) == pytest.approx(1 / 2001)


def test_holm_example_and_nan() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    out = holm([0.02, float("nan"), 0.5])
    assert out[0] == pytest.approx(0.04) and math.isnan(out[1]) and out[2] == 0.5
    assert holm([]) == []
    with pytest.raises(ValueError):
        holm([1.5])


def test_cohens_dz() -> None:
    assert cohens_dz([1.0, 2.0, 3.0]) == pytest.approx(2.0)
    assert cohens_dz([0.0, 0.0]) == 0.0
    assert math.isnan(cohens_dz([1.0, 1.0]))
    assert math.isnan(cohens_dz([1.0]))
