"""Paired bootstrap intervals: agreement with SciPy, reproducibility, edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from pathgrade.stats.bootstrap import bootstrap_mean_ci, paired_bootstrap, resample_means


def _data() -> np.ndarray:
    return np.random.default_rng(11).gamma(2.0, 1.0, 300) - 2.0


@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"), ("bca", "BCa")])
def test_close_to_scipy(method: str, scipy_method: str) -> None:
    d = _data()
    ours = bootstrap_mean_ci(d, method=method, rng=1)  # type: ignore[arg-type]
    ref = sps.bootstrap(
        (d,), np.mean, method=scipy_method, n_resamples=10_000, random_state=1
    ).confidence_interval
    se = d.std(ddof=1) / np.sqrt(d.size)
    assert abs(ours.low - ref.low) < 0.1 * se
    assert abs(ours.high - ref.high) < 0.1 * se


def test_reproducible_and_seed_dependent() -> None:
    d = _data()
    assert bootstrap_mean_ci(d, rng=5) == bootstrap_mean_ci(d, rng=5)
    assert bootstrap_mean_ci(d, rng=5) != bootstrap_mean_ci(d, rng=6)


def test_chunking_does_not_change_the_result() -> None:
    d = _data()
    big = resample_means(d, 1000, 3)
    small = resample_means(d, 1000, 3, chunk_elements=d.size * 7)
    assert np.array_equal(big, small)


def test_discrete_shortcut_matches_index_bootstrap_in_distribution() -> None:
    rng = np.random.default_rng(2)
    d = rng.choice([-1.0, 0.0, 1.0], size=500, p=[0.2, 0.5, 0.3])
    fast = resample_means(d, 20_000, 1)
    slow = d[rng.integers(0, d.size, size=(20_000, d.size))].mean(axis=1)
    assert fast.mean() == pytest.approx(slow.mean(), abs=0.002)
    assert fast.std() == pytest.approx(slow.std(), rel=0.03)


def test_paired_is_variant_minus_baseline() -> None:
    base = np.array([0.1, 0.5, 0.9, 0.4])
    var = np.array([0.3, 0.6, 0.9, 0.8])
    result = paired_bootstrap(base, var, rng=0)
    assert result.estimate == pytest.approx(np.mean(var - base))
    assert result.low <= result.estimate <= result.high
    assert result.n == 4 and result.resamples == 10_000


def test_constant_differences() -> None:
    result = bootstrap_mean_ci([0.25, 0.25, 0.25], method="bca")
    assert (result.low, result.high) == (0.25, 0.25)
    assert bootstrap_mean_ci([0.0]).contains(0.0)


@pytest.mark.parametrize(
    "kwargs",
    [{"confidence": 1.0}, {"confidence": 0.0}, {"method": "basic"}, {"resamples": 0}],
)
def test_bad_arguments(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        bootstrap_mean_ci([1.0, 2.0], **kwargs)  # type: ignore[arg-type]


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="empty"):
        bootstrap_mean_ci([])
    with pytest.raises(ValueError, match="nan"):
        bootstrap_mean_ci([1.0, float("nan")])
    with pytest.raises(ValueError, match="paired"):
        paired_bootstrap([1.0], [1.0, 2.0])
    with pytest.raises(TypeError):
        bootstrap_mean_ci([1.0, 2.0], rng="seed")  # type: ignore[arg-type]


@pytest.mark.parametrize("resamples", [0, -1, True, 1.5, 1_000_001])
def test_resamples_are_bounded(resamples: object) -> None:
    """From 1 to MAX_RESAMPLES (1,000,000); anything else is a ValueError, not hours of work."""
    from pathgrade.core.limits import MAX_RESAMPLES
    from pathgrade.stats.bootstrap import resample_means

    assert MAX_RESAMPLES == 1_000_000
    with pytest.raises(ValueError, match="from 1 to 1,000,000"):
        resample_means([1.0, 2.0], resamples)  # type: ignore[arg-type]
