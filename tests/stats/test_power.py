"""Power of a paired comparison: minimum detectable effect and the cases needed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from pathgrade.stats.power import cases_needed, minimum_detectable_effect, paired_power

# Quantiles (tables / scipy.stats): z_0.975 = 1.959964, z_0.8 = 0.841621 (sum 2.801585);
# t_0.975 and t_0.8 with 8, 9, 10 df: 2.306004 + 0.888890 = 3.194894, 2.262157 + 0.883404 =
# 3.145561, 2.228139 + 0.879058 = 3.107197.


def test_hand_computed_t() -> None:
    # d = [0, 1] * 5: n = 10, mean 0.5, sd = sqrt(10 * 0.25 / 9) = 0.527046, sd / sqrt(10) = 1/6.
    result = paired_power([0.0, 1.0] * 5)
    assert (result.n, result.mean_diff) == (10, 0.5)
    assert result.sd == pytest.approx(math.sqrt(2.5 / 9))
    assert result.mde == pytest.approx(3.145561 / 6, abs=1e-6)  # 0.524260
    # sd / mean = 1.054093. normal start: (2.801585 * 1.054093)^2 = 8.72 -> 9;
    # n = 9: (3.194894 * 1.054093)^2 = 11.34 > 9; n = 10: (3.145561 * 1.054093)^2 = 10.99 > 10;
    # n = 11: (3.107197 * 1.054093)^2 = 10.73 <= 11 -> 11.
    assert result.n_needed == 11
    assert (result.mde_reason, result.n_needed_reason) == (None, None)


def test_hand_computed_normal() -> None:
    result = paired_power([0.0, 1.0] * 5, quantiles="normal")
    assert result.mde == pytest.approx(2.801585 / 6, abs=1e-6)  # 0.466931
    assert result.n_needed == 9  # ceil(8.72)
    # (2.801585 * 0.3 / 0.1)^2 = 70.64 -> 71; MDE at sd 0.3, n = 36: 2.801585 * 0.05 = 0.140079
    assert cases_needed(0.1, 0.3, quantiles="normal") == 71
    assert cases_needed(-0.1, 0.3, quantiles="normal") == 71  # the sign does not matter
    assert minimum_detectable_effect(0.3, 36, quantiles="normal") == pytest.approx(0.140079, 1e-5)
    assert minimum_detectable_effect(0.3, 36) > minimum_detectable_effect(
        0.3, 36, quantiles="normal"
    )


def test_undefined_with_reasons() -> None:
    flat = paired_power([0.2, 0.2, 0.2])
    assert flat.mde is None and flat.n_needed is None
    assert (
        flat.mde_reason == flat.n_needed_reason == "the paired differences have no spread (sd = 0)"
    )
    zero_mean = paired_power([-1.0, 1.0, -1.0, 1.0])
    assert zero_mean.mde is not None and zero_mean.n_needed is None
    assert zero_mean.n_needed_reason == "the observed mean difference is 0"
    one = paired_power([0.4])
    assert one.mde is None and one.mde_reason == "needs at least 2 cases, got 1"
    assert one.to_dict()["sd"] is None
    with pytest.raises(ValueError):
        cases_needed(0.0, 1.0)
    with pytest.raises(ValueError):
        cases_needed(1.0, 0.0)
    with pytest.raises(ValueError):
        paired_power([1.0, 2.0], power=1.0)
    with pytest.raises(ValueError):
        paired_power([1.0, math.nan])


def test_to_dict_fields() -> None:
    doc = paired_power([0.0, 1.0] * 5).to_dict()
    assert set(doc) == {
        "n", "mean_diff", "sd", "alpha", "power", "quantiles", "mde", "n_needed",
        "mde_reason", "n_needed_reason",
    }  # fmt: skip
    assert doc["n_needed"] == 11


def _exact_power(n: int, effect: float, alpha: float = 0.05) -> float:
    """Power of the two-sided one-sample t-test (noncentral t) at standardized effect."""
    df = n - 1
    critical = sps.t.ppf(1 - alpha / 2, df)
    nc = effect * math.sqrt(n)
    return float(sps.nct.sf(critical, df, nc) + sps.nct.cdf(-critical, df, nc))


@pytest.mark.parametrize("effect", [1.0, 0.8, 0.5, 0.3])
def test_n_needed_is_the_smallest_n_with_power_080(effect: float) -> None:
    n = cases_needed(effect, 1.0)
    assert _exact_power(n, effect) >= 0.8 > _exact_power(n - 1, effect)


@pytest.mark.slow
def test_simulated_power_at_n_needed_is_about_080() -> None:
    # True mean 0.8, sd 1: n_needed = 15, whose exact (noncentral t) power is 0.821. 4,000
    # simulated experiments estimate the rejection rate with binomial sd ~0.006; allow 4 sd
    # around the exact power, and require it to be at least the nominal 0.8 minus 3 sd.
    effect, sd = 0.8, 1.0
    n = cases_needed(effect, sd)
    assert n == 15
    rng = np.random.default_rng(20240602)
    experiments = 4000
    d = rng.normal(effect, sd, size=(experiments, n))
    p = sps.ttest_1samp(d, 0.0, axis=1).pvalue
    rate = float(np.mean(p < 0.05))
    exact = _exact_power(n, effect / sd)
    assert abs(rate - exact) < 4 * math.sqrt(exact * (1 - exact) / experiments)
    assert rate >= 0.8 - 3 * math.sqrt(0.16 / experiments)
