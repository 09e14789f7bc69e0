"""The coded (vectorised) path of ``score_runs`` gives exactly the general path's result."""

from __future__ import annotations

import math
from collections.abc import Sequence
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.core.types import RetrievedItem
from pathgrade.metrics.retrieval import (
    RankedBatch,
    RunRetrieval,
    coded,
    from_rankings,
    per_run,
    score_runs,
)
from pathgrade.metrics.retrieval.batch import Duplicates
from pathgrade.metrics.retrieval.coded import code_runs
from pathgrade.metrics.retrieval.evaluate import resolve_all

METRICS = ["precision@5", "recall@5", "hit_rate@5", "mrr@10", "ndcg@10", "ap@10", "map",
           "precision", "num_ret", "num_rel", "num_rel_ret@3", "recall@2(no_gold=zero)",
           "mrr(no_gold=unanswerable)", "dcg@3"]  # fmt: skip
IDS = [f"d{i}" for i in range(8)]


def _general(
    retrieved: Sequence[Sequence[object] | None],
    gold: Sequence[object],
    metrics: Sequence[str],
    duplicates: Duplicates = "first",
) -> RunRetrieval:
    return per_run._score_general(
        retrieved,  # type: ignore[arg-type]
        gold,  # type: ignore[arg-type]
        resolve_all(metrics),
        "list",
        duplicates,
        None,
    )


def _same_float(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return (math.isnan(a) and math.isnan(b)) or a == b


def _assert_same_batch(a: RankedBatch, b: RankedBatch) -> None:
    assert a.query_ids == b.query_ids
    for name in ("hit_pos", "hit_gain", "n_ret", "gold", "in_run"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        np.testing.assert_array_equal(x, y, err_msg=name)
    assert a.duplicates_removed == b.duplicates_removed
    assert a.not_in_gold == b.not_in_gold


def _assert_same(fast: RunRetrieval, general: RunRetrieval) -> None:
    np.testing.assert_array_equal(fast.applicable, general.applicable)
    np.testing.assert_array_equal(fast.missing_retrieved, general.missing_retrieved)
    assert list(fast.values) == list(general.values)
    for name, column in fast.values.items():
        np.testing.assert_array_equal(column, general.values[name], err_msg=name)  # nan == nan
    a, b = fast.result, general.result
    assert a.query_ids == b.query_ids
    assert a.missing_in_run == b.missing_in_run
    assert a.not_in_gold == b.not_in_gold
    assert a.duplicates_removed == b.duplicates_removed
    for x, y in zip(a.metrics, b.metrics, strict=True):
        assert x.name == y.name
        np.testing.assert_array_equal(x.values, y.values, err_msg=x.name)
        assert _same_float(x.mean, y.mean), x.name
        assert _same_float(x.micro, y.micro), x.name
        assert (x.scored, x.no_gold, x.skipped) == (y.scored, y.no_gold, y.skipped)


def _check(
    retrieved: Sequence[Sequence[object] | None],
    gold: Sequence[object],
    metrics: Sequence[str] = METRICS,
    duplicates: Duplicates = "first",
) -> RunRetrieval:
    """Score both ways; the coded path must apply and agree with the general one."""
    coded = code_runs(retrieved, gold, duplicates=duplicates)
    assert coded is not None, "the coded path should apply"
    width = len(str(len(retrieved)))
    qrels = {
        f"{i:0{width}d}": dict.fromkeys(g, 1.0)  # type: ignore[call-overload]
        for i, g in enumerate(gold)
        if g is not None
    }
    rankings = {
        f"{i:0{width}d}": [x if isinstance(x, str) else x.id for x in r]  # type: ignore[attr-defined]
        for i, r in enumerate(retrieved)
        if r is not None
    }
    _assert_same_batch(coded.batch, from_rankings(qrels, rankings, duplicates=duplicates))
    fast = score_runs(retrieved, gold, metrics, duplicates=duplicates)  # type: ignore[arg-type]
    _assert_same(fast, _general(retrieved, gold, metrics, duplicates))
    return fast


def test_hand_computed_runs() -> None:
    retrieved: list[tuple[str, ...] | None] = [
        ("a", "x", "a", "b", "x", "c"),  # duplicates: a x b c after removal; gold a, c
        ("x", "y", "z"),  # no hit
        (),  # empty ranking
        ("b", "b", "q", "b"),  # a gold id retrieved three times
        None,  # nothing retrieved, with gold
        ("a", "b"),  # gold None: not applicable, listed in not_in_gold
    ]
    gold: list[tuple[str, ...] | list[str] | None] = [
        ("a", "c", "a"),  # a gold id listed twice counts once
        ["y0"],
        ("a",),
        ("b", "c"),
        ("a",),
        None,
    ]
    scored = _check(retrieved, gold, ["precision@2", "recall@5", "mrr@10", "num_ret"])
    nan = math.nan
    np.testing.assert_array_equal(scored.values["precision@2"], [0.5, 0.0, 0.0, 0.5, 0.0, nan])
    np.testing.assert_array_equal(scored.values["recall@5"], [1.0, 0.0, 0.0, 0.5, 0.0, nan])
    np.testing.assert_array_equal(scored.values["mrr@10"], [1.0, 0.0, 0.0, 1.0, 0.0, nan])
    np.testing.assert_array_equal(scored.values["num_ret"], [4.0, 3.0, 0.0, 2.0, 0.0, nan])
    result = scored.result
    assert result.query_ids == ("0", "1", "2", "3", "4")
    assert result.duplicates_removed == 4
    assert result.missing_in_run == ("4",)
    assert result.not_in_gold == ("5",)
    assert scored.applicable.tolist() == [True] * 5 + [False]
    assert scored.missing_retrieved.tolist() == [False] * 4 + [True, False]
    assert result["recall@5"].micro == 3 / 7  # hits 2 + 0 + 0 + 1 + 0 over |G| 2+1+1+2+1
    kept = _check(retrieved, gold, ["num_ret", "precision@2"], duplicates="keep")
    np.testing.assert_array_equal(kept.values["num_ret"], [6.0, 3.0, 0.0, 4.0, 0.0, nan])
    np.testing.assert_array_equal(kept.values["precision@2"], [0.5, 0.0, 0.0, 1.0, 0.0, nan])
    assert kept.result.duplicates_removed == 0


def test_ranks_close_up_after_a_dropped_duplicate() -> None:
    batch = code_runs([("x", "x", "x", "g")], [("g",)], duplicates="first")
    assert batch is not None
    assert batch.batch.hit_pos.tolist() == [[1]]  # x, g: g is second
    assert batch.batch.n_ret.tolist() == [2]
    kept = code_runs([("x", "x", "x", "g")], [("g",)], duplicates="keep")
    assert kept is not None and kept.batch.hit_pos.tolist() == [[3]]


def test_retrieved_items_and_wide_run_numbers() -> None:
    retrieved = [("a", RetrievedItem(id="b", score=0.2), "b")] + [("c",)] * 11
    gold = [("b",)] + [None] * 10 + [("c", "d")]
    scored = _check(retrieved, gold)
    assert scored.result.query_ids == ("00", "11")
    assert scored.result.not_in_gold == tuple(f"{i:02d}" for i in range(1, 11))


@pytest.mark.parametrize(
    ("retrieved", "gold"),
    [
        ([("a", "")], [("a",)]),  # empty id: the general path's error
        ([("a",), ("",)], [("a",), None]),  # even in a run without gold
        ([["a", 3]], [("a",)]),  # not an id
        ([("a",)], [{"a": 2.0}]),  # graded gold
        ([("a",)], [("a", 1)]),  # a gold id that is not a string
        ([iter(["a"])], [("a",)]),  # not a tuple or list
        (["ab"], [("a",)]),  # a string, not a list of ids
        ([({"id": "a"},)], [("a",)]),  # mapping items
        ([("a",)], [None]),  # no run has gold
        ([], []),
    ],
)
def test_other_inputs_take_the_general_path(retrieved: list[object], gold: list[object]) -> None:
    assert code_runs(retrieved, gold, duplicates="first") is None  # type: ignore[arg-type]


def test_errors_are_the_general_paths() -> None:
    with pytest.raises(InputError, match="run 1: a retrieved item needs a non-empty string id"):
        score_runs([("a",), ("b", "")], [("a",), None], ["mrr"])
    with pytest.raises(InputError, match="no gold"):
        score_runs([("a",), ("b",)], [("a",), ()], ["mrr(no_gold=error)"])


_ID = st.sampled_from(IDS)
_RANKING = st.one_of(
    st.none(),
    st.lists(_ID, max_size=12).map(tuple),
    st.lists(_ID, max_size=12),
    st.lists(st.one_of(_ID, _ID.map(lambda i: RetrievedItem(id=i))), max_size=6).map(tuple),
)
_GOLD_ID = st.one_of(_ID, st.just(""))  # gold ids are not checked for being empty
_GOLD = st.one_of(
    st.none(), st.lists(_GOLD_ID, max_size=5).map(tuple), st.lists(_GOLD_ID, max_size=5)
)


@settings(max_examples=300, deadline=None)
@given(
    runs=st.lists(st.tuples(_RANKING, _GOLD), min_size=1, max_size=14),
    duplicates=st.sampled_from(["first", "keep"]),
    block=st.sampled_from([1, 2, 7, coded._BLOCK]),
    pooled=st.booleans(),
)
def test_coded_path_equals_general_path(
    runs: list[tuple[Sequence[object] | None, Sequence[str] | None]],
    duplicates: Duplicates,
    block: int,
    pooled: bool,
) -> None:
    retrieved = [r for r, _ in runs]
    gold = [g for _, g in runs]
    # Small blocks: many dicts, codes reused across blocks; no pool: codes from range().
    with (
        patch.object(coded, "_BLOCK", block),
        patch.object(coded, "_VALUES", coded._VALUES if pooled else ()),
    ):
        if all(g is None for g in gold):
            assert code_runs(retrieved, gold, duplicates="first") is None
            return
        _check(retrieved, gold, METRICS, duplicates)
