"""Cluster bootstrap over cases for summaries: trials are averaged within a case first."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pathgrade.stats.bootstrap import bootstrap_mean_ci, case_mean_interval


def twelve_cases_three_trials() -> tuple[list[float | None], list[str]]:
    # Case i has trials (i - 1) / 10, i / 10, (i + 1) / 10: case mean i / 10. Case c0 has three
    # more trials at 0.0 and one undefined; its mean stays 0.0.
    values: list[float | None] = []
    ids: list[str] = []
    for i in range(12):
        for offset in (-1, 0, 1):
            values.append((i + offset) / 10)
            ids.append(f"c{i}")
    values += [0.0, 0.0, 0.0, None]
    ids += ["c0"] * 4
    return values, ids


def test_mean_is_over_cases_and_n_is_cases() -> None:
    values, ids = twelve_cases_three_trials()
    mean, low, high, n_cases = case_mean_interval(values, ids, rng=3)
    # per-case means 0.0, 0.1, ..., 1.1: mean 5.5 / 10 = 0.55 (a run-level mean would be
    # 3 * 6.6 / 39 = 0.5077: case c0's extra trials would weigh more)
    assert mean == pytest.approx(0.55)
    assert n_cases == 12
    assert low < mean < high
    # exactly the bootstrap of the 12 case means
    expected = bootstrap_mean_ci([i / 10 for i in range(12)], rng=3)
    assert (low, high) == pytest.approx((expected.low, expected.high))


def test_run_level_bootstrap_would_be_too_narrow() -> None:
    values, ids = twelve_cases_three_trials()
    _, low, high, _ = case_mean_interval(values, ids, rng=0)
    runs = np.array([v for v in values if v is not None])
    naive = bootstrap_mean_ci(runs, rng=0)
    # the trials of a case are nearly identical, so 39 runs carry about 12 cases' information:
    # the run-level interval is about sqrt(3) times too narrow
    assert (high - low) > 1.4 * (naive.high - naive.low)


def test_no_defined_case_and_one_case() -> None:
    mean, low, high, n = case_mean_interval([None, float("nan")], ["a", "b"])
    assert n == 0 and math.isnan(mean) and math.isnan(low) and math.isnan(high)
    assert tuple(case_mean_interval([0.5, 0.7], ["a", "a"])) == pytest.approx((0.6, 0.6, 0.6, 1))
    with pytest.raises(ValueError, match="same length"):
        case_mean_interval([1.0], ["a", "b"])
