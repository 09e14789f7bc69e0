"""The distribution of latency, tokens and cost over a run set, with intervals over cases."""

from __future__ import annotations

import numpy as np
import pytest

from pathgrade.stats.case_summary import case_intervals
from pathgrade.stats.case_sums import case_table
from pathgrade.stats.usage_summary import IntervalOptions, amount_summary, with_intervals

NAN = float("nan")


def test_hand_computed_summary() -> None:
    # case a: 100, 300 (mean 200); case b: 1000; c: unknown. Mean of case means (200 + 1000)
    # / 2 = 600. Runs sorted 100, 300, 1000 (n = 3): p50 at h = 1: 300; p95 at h = 1.9:
    # 300 + 0.9 * 700 = 930; p99 at h = 1.98: 300 + 0.98 * 700 = 986; max 1000.
    values = np.array([100.0, 300.0, 1000.0, NAN])
    got = amount_summary(values, ["a", "a", "b", "c"], "ms")
    assert got["unit"] == "ms"
    assert (got["runs"], got["unknown"], got["n_cases"]) == (3, 1, 2)
    assert got["mean"] == 600.0 and got["p50"] == 300.0 and got["max"] == 1000.0
    assert got["p95"] == pytest.approx(930.0) and got["p99"] == pytest.approx(986.0)
    assert "ci" not in got


def test_no_defined_run() -> None:
    got = amount_summary(np.array([NAN, NAN]), ["a", "b"], "USD", IntervalOptions(10))
    assert got["runs"] == 0 and got["unknown"] == 2 and got["mean"] is None
    assert got["p95"] is None and "ci" not in got


def test_mean_interval_is_the_summary_over_cases_one() -> None:
    rng = np.random.default_rng(5)
    values = rng.gamma(2.0, 300.0, size=60)
    cases = [f"c{i % 17}" for i in range(60)]
    options = IntervalOptions(resamples=300, seed=4, confidence=0.9)
    got = amount_summary(values, cases, "ms", options)
    table = case_table(cases, {"latency_ms": values})
    [expected] = case_intervals(table.means, resamples=300, confidence=0.9, seed=4)
    assert got["ci"]["mean"] == [expected.low, expected.high]
    for stat in ("p50", "p95", "p99", "max"):
        low, high = got["ci"][stat]
        assert low <= high <= values.max()
    assert got["ci"]["max"][1] == values.max()  # a bootstrap never exceeds the data


def test_with_intervals_keeps_the_cost_sources() -> None:
    values = np.array([0.1, 0.2, NAN])
    system = {
        "percentile": "type 7",
        "cost": {**amount_summary(values, ["a", "b", "b"], "USD"), "sources": {"priced": 2}},
    }
    out = with_intervals(system, {"cost": values}, ["a", "b", "b"], IntervalOptions(50, seed=1))
    assert out["cost"]["sources"] == {"priced": 2} and "ci" in out["cost"]
    assert out["interval"]["unit"] == "case" and out["interval"]["resamples"] == 50
    assert "ci" not in system["cost"]  # the input is not mutated
