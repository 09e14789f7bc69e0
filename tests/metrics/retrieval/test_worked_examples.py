"""The worked examples of issue 3, value for value."""

from __future__ import annotations

import pytest

from pathgrade.metrics.retrieval import evaluate, evaluate_rankings


def test_precision_recall_hit_rate_at_5() -> None:
    # Gold {A, C, D}, top-5 [B, A, E, C, F]
    result = evaluate_rankings(
        {"q": {"A": 1, "C": 1, "D": 1}},
        {"q": list("BAECF")},
        ["precision@5", "recall@5", "hit_rate@5"],
    )
    assert result["precision@5"].mean == pytest.approx(0.4)
    assert round(result["recall@5"].mean, 6) == 0.666667
    assert result["hit_rate@5"].mean == 1.0


def test_macro_micro_recall_and_mrr_over_four_queries() -> None:
    # Q1 gold 2, hits at 1 and 4; Q2 gold 1, hit at 3; Q3 gold 2, one hit at 2; Q4 gold 1, none.
    qrels = {
        "Q1": {"g1": 1, "g2": 1},
        "Q2": {"g3": 1},
        "Q3": {"g4": 1, "g5": 1},
        "Q4": {"g6": 1},
    }
    rankings = {
        "Q1": ["g1", "x1", "x2", "g2", "x3"],
        "Q2": ["x1", "x2", "g3", "x3", "x4"],
        "Q3": ["x1", "g4", "x2", "x3", "x4"],
        "Q4": ["x1", "x2", "x3", "x4", "x5"],
    }
    result = evaluate_rankings(qrels, rankings, ["recall@5", "mrr@5"])
    assert result["recall@5"].mean == pytest.approx(0.625)
    assert round(result["mrr@5"].mean, 6) == 0.458333
    assert round(result["recall@5"].micro or 0.0, 6) == 0.666667
    assert result["mrr@5"].micro is None  # no pooled form for a rank metric
    assert result["recall@5"].scored == 4


def test_ap_at_5_and_reordering() -> None:
    gold = {"q": {"A": 1, "C": 1, "D": 1}}
    good = evaluate_rankings(gold, {"q": list("ABCED")}, ["ap@5", "recall@5"])
    assert round(good["ap@5"].mean, 6) == 0.755556
    worse = evaluate_rankings(gold, {"q": list("BEACD")}, ["ap@5", "recall@5"])
    assert worse["recall@5"].mean == 1.0
    assert worse["ap@5"].mean < good["ap@5"].mean


def test_dcg_and_ndcg_at_3_exp_and_linear() -> None:
    # Gains of the top 3 [3, 1, 2], ideal [3, 2, 1].
    gold = {"q": {"a": 3, "b": 1, "c": 2}}
    result = evaluate_rankings(
        gold, {"q": ["a", "b", "c"]}, ["dcg@3", "ndcg@3", "ndcg@3(gain=linear)"]
    )
    assert round(result["dcg@3"].mean, 3) == 9.131
    assert round(result["ndcg@3"].mean, 6) == 0.972121
    assert round(result["ndcg@3(gain=linear)"].mean, 6) == 0.972504


def test_ndcg_at_2_values_of_the_issue() -> None:
    """The issue's ndcg@2 values 0.709810 (exp) and 0.796708 (linear).

    They are the nDCG@2 of a two-document ranking with gains [1, 3] against gold gains {3, 1}
    (ideal [3, 1]). Read literally ("the top 2 of [3, 1, 2]", ideal [3, 2]) the values would be
    0.858103 and 0.851959; both readings are pinned here.
    """
    two = evaluate_rankings(
        {"q": {"x": 3, "y": 1}}, {"q": ["y", "x"]}, ["ndcg@2", "ndcg@2(gain=linear)"]
    )
    assert round(two["ndcg@2"].mean, 6) == 0.709810
    assert round(two["ndcg@2(gain=linear)"].mean, 6) == 0.796708
    literal = evaluate_rankings(
        {"q": {"a": 3, "b": 1, "c": 2}}, {"q": ["a", "b", "c"]}, ["ndcg@2", "ndcg@2(gain=linear)"]
    )
    assert round(literal["ndcg@2"].mean, 6) == 0.858103
    assert round(literal["ndcg@2(gain=linear)"].mean, 6) == 0.851959


def test_scored_run_uses_scores_not_insertion_order() -> None:
    result = evaluate(
        {"q": {"A": 1, "C": 1, "D": 1}},
        {"q": {"F": 1.0, "C": 2.0, "E": 3.0, "A": 4.0, "B": 5.0}},
        ["precision@2", "mrr"],
    )
    assert result["precision@2"].mean == 0.5
    assert result["mrr"].mean == 0.5
