"""Hypothesis properties of the paired statistics."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.stats.bootstrap import paired_bootstrap
from pathgrade.stats.compare import compare_records
from pathgrade.stats.holm import holm
from pathgrade.stats.passk import pass_at_k, pass_hat_k

values = st.lists(
    st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), min_size=1, max_size=60
)


@settings(max_examples=60, deadline=None)
@given(values, st.integers(0, 2**32 - 1))
def test_identical_sides_ci_contains_zero(xs: list[float], seed: int) -> None:
    result = paired_bootstrap(xs, xs, resamples=200, rng=seed)
    assert result.contains(0.0)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_swapping_sides_negates_the_difference(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 40))
    pair = st.lists(st.floats(-100, 100, allow_nan=False), min_size=n, max_size=n)
    base, var = data.draw(pair), data.draw(pair)
    seed = data.draw(st.integers(0, 1000))
    forward = paired_bootstrap(base, var, resamples=300, rng=seed)
    backward = paired_bootstrap(var, base, resamples=300, rng=seed)
    assert np.isclose(forward.estimate, -backward.estimate, atol=1e-9)
    scale = 1e-9 * (1 + max(abs(x) for x in base + var))
    assert np.isclose(forward.low, -backward.high, atol=scale)
    assert np.isclose(forward.high, -backward.low, atol=scale)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_compare_swap_negates_diff_and_flips_verdict(data: st.DataObject) -> None:
    n = data.draw(st.integers(2, 25))
    xs = data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
    ys = data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
    base = [{"case_id": str(i), "metrics": {"m": x}} for i, x in enumerate(xs)]
    var = [{"case_id": str(i), "metrics": {"m": y}} for i, y in enumerate(ys)]
    f = compare_records(base, var, resamples=200).metrics["m"]
    b = compare_records(var, base, resamples=200).metrics["m"]
    assert np.isclose(f.diff, -b.diff, atol=1e-12)
    assert np.isclose(f.p_value, b.p_value)
    flipped = {"improved": "regressed", "regressed": "improved"}
    assert b.verdict == flipped.get(f.verdict, f.verdict)


@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_passk_bounds_and_monotone(nc: tuple[int, int]) -> None:
    n, c = nc
    at = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    hat = [pass_hat_k(n, c, k) for k in range(1, n + 1)]
    assert all(0.0 <= a <= 1.0 for a in at + hat)
    assert all(x <= y + 1e-12 for x, y in itertools.pairwise(at))
    assert all(x >= y - 1e-12 for x, y in itertools.pairwise(hat))
    assert np.isclose(at[0], c / n) and np.isclose(hat[0], c / n)


@given(st.lists(st.floats(0, 1), max_size=20))
def test_holm_dominates_raw_and_bounded(ps: list[float]) -> None:
    adjusted = holm(ps)
    assert all(p <= a + 1e-15 <= 1.0 + 1e-15 for p, a in zip(ps, adjusted, strict=True))
