"""Rates per window, their Wilson intervals and the flag test (pathgrade.stats.monitor)."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.stats.monitor import (
    RATES,
    by_tool,
    iso_time,
    monitor,
    parse_window,
    wilson_interval,
    worse_p_value,
)

H = 3600


def test_parse_window() -> None:
    assert [parse_window(t) for t in ("30m", "1h", "2h", "6h", "1d", "90s")] == [
        1800,
        3600,
        7200,
        21600,
        86400,
        90,
    ]
    for bad in ("1.5h", "0h", "h", "1w", "", "-1h"):
        with pytest.raises(ValueError, match="a window is"):
            parse_window(bad)


def test_windows_are_bucketed_on_utc_boundaries() -> None:
    # 00:00, 00:30, 01:00, 01:30, the next day 00:01 -> hourly: 00, 01, next 00; daily: 2
    starts = [0, 1800, H, H + 1800, 86400 + 60]
    errors = [0.0, 1.0, 0.0, 0.0, 1.0]
    hourly = monitor(starts, {"tool_errors": errors}, width=H)
    assert [(r.start, r.runs) for r in hourly.rows] == [(0, 2), (H, 2), (86400, 1)]
    daily = monitor(starts, {"tool_errors": errors}, width=86400)
    assert [(r.start, r.runs) for r in daily.rows] == [(0, 4), (86400, 1)]
    as_given = monitor(starts, {"tool_errors": errors})
    assert [r.start for r in as_given.rows] == starts
    assert iso_time(86400 + 60) == "1970-01-02T00:01:00Z"


def test_rate_and_wilson_interval_by_hand() -> None:
    # 2 of 10 runs with tool_errors > 0; one undefined run is not counted.
    values = [0, 3, 0, 0, 1, 0, 0, 0, 0, 0, math.nan]
    row = monitor([0] * 11, {"tool_errors": values}).rows[0]
    rate = row.rates[RATES.index("tool_errors")]
    assert (rate.defects, rate.runs, rate.rate) == (2, 10, 0.2)
    z = NormalDist().inv_cdf(0.975)
    centre = (2 + z * z / 2) / (10 + z * z)
    half = z / (10 + z * z) * math.sqrt(2 * 8 / 10 + z * z / 4)
    assert (rate.low, rate.high) == pytest.approx((centre - half, centre + half), abs=1e-12)
    assert (rate.low, rate.high) == pytest.approx((0.05668, 0.50984), abs=1e-5)
    assert wilson_interval(0, 5) == pytest.approx((0.0, 0.43448), abs=1e-5)
    assert row.rates[RATES.index("loops")].rate is None  # not given: undefined for all


def test_flagged_and_unflagged_windows_with_p_values_by_hand() -> None:
    # Windows 0 and 1: 0 of 4 each; window 2: 4 of 4 (flagged); window 3: 1 of 4.
    starts = [0] * 4 + [H] * 4 + [2 * H] * 4 + [3 * H] * 4
    errors = [0.0] * 8 + [1.0] * 4 + [1.0, 0.0, 0.0, 0.0]
    rows = monitor(starts, {"tool_errors": errors}).rows
    first, second, bad, after = (r.rates[RATES.index("tool_errors")] for r in rows)
    assert first.p_value is None and not first.flagged  # no baseline
    assert second.p_value == 1.0 and second.p_adjusted is None and not second.flagged
    # 4 of 4 vs 0 of 8: all 4 defects among the window's 4 of 12 runs: 1 / C(12, 4)
    assert bad.p_value == pytest.approx(1 / math.comb(12, 4))
    assert bad.p_value == pytest.approx(0.0020202, abs=1e-7)
    assert bad.p_adjusted == pytest.approx(bad.p_value) and bad.flagged
    assert rows[2].flagged == ["tool_errors"]
    # 1 of 4 vs 4 of 12: P(X >= 1), 5 defects in 16 runs, 4 drawn: 1 - C(11, 4) / C(16, 4)
    assert (after.baseline_defects, after.baseline_runs) == (4, 12)
    assert after.p_value == pytest.approx(1 - math.comb(11, 4) / math.comb(16, 4))
    assert not after.flagged
    # --baseline 1: window 3 against window 2 only, 1 of 4 vs 4 of 4
    limited = monitor(starts, {"tool_errors": errors}, baseline=1).rows[3].rates
    assert limited[RATES.index("tool_errors")].baseline_runs == 4


def test_holm_over_the_rates_of_a_row() -> None:
    starts = [0] * 8 + [H] * 4
    ones = [0.0] * 8 + [1.0] * 4
    row = monitor(starts, {"tool_errors": ones, "unrecovered_errors": ones}).rows[1]
    tested = [r for r in row.rates if r.p_adjusted is not None]
    assert [r.metric for r in tested] == ["tool_errors", "unrecovered_errors"]
    assert all(r.p_adjusted == pytest.approx(2 / math.comb(12, 4)) for r in tested)
    # a rate with no defect in the window or its baseline (p = 1) is not in the family
    assert row.rates[RATES.index("loops")].p_adjusted is None


def test_percentiles_are_type_7() -> None:
    row = monitor([0] * 4, {"latency_ms": [10.0, 1.0, 3.0, 2.0]}).rows[0]
    assert row.amounts["latency_ms"].p50 == pytest.approx(2.5)
    assert row.amounts["latency_ms"].p95 == pytest.approx(8.95)
    assert row.amounts["cost"].p50 is None and row.amounts["cost"].runs == 0


def test_groups_have_their_own_baselines() -> None:
    starts = [0, 0, H, H]
    rows = monitor(starts, {"tool_errors": [0, 0, 1, 0]}, groups=["a", "b", "a", "b"]).rows
    assert [(r.start, r.group, r.runs) for r in rows] == [
        (0, "a", 1),
        (0, "b", 1),
        (H, "a", 1),
        (H, "b", 1),
    ]
    assert rows[2].rates[RATES.index("tool_errors")].p_value == pytest.approx(0.5)


def test_by_tool_counts_each_tool_s_own_failures() -> None:
    calls = [[("a", False), ("b", True), ("b", True)], [("a", True)], []]
    starts, values, groups = by_tool([0, 0, H], {"loops": [1.0, 0.0, 0.0]}, calls)
    assert starts.tolist() == [0, 0, 0] and groups == ["a", "b", "a"]
    assert values["tool_errors"].tolist() == [0.0, 2.0, 1.0]
    assert values["loops"].tolist() == [1.0, 1.0, 0.0]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="values for"):
        monitor([0, 0], {"tool_errors": [1.0]})
    with pytest.raises(ValueError, match="baseline"):
        monitor([0], {}, baseline=0)
    with pytest.raises(ValueError):
        worse_p_value(1, 0, 0, 1)


counts = st.integers(1, 40).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@settings(max_examples=200, deadline=None)
@given(st.lists(counts, min_size=1, max_size=6))
def test_rates_lie_in_their_intervals(windows: list[tuple[int, int]]) -> None:
    starts = np.repeat(np.arange(len(windows)) * H, [n for _, n in windows])
    errors = np.concatenate([[1.0] * k + [0.0] * (n - k) for k, n in windows])
    for row in monitor(starts, {"tool_errors": errors}).rows:
        rate = row.rates[RATES.index("tool_errors")]
        assert rate.rate is not None and rate.low is not None and rate.high is not None
        assert 0.0 <= rate.low <= rate.rate <= rate.high <= 1.0
        assert rate.p_value is None or 0.0 <= rate.p_value <= 1.0


@settings(max_examples=300, deadline=None)
@given(counts, st.integers(1, 5))
def test_a_window_identical_to_its_baseline_is_never_flagged(
    window: tuple[int, int], copies: int
) -> None:
    k, n = window
    assert worse_p_value(k, n, copies * k, copies * n) >= 0.5
    pattern = [1.0] * k + [0.0] * (n - k)
    starts = np.repeat(np.arange(copies + 1) * H, n)
    values = {name: pattern * (copies + 1) for name in RATES}
    assert not monitor(starts, values).rows[-1].flagged
