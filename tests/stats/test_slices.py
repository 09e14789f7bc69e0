"""Per-slice summaries and paired differences (n, interval, exact p, Holm, min_n)."""

from __future__ import annotations

import math

import pytest

from pathgrade.stats.bootstrap import bootstrap_mean_ci
from pathgrade.stats.paired import mcnemar_exact
from pathgrade.stats.slices import paired_slices, slice_summaries

SLICE = {
    **{f"e{i}": "easy" for i in range(1, 6)},
    **{f"m{i}": "mid" for i in range(1, 7)},
    "h1": "hard",
    "h2": "hard",
}


def test_summaries_hand_computed() -> None:
    # easy: e1 has trials 0.1 and 0.3 (mean 0.2), e2..e5 are 0.4, 0.6, 0.8, 1.0: mean 0.6 over
    # 5 cases (tested: 5 >= min_n). hard: h1 = 0.0, h2 = 1.0 and an undefined run: mean 0.5 over
    # 2 cases, shown without an interval. h3 (hard) has no defined run: counted as undefined.
    values = [0.1, 0.3, 0.4, 0.6, 0.8, 1.0, 0.0, 1.0, None, None]
    ids = ["e1", "e1", "e2", "e3", "e4", "e5", "h1", "h2", "h2", "h3"]
    out = slice_summaries(values, ids, {**SLICE, "h3": "hard"}, seed=2)
    easy, hard = out
    assert (easy.key, easy.n_cases, easy.undefined, easy.tested) == ("easy", 5, 0, True)
    assert easy.mean == pytest.approx(0.6)
    assert easy.low < 0.6 < easy.high
    assert (hard.key, hard.n_cases, hard.undefined, hard.tested) == ("hard", 2, 1, False)
    assert hard.mean == pytest.approx(0.5)
    assert math.isnan(hard.low) and math.isnan(hard.high)
    assert hard.to_dict() == {
        "slice": "hard",
        "n_cases": 2,
        "undefined": 1,
        "mean": 0.5,
        "ci": [None, None],
        "tested": False,
    }
    # min_n is configurable: with 2 the hard slice gets its interval
    assert slice_summaries(values, ids, {**SLICE, "h3": "hard"}, min_n=2)[1].tested


def test_summary_interval_is_the_case_bootstrap_of_the_slice() -> None:
    values = [0.1, 0.3, 0.4, 0.6, 0.8, 1.0]
    ids = ["e1", "e1", "e2", "e3", "e4", "e5"]
    (easy,) = slice_summaries(values, ids, SLICE, seed=7)
    # the slice's own stream: the same interval whatever other slices exist
    other = slice_summaries([*values, 0.5], [*ids, "h1"], SLICE, seed=7)[0]
    assert (easy.low, easy.high) == (other.low, other.high)
    expected = bootstrap_mean_ci([0.2, 0.4, 0.6, 0.8, 1.0], rng=0)
    assert easy.high - easy.low == pytest.approx(expected.high - expected.low, rel=0.15)


def test_paired_hand_computed() -> None:
    # easy d = 0.1, 0.2, 0.3, 0.4, -0.05: |d| ranks 2, 3, 4, 5, 1; R+ = 14; exact p = 2 * 2/32
    # = 0.125. mid d = 1..6 (all positive): R+ = 21, the maximum: p = 2/64 = 0.03125. hard: 2
    # cases, untested. Holm over the 2 tested: 0.03125 * 2 = 0.0625; max(0.0625, 0.125 * 1).
    d = {"e1": 0.1, "e2": 0.2, "e3": 0.3, "e4": 0.4, "e5": -0.05, "h1": 1.0, "h2": 2.0}
    d.update({f"m{i}": float(i) for i in range(1, 7)})
    ids = list(d)
    base = [0.0] * len(ids)
    var = [d[c] for c in ids]
    rows = {r.key: r for r in paired_slices(base, ids, var, ids, SLICE, seed=1)}
    easy, mid, hard = rows["easy"], rows["mid"], rows["hard"]
    assert (easy.n, mid.n, hard.n) == (5, 6, 2)
    assert easy.diff == pytest.approx(0.19)  # (0.1 + 0.2 + 0.3 + 0.4 - 0.05) / 5
    assert easy.p_value == 0.125 and mid.p_value == 2 / 64
    assert mid.p_holm == 0.0625 and easy.p_holm == 0.125
    assert hard.tested is False and hard.p_value is None and hard.p_holm is None
    assert hard.diff == 1.5 and math.isnan(hard.low)
    assert mid.low > 0  # all six differences positive
    assert set(hard.to_dict()) == {
        "slice",
        "n",
        "undefined",
        "baseline",
        "variant",
        "diff",
        "ci",
        "p_value",
        "p_holm",
        "tested",
    }


def test_paired_binary_is_mcnemar() -> None:
    # 6 cases baseline 0 -> variant 1, 1 case 1 -> 0, 3 unchanged: the signed-rank test on
    # -1/0/1 ties every |d| at one mid-rank, so it is the exact sign test, i.e. McNemar.
    base = [0] * 6 + [1] + [1, 0, 1]
    var = [1] * 6 + [0] + [1, 0, 1]
    ids = [f"k{i}" for i in range(10)]
    (row,) = paired_slices(base, ids, var, ids, dict.fromkeys(ids, "all"))
    assert row.p_value == pytest.approx(mcnemar_exact(6, 1))


def test_paired_pairs_by_case_and_counts_undefined() -> None:
    ids = ["e1", "e2", "e3", "e4", "e5"]
    base = [0.0, 0.0, 0.0, None, 0.0]
    var_ids = ["e2", "e1", "e3", "e4", "e5", "zz"]  # another order, and an unpaired case
    var = [0.2, 0.1, 0.3, 0.4, 0.5, 9.0]
    (row,) = paired_slices(base, ids, var, var_ids, SLICE, min_n=4)
    assert (row.n, row.undefined, row.tested) == (4, 1, True)
    assert row.diff == pytest.approx((0.1 + 0.2 + 0.3 + 0.5) / 4)


def test_errors() -> None:
    with pytest.raises(ValueError, match="no slice key"):
        slice_summaries([1.0], ["x"], {})
    with pytest.raises(ValueError, match="min_n"):
        slice_summaries([1.0], ["e1"], SLICE, min_n=0)
