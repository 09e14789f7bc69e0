"""Coverage of the paired bootstrap interval, checked by simulation (slow)."""

from __future__ import annotations

import numpy as np
import pytest

from pathgrade.stats.bootstrap import bootstrap_mean_ci


@pytest.mark.slow
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_coverage_near_nominal(method: str) -> None:
    # Skewed per-case differences (shifted gamma, true mean 0.5); 95% intervals over 1,000
    # simulated experiments of 60 cases. Expected coverage ~0.93-0.95 (the bootstrap is
    # slightly liberal at small n); the binomial sd of the estimate is ~0.007.
    rng = np.random.default_rng(20240601)
    true_mean = 0.5
    hits = 0
    experiments = 1000
    for _ in range(experiments):
        d = rng.gamma(2.0, 1.0, 60) - 2.0 + true_mean
        ci = bootstrap_mean_ci(d, resamples=1000, method=method, rng=rng)  # type: ignore[arg-type]
        hits += ci.contains(true_mean)
    coverage = hits / experiments
    assert 0.91 <= coverage <= 0.975
