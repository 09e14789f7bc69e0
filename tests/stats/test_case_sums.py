"""Exact per-case sums: the same per-case means in any run order and under any partitioning."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.stats.case_sums import CaseTotals, case_sums, case_table, first_seen
from pathgrade.stats.trials import case_means

NAN = float("nan")


def test_worked_example() -> None:
    # case b: (1 + 3) / 2 = 2 (its nan run is counted in runs, not in defined);
    # case a: (2 + 4 + 6) / 3 = 4; case c: no defined run -> nan. First appearance: b, a, c.
    ids = ["b", "a", "b", "a", "c", "a", "b"]
    x = np.array([1.0, 2.0, 3.0, 4.0, NAN, 6.0, NAN])
    y = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0])  # b 1/3, a 2/3, c 1
    table = case_table(ids, {"x": x, "y": y})
    assert table.names == ("x", "y")
    assert table.codes.tolist() == [0, 1, 2]
    assert table.runs.tolist() == [3, 3, 1]
    np.testing.assert_array_equal(table.column("x")[0], [2.0, 4.0, NAN])
    assert table.column("x")[1].tolist() == [2, 3, 0]
    assert table.column("y")[0].tolist() == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_partitioning_cannot_move_the_last_bit() -> None:
    # (0.1 + 0.2) + 0.3 = 0.6000000000000001 but 0.1 + (0.2 + 0.3) = 0.6: plain sums of
    # the two partitionings differ; the exact sum is fsum = 0.6 either way.
    assert (0.1 + 0.2) + 0.3 != 0.1 + (0.2 + 0.3)
    values = np.array([0.1, 0.2, 0.3])
    codes = np.zeros(3, dtype=np.int64)
    split_late, split_early = CaseTotals(), CaseTotals()
    split_late.add(case_sums(codes[:2], {"v": values[:2]}))
    split_late.add(case_sums(codes[2:], {"v": values[2:]}))
    split_early.add(case_sums(codes[:1], {"v": values[:1]}))
    split_early.add(case_sums(codes[1:], {"v": values[1:]}))
    late, early = split_late.table([0]), split_early.table([0])
    assert late.means[0, 0] == early.means[0, 0] == math.fsum(values) / 3 == 0.6 / 3


def test_metrics_absent_from_a_batch_and_growth() -> None:
    # partition 1 has metric x only, partition 2 adds y for a case code beyond the first
    totals = CaseTotals()
    totals.add(case_sums([5, 5], {"x": np.array([1.0, 2.0])}))
    totals.add(case_sums([9, 5], {"x": np.array([4.0, 3.0]), "y": np.array([0.5, 1.0])}))
    table = totals.table([5, 9])
    assert table.names == ("x", "y")
    assert table.runs.tolist() == [3, 1]
    # case 5: x (1 + 2 + 3) / 3 = 2, y only in its third run: 1; case 9: x 4, y 0.5
    np.testing.assert_array_equal(table.means, [[2.0, 1.0], [4.0, 0.5]])
    assert table.defined.tolist() == [[3, 1], [1, 1]]


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="3 values for 2 runs"):
        case_sums([0, 1], {"x": np.zeros(3)})
    with pytest.raises(ValueError, match=">= 0"):
        case_sums([-1], {"x": np.zeros(1)})
    empty = case_table([], {"x": np.zeros(0)})
    assert empty.means.shape == (0, 1) and empty.runs.size == 0


# The documented range of exactness: 0, or magnitudes between 1e-6 and 1e3.
values_st = st.one_of(
    st.none(),
    st.floats(-1e3, 1e3).filter(lambda v: v == 0 or abs(v) >= 1e-6),
    st.floats(0, 1).filter(lambda v: v == 0 or v >= 1e-6),
    st.integers(0, 100).map(float),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 7), values_st), min_size=1, max_size=60),
    st.lists(st.integers(1, 60), max_size=6),
    st.randoms(use_true_random=False),
)
def test_exact_whatever_the_partitioning(runs: list, cuts: list[int], rnd: object) -> None:
    ids = [f"c{c}" for c, _ in runs]
    x = np.array([NAN if v is None else v for _, v in runs])
    whole = case_table(ids, {"x": x})
    # the reference: math.fsum of each case's defined values (exactly rounded), per case
    grouped: dict[str, list[float]] = {}
    for case_id, value in zip(ids, x.tolist(), strict=True):
        grouped.setdefault(case_id, [])
        if not math.isnan(value):
            grouped[case_id].append(value)
    expected = [math.fsum(v) / len(v) if v else NAN for v in grouped.values()]
    np.testing.assert_array_equal(whole.column("x")[0], expected)
    # partitions at the given cuts, added in a shuffled order, give the same table
    codes, distinct = first_seen(ids)
    bounds = sorted({0, len(runs), *(c for c in cuts if c < len(runs))})
    batches = [case_sums(codes[a:b], {"x": x[a:b]}) for a, b in itertools.pairwise(bounds)]
    rnd.shuffle(batches)  # type: ignore[attr-defined]
    totals = CaseTotals()
    for batch in batches:
        totals.add(batch)
    merged = CaseTotals()
    merged.absorb(totals)
    for table in (totals.table(range(len(distinct))), merged.table(range(len(distinct)))):
        np.testing.assert_array_equal(table.means, whole.means)
        np.testing.assert_array_equal(table.defined, whole.defined)
        np.testing.assert_array_equal(table.runs, whole.runs)
    # and, up to rounding, the per-case means of pathgrade.stats.trials.case_means
    np.testing.assert_allclose(
        whole.column("x")[0], case_means(ids, x).means, rtol=1e-12, atol=1e-8
    )
