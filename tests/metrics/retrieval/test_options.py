"""Options of the retrieval metrics: ties, duplicates, parents, no-gold policies, thresholds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pathgrade.core.errors import InputError
from pathgrade.core.types import RetrievedItem
from pathgrade.metrics.retrieval import evaluate, evaluate_rankings, rank_order, score_runs


def test_ties_broken_by_doc_id_descending() -> None:
    assert rank_order({"a": 1.0, "c": 1.0, "b": 1.0, "z": 0.5}) == ["c", "b", "a", "z"]
    # "c" ranks first among equal scores, whatever the insertion order.
    for run in ({"a": 1.0, "c": 1.0}, {"c": 1.0, "a": 1.0}):
        result = evaluate({"q": {"c": 1}}, {"q": run}, ["mrr"])
        assert result["mrr"].mean == 1.0


def test_ties_mixed_with_unsorted_rows() -> None:
    run = {"q1": {"x": 0.1, "b": 0.5, "a": 0.5}, "q2": {"m": 0.3, "n": 0.9}}
    result = evaluate({"q1": {"a": 1}, "q2": {"m": 1}}, run, ["mrr"])
    assert result.per_query() == {"q1": {"mrr": 0.5}, "q2": {"mrr": 0.5}}


def test_duplicates_first_counted_or_kept() -> None:
    gold = {"q": {"a": 1, "b": 1}}
    first = evaluate_rankings(gold, {"q": ["a", "a", "b"]}, ["precision@2", "num_ret"])
    assert first["precision@2"].mean == 1.0
    assert first.duplicates_removed == 1
    kept = evaluate_rankings(
        gold, {"q": ["a", "a", "b"]}, ["precision@2", "num_ret"], duplicates="keep"
    )
    assert kept["precision@2"].mean == 1.0
    assert kept["num_ret"].mean == 3.0
    assert kept.duplicates_removed == 0


def test_parent_collapsing() -> None:
    gold = {"q": {"d1#0": 1, "d1#1": 2, "d2#0": 1}}
    parents = {"d1#0": "d1", "d1#1": "d1", "d2#0": "d2", "d3#0": "d3"}
    ranking = {"q": ["d1#0", "d1#1", "d3#0", "d2#0"]}
    each = evaluate_rankings(gold, ranking, ["precision@2", "recall@4"])
    assert each["precision@2"].mean == 1.0
    collapsed = evaluate_rankings(
        gold, ranking, ["precision@2", "recall@4", "dcg@1"], parent_of=parents
    )
    assert collapsed["precision@2"].mean == 0.5  # d1, d3
    assert collapsed["recall@4"].mean == 1.0  # d1 and d2 of 2 parents
    assert collapsed["dcg@1"].mean == 3.0  # parent gain = max chunk gain (2): 2**2 - 1
    assert collapsed.duplicates_removed == 1


@pytest.mark.parametrize(
    ("policy", "expected"),
    [("skip", math.nan), ("zero", 0.0), ("unanswerable", 0.0)],
)
def test_no_gold_policies(policy: str, expected: float) -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 0}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    result = evaluate(qrels, run, [f"recall@5(no_gold={policy})"])
    metric = result[f"recall@5(no_gold={policy})"]
    value = metric.values[1]
    assert (math.isnan(value) and math.isnan(expected)) or value == expected
    assert metric.no_gold == 1
    assert metric.skipped == (1 if policy == "skip" else 0)
    assert metric.mean == (1.0 if policy == "skip" else 0.5)


def test_unanswerable_rewards_an_empty_ranking() -> None:
    result = evaluate_rankings({"q": {}}, {"q": []}, ["precision@5(no_gold=unanswerable)"])
    assert result.metrics[0].mean == 1.0


def test_no_gold_error_and_undefined_alias() -> None:
    with pytest.raises(InputError, match="no gold"):
        evaluate({"q": {"a": 0}}, {"q": {"a": 1.0}}, ["map(no_gold=error)"])
    result = evaluate({"q": {"a": 0}}, {"q": {"a": 1.0}}, ["map(undefined=zero)"])
    assert result.metrics[0].values.tolist() == [0.0]


def test_missing_query_scores_zero_and_is_reported() -> None:
    result = evaluate(
        {"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}, "q9": {"z": 1.0}}, ["recall@5"]
    )
    assert result["recall@5"].values.tolist() == [1.0, 0.0]
    assert result.missing_in_run == ("q2",)
    assert result.not_in_gold == ("q9",)


def test_relevance_threshold_and_graded_dcg() -> None:
    qrels = {"q": {"a": 1, "b": 2, "c": -1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    result = evaluate(qrels, run, ["precision@2(rel=2)", "num_rel(rel=2)", "ndcg@3(gain=linear)"])
    assert result["precision@2(rel=2)"].mean == 0.5
    assert result["num_rel(rel=2)"].mean == 1.0
    ideal = 2 + 1 / math.log2(3)
    assert result["ndcg@3(gain=linear)"].mean == pytest.approx((1 + 2 / math.log2(3)) / ideal)


def test_precision_divides_by_k_even_when_fewer_retrieved() -> None:
    result = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["precision@10", "precision"])
    assert result["precision@10"].mean == 0.1  # trec_eval P_10
    assert result["precision"].mean == 1.0  # trec_eval set_P


def test_inputs_are_not_modified() -> None:
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"b": 1.0, "a": 1.0}}
    before = (repr(qrels), repr(run))
    evaluate(qrels, run, ["map", "ndcg@2"], parent_of={"a": "A"})
    assert (repr(qrels), repr(run)) == before


def test_bad_values_are_input_errors() -> None:
    with pytest.raises(InputError, match="NaN"):
        evaluate({"q": {"a": 1}}, {"q": {"a": math.nan}}, ["map"])
    with pytest.raises(InputError, match="number"):
        evaluate({"q": {"a": 1}}, {"q": {"a": "high"}}, ["map"])  # type: ignore[dict-item]
    with pytest.raises(InputError, match="requested twice"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map", "map"])
    with pytest.raises(InputError, match="takes no cut-off"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map@5"])


def test_score_runs_for_pathgrade_score() -> None:
    retrieved = [
        [RetrievedItem(id="A"), RetrievedItem(id="B", score=0.3)],
        ["x", "y"],
        None,
        [{"id": "C", "score": 1.0}],
    ]
    gold = [("A", "C"), {"y": 2.0}, ("A",), None]
    scored = score_runs(retrieved, gold, ["recall@2", "ndcg@2", "mrr"])
    assert scored.values["recall@2"].tolist()[:3] == [0.5, 1.0, 0.0]
    assert math.isnan(scored.values["recall@2"][3])  # no gold_evidence: not applicable
    assert scored.applicable.tolist() == [True, True, True, False]
    assert scored.missing_retrieved.tolist() == [False, False, True, False]
    assert scored.run_values(1)["mrr"] == 0.5
    by_score = score_runs(
        [[{"id": "a", "score": 0.1}, {"id": "b", "score": 0.9}]], [("a",)], ["mrr"], order="score"
    )
    assert by_score.values["mrr"].tolist() == [0.5]
    assert np.isnan(score_runs([["a"]], [None], ["mrr"]).values["mrr"]).all()


def test_score_runs_fast_paths_agree_with_the_general_one() -> None:
    # Tuples of bare ids (as validated runs hold them), mixed with items, and lists (the
    # general path) must score the same; bad entries are errors naming the run.
    gold = [("a", "c"), ("b",), ("a",)]
    as_tuples = [("a", "b", "c"), ("x", RetrievedItem(id="b"), "b"), ("a", "a")]
    as_lists = [list(r) for r in as_tuples]
    metrics = ["recall@2", "ndcg@3", "mrr", "precision@2"]
    fast, general = score_runs(as_tuples, gold, metrics), score_runs(as_lists, gold, metrics)
    for name in metrics:
        assert fast.values[name].tolist() == general.values[name].tolist()
    assert fast.values["recall@2"].tolist() == [0.5, 1.0, 1.0]
    with pytest.raises(InputError, match="run 1: a retrieved item needs a non-empty string id"):
        score_runs([("a",), ("b", "")], [("a",), ("b",)], ["mrr"])
    with pytest.raises(InputError, match="run 0: gain of 'a' must be a number"):
        score_runs([("a",)], [{"a": "high"}], ["mrr"])  # type: ignore[dict-item]
