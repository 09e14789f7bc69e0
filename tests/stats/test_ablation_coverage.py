"""Coverage of the ablation's intervals on a synthetic 2x2 with a known interaction (slow)."""

from __future__ import annotations

import numpy as np
import pytest

from pathgrade.stats.ablation import ablation_effects


@pytest.mark.slow
def test_interaction_and_main_effect_coverage_near_nominal() -> None:
    # 1,000 simulated ablations of 60 cases. Per case a level u ~ N(0, 1) shared by the four
    # arms (cases differ a lot, which the pairing removes) and skewed arm noise (shifted
    # gamma, mean 0, sd 0.5); true A = 0.3, B = 0.5, interaction -0.4, so the true main effect
    # of A is 0.3 - 0.4/2 = 0.1 and of B 0.5 - 0.2 = 0.3. 95% percentile intervals, 1,000
    # resamples. As for compare's interval (test_bootstrap_coverage.py): expected coverage
    # ~0.93-0.95, the bootstrap being slightly liberal at small n; the binomial sd of each
    # estimate is ~0.007, so [0.91, 0.975] leaves about 3 sd either side.
    rng = np.random.default_rng(20240603)
    a, b, gamma = 0.3, 0.5, -0.4
    truth = {"interaction": gamma, "main_a": a + gamma / 2, "main_b": b + gamma / 2}
    hits = dict.fromkeys(truth, 0)
    experiments, n = 1000, 60
    for _ in range(experiments):
        u = rng.normal(0.0, 1.0, n)
        noise = (rng.gamma(2.0, 1.0, (4, n)) - 2.0) * (0.5 / np.sqrt(2.0))
        r0 = u + noise[0]
        ra = u + a + noise[1]
        rb = u + b + noise[2]
        rab = u + a + b + gamma + noise[3]
        effects = ablation_effects(r0, ra, rb, rab, resamples=1000, rng=rng)
        for name, value in truth.items():
            low, high = effects[name].ci
            hits[name] += low <= value <= high
    for name in truth:
        assert 0.91 <= hits[name] / experiments <= 0.975, (name, hits[name])
