"""The score summary over cases: vectorised intervals equal to case_mean_interval, slices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.stats.bootstrap import case_mean_interval
from pathgrade.stats.case_summary import (
    SummaryOptions,
    case_intervals,
    case_rows,
    slice_rows,
    summary_over_cases,
)
from pathgrade.stats.case_sums import case_table

NAN = float("nan")


def _reference(column: np.ndarray, resamples: int, seed: int) -> tuple[float, ...]:
    """case_mean_interval over one value per case (so both see the same per-case means)."""
    ids = [f"c{i}" for i in range(column.size)]
    return tuple(case_mean_interval(column, ids, resamples=resamples, rng=seed))


@pytest.mark.parametrize("width", [1, 2, 3, 7])
def test_equals_case_mean_interval_on_every_path(width: int) -> None:
    # `width` continuous columns share draws (a gather below 3 columns, a matrix product
    # from 3), plus a binary column (multinomial shortcut) and a constant one (a point).
    rng = np.random.default_rng(width)
    columns = [rng.random(40) for _ in range(width)]
    columns += [rng.integers(0, 2, 40).astype(float), np.full(40, 0.25)]
    columns[0][[3, 9]] = NAN  # 38 cases: a group of its own
    means = np.column_stack(columns)
    found = case_intervals(means, resamples=500, seed=11)
    for j, interval in enumerate(found):
        expected = _reference(means[:, j], 500, 11)
        assert tuple(interval) == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert interval.n_cases == (38 if j == 0 else 40)
    assert tuple(found[-1]) == (0.25, 0.25, 0.25, 40)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(st.none(), st.floats(0, 100), st.sampled_from([0.0, 0.5, 1.0])),
            min_size=4,
            max_size=4,
        ),
        min_size=1,
        max_size=25,
    ),
    st.integers(0, 2**16),
)
def test_differential_against_case_mean_interval(rows: list, seed: int) -> None:
    means = np.array([[NAN if v is None else v for v in row] for row in rows])
    found = case_intervals(means, resamples=64, seed=seed)
    for j, interval in enumerate(found):
        column = means[:, j]
        defined = column[~np.isnan(column)]
        if defined.size == 0:
            assert interval.n_cases == 0 and np.isnan(interval.mean)
            continue
        expected = _reference(defined, 64, seed)
        assert tuple(interval) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_case_rows_worked_example() -> None:
    # 3 cases x 2 runs. x: a (1, 3) -> 2, b (5, nan) -> 5, c (nan, nan) -> undefined.
    # mean of per-case means (2 + 5) / 2 = 3.5 over 2 cases, 3 defined runs, 3 undefined.
    ids = ["a", "b", "c", "a", "b", "c"]
    x = np.array([1.0, 5.0, NAN, 3.0, NAN, NAN])
    g = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])  # every case 1: the interval is [1, 1]
    rows = case_rows(case_table(ids, {"x": x, "g": g}), resamples=200, seed=0)
    assert rows["x"].to_dict() | {"low": None, "high": None} == {
        "mean": 3.5,
        "low": None,
        "high": None,
        "n_cases": 2,
        "runs": 3,
        "undefined": 3,
    }
    assert rows["x"].low <= 3.5 <= rows["x"].high
    assert rows["g"].to_dict() == {
        "mean": 1.0,
        "low": 1.0,
        "high": 1.0,
        "n_cases": 3,
        "runs": 6,
        "undefined": 0,
    }
    none = case_rows(case_table(["a"], {"x": np.array([NAN])}))["x"].to_dict()
    assert none == {"mean": None, "low": None, "high": None, "n_cases": 0, "runs": 0,
                    "undefined": 1}  # fmt: skip


def test_slices_put_a_tagged_case_in_each_of_its_slices() -> None:
    # 6 cases, one run each, path_score 10 i; tags: even cases [all, even], odd [all].
    # all: 6 cases, mean (0 + 10 + ... + 50) / 6 = 25; even: 0, 20, 40 -> 20 (3 < min_n 4)
    ids = [f"c{i}" for i in range(6)]
    table = case_table(ids, {"path_score": 10.0 * np.arange(6)})
    keys = [("all", "even") if i % 2 == 0 else ("all",) for i in range(6)]
    out = slice_rows(table, keys, ["path_score"], min_n=4, resamples=300, seed=2)
    every, even = out["path_score"]
    assert (every["slice"], every["n_cases"], every["runs"], every["mean"]) == ("all", 6, 6, 25)
    assert every["tested"] and every["ci"][0] <= 25 <= every["ci"][1]
    assert (even["slice"], even["n_cases"], even["runs"], even["mean"]) == ("even", 3, 3, 20)
    assert not even["tested"] and even["ci"] == [None, None]
    with pytest.raises(ValueError, match="2 slice keys for 6 cases"):
        slice_rows(table, keys[:2], ["path_score"])


def test_summary_over_cases_entries() -> None:
    ids = [f"c{i % 6}" for i in range(12)]  # 6 cases x 2 trials
    metrics = {
        "path_score": np.arange(12, dtype=float),
        "goal_success": (np.arange(12) % 2).astype(float),
        "tool_f1": np.linspace(0, 1, 12),
    }
    table = case_table(ids, metrics)
    plain = summary_over_cases(table, SummaryOptions(resamples=100, seed=4))
    assert set(plain) == {"by_case", "interval"}
    assert plain["interval"] == {"unit": "case", "method": "percentile bootstrap",
                                 "confidence": 0.95, "resamples": 100, "seed": 4}  # fmt: skip
    # case i has runs i and i + 6: mean i + 3; mean over cases 2.5 + 3 = 5.5
    assert plain["by_case"]["path_score"]["mean"] == 5.5
    assert plain["by_case"]["path_score"]["n_cases"] == 6
    keys = [("x",)] * 6
    sliced = summary_over_cases(
        table, SummaryOptions(resamples=100, by="group", metrics=("tool_f1",)), keys
    )
    assert sliced["slices"]["by"] == "group" and sliced["slices"]["min_n"] == 5
    assert list(sliced["slices"]["metrics"]) == ["path_score", "goal_success", "tool_f1"]
    with pytest.raises(ValueError, match="'recall@5' is not in the results"):
        summary_over_cases(table, SummaryOptions(by="group", metrics=("recall@5",)), keys)
    with pytest.raises(ValueError, match="needs each case's slice keys"):
        summary_over_cases(table, SummaryOptions(by="group"))
    with pytest.raises(ValueError, match="resamples"):
        case_intervals(table.means, resamples=0)
