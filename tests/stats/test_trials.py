"""Per-case statistics over repeated trials."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pathgrade.stats.trials import case_means, summarize, summarize_trials


def test_summarize_excludes_null() -> None:
    s = summarize([1.0, None, 3.0, 2.0, float("nan")])
    assert s.n == 3
    assert s.mean == 2.0 and s.median == 2.0 and s.std == 1.0
    assert s.worst == pytest.approx(np.quantile([1.0, 2.0, 3.0], 0.1))


def test_summarize_empty_and_single() -> None:
    assert summarize([None]).n == 0 and math.isnan(summarize([]).mean)
    assert math.isnan(summarize([5.0]).std)


def test_trials_do_not_inflate_the_sample() -> None:
    ids = ["a"] * 9 + ["b"]
    values = [1.0] * 9 + [0.0]
    out = summarize_trials(ids, values)
    assert out.overall.n == 2  # two cases, not ten runs
    assert out.overall.mean == 0.5
    assert out.per_case["a"].n == 9


def test_case_means_order_and_counts() -> None:
    cm = case_means(["b", "a", "b", "a", "c"], [1.0, None, 0.0, 1.0, None])
    assert cm.case_ids == ("b", "a", "c")
    assert cm.means[:2].tolist() == [0.5, 1.0] and math.isnan(cm.means[2])
    assert cm.defined.tolist() == [2, 1, 0] and cm.undefined.tolist() == [0, 1, 1]
    assert summarize_trials(["x"], [None]).undefined_cases == 1


def test_bad_quantile() -> None:
    with pytest.raises(ValueError):
        summarize([1.0], worst_quantile=1.5)
