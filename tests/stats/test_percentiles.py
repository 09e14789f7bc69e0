"""Percentiles (Hyndman-Fan type 7) and their cluster-bootstrap intervals over cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.gates import Gate, GateSet, evaluate_gates
from pathgrade.stats.percentiles import (
    cluster_quantile_intervals,
    quantile,
    quantiles,
    weighted_quantiles,
)

VALUES = st.lists(
    st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_subnormal=False),
    min_size=1,
    max_size=40,
)
LEVEL = st.floats(min_value=0, max_value=1)


def test_hand_computed_type_7() -> None:
    # sorted 1, 2, 3, 10 (n = 4): h = (n - 1) q.
    data = [10.0, 1.0, 3.0, 2.0]
    assert quantile(data, 0.0) == 1.0  # h = 0: the minimum
    assert quantile(data, 1.0) == 10.0  # h = 3: the maximum
    assert quantile(data, 0.5) == 2.5  # h = 1.5: 2 + 0.5 * (3 - 2)
    assert quantile(data, 0.95) == pytest.approx(8.95)  # h = 2.85: 3 + 0.85 * (10 - 3)
    assert quantile(data, 0.99) == pytest.approx(9.79)  # h = 2.97: 3 + 0.97 * 7
    # five values 100..500: p95 at h = 3.8: 400 + 0.8 * 100 = 480 (nearest rank would be 500)
    assert quantile([100.0, 200.0, 300.0, 400.0, 500.0], 0.95) == pytest.approx(480.0)


def test_one_value_nan_excluded_and_no_value() -> None:
    assert quantile([7.0], 0.99) == 7.0
    assert quantile([math.nan, 4.0, 2.0], 0.5) == 3.0  # nan excluded: 2, 4 -> 3
    assert math.isnan(quantile([math.nan], 0.5))
    assert math.isnan(quantile([], 0.5))


@pytest.mark.parametrize("level", [-0.1, 1.5, math.nan])
def test_bad_levels_are_errors(level: float) -> None:
    with pytest.raises(ValueError, match="quantile levels"):
        quantiles([1.0], [level])


@settings(max_examples=200, deadline=None)
@given(VALUES, LEVEL, LEVEL)
def test_monotone_in_q(values: list[float], a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert quantile(values, low) <= quantile(values, high)


@settings(max_examples=200, deadline=None)
@given(VALUES, LEVEL)
def test_within_min_and_max(values: list[float], q: float) -> None:
    assert min(values) <= quantile(values, q) <= max(values)


@settings(max_examples=200, deadline=None)
@given(VALUES, LEVEL, st.randoms(use_true_random=False))
def test_invariant_to_run_order(values: list[float], q: float, rnd: object) -> None:
    shuffled = list(values)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert quantile(shuffled, q) == quantile(values, q)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 1e4, allow_subnormal=False), st.integers(0, 4)), min_size=1),
    st.lists(LEVEL, min_size=1, max_size=5),
)
def test_weighted_equals_numpy_on_the_repeated_values(
    pairs: list[tuple[float, int]], levels: list[float]
) -> None:
    # The fast path against its definition: numpy.quantile of the expanded multiset, exactly.
    pairs.sort()
    values = np.array([v for v, _ in pairs])
    weights = np.array([w for _, w in pairs], dtype=np.int64)
    if weights.sum() == 0:
        weights[0] = 1
    expanded = np.repeat(values, weights)
    got = weighted_quantiles(values, weights, np.array(levels))[0]
    assert got.tolist() == np.quantile(expanded, levels).tolist()


def test_gates_use_the_same_definition() -> None:
    # p95 of 100..500 ms is 480 (type 7); a gate max 479 fails, max 480 passes.
    records = [
        {"case_id": f"c{i}", "metrics": {}, "usage": {"latency_ms": v}}
        for i, v in enumerate([100, 200, 300, 400, 500])
    ]
    for threshold, passed in ((479.0, False), (480.0, True)):
        gate = Gate("latency_ms", "max", threshold, statistic="p95")
        report = evaluate_gates(GateSet((gate,)), records, records)
        assert report.results[0].passed is passed
        assert report.results[0].variant == pytest.approx(480.0)


def test_cluster_interval_of_one_case_is_its_value() -> None:
    # One case: every resample is that case, so the interval is the estimate itself.
    # Runs 10, 20, 40: p50 at h = 1: 20.
    [p50] = cluster_quantile_intervals(
        np.array([10.0, 20.0, 40.0]), np.zeros(3, np.int64), [0.5], resamples=50
    )
    assert (p50.estimate, p50.low, p50.high) == (20.0, 20.0, 20.0)


def test_cluster_interval_resamples_whole_cases() -> None:
    # Two cases: a = {1, 1}, b = {9, 9}. A resample is aa, ab or bb, so the pooled max is 1
    # (aa) or 9; its interval spans [1, 9] given enough resamples, never a value in between.
    values = np.array([1.0, 1.0, 9.0, 9.0])
    codes = np.array([0, 0, 1, 1])
    [top] = cluster_quantile_intervals(values, codes, [1.0], resamples=400, seed=3)
    assert top.estimate == 9.0 and top.low == 1.0 and top.high == 9.0
    # p50 of a resample: aa -> 1, bb -> 9, ab -> (1, 1, 9, 9) at h = 1.5 -> 1 + 0.5 * 8 = 5.
    draws = {
        cluster_quantile_intervals(values, codes, [0.5], resamples=1, seed=s)[0].low
        for s in range(40)
    }
    assert draws == {1.0, 5.0, 9.0}


def test_cluster_interval_ignores_undefined_runs_and_checks_input() -> None:
    [q] = cluster_quantile_intervals(
        np.array([math.nan, 5.0]), np.array([0, 1]), [0.5], resamples=10
    )
    assert (q.estimate, q.low, q.high) == (5.0, 5.0, 5.0)
    [empty] = cluster_quantile_intervals(np.array([math.nan]), np.array([0]), [0.5], resamples=5)
    assert math.isnan(empty.estimate)
    with pytest.raises(ValueError, match="resamples"):
        cluster_quantile_intervals(np.array([1.0]), np.array([0]), [0.5], resamples=0)
    with pytest.raises(ValueError, match="case codes"):
        cluster_quantile_intervals(np.array([1.0]), np.array([0, 1]), [0.5], resamples=5)
