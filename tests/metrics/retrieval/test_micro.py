"""Micro averages pool exactly the queries the macro mean averages, under every ``no_gold``.

Issue 18: queries without a relevant document were left out of the micro average even under
``no_gold=zero``. Micro is ``sum n_q / sum w_q`` over the macro's queries (see
``kernels.micro`` and docs/retrieval.md); here against hand-computed values, a naive pooled
definition written out in the test, the weighted mean of the per-query values, and the
coded (fast) path of ``score_runs``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.metrics.retrieval import evaluate, evaluate_rankings, per_run, score_runs
from pathgrade.metrics.retrieval.coded import code_runs
from pathgrade.metrics.retrieval.evaluate import resolve_all


def test_the_issues_worked_example() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"c": 0}}  # q2 has no relevant document
    run = {"q1": {"a": 2, "x": 1}, "q2": {"c": 2, "y": 1}}
    names = ["precision@1(no_gold=zero)", "hit_rate@1(no_gold=zero)", "recall@1(no_gold=zero)"]
    result = evaluate(qrels, run, [*names, "hit_rate@1"])
    # precision@1: hits 1 + 0 over K 1 + 1; hit_rate@1: queries with a hit 1 over queries 2.
    assert result["precision@1(no_gold=zero)"].micro == 0.5
    assert result["hit_rate@1(no_gold=zero)"].micro == 0.5
    assert result["precision@1(no_gold=zero)"].mean == 0.5
    assert result["hit_rate@1(no_gold=zero)"].mean == 0.5
    # recall pools gold documents: hits 1 + 0 over |G| 1 + 0 (macro: (1 + 0) / 2).
    assert result["recall@1(no_gold=zero)"].micro == 1.0
    assert result["recall@1(no_gold=zero)"].mean == 0.5
    # The default, skip: q2 is in neither average.
    assert result["hit_rate@1"].micro == result["hit_rate@1"].mean == 1.0
    assert result["hit_rate@1"].scored == 1


# q1: gold {a, b}, ranking a x b (hits@2 = 1, hits = 2, N = 3, |G| = 2).
# q2: judged but nothing relevant ({y: 0}), ranking y z (N = 2).
# q3: judged but nothing relevant, empty ranking (N = 0).
QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"y": 0}, "q3": {"c": 0}}
RANKINGS = {"q1": ["a", "x", "b"], "q2": ["y", "z"], "q3": []}
HAND = {
    # skip: q1 only.
    "skip": {"precision@2": 1 / 2, "precision": 2 / 3, "recall@2": 1 / 2, "hit_rate@2": 1.0},
    # zero: q2 and q3 add their weights, nothing to the numerators.
    # precision@2 (1+0+0)/(2+2+2); precision (2+0+0)/(3+2+0); recall@2 1/(2+0+0);
    # hit_rate@2 (1+0+0)/3.
    "zero": {"precision@2": 1 / 6, "precision": 2 / 5, "recall@2": 1 / 2, "hit_rate@2": 1 / 3},
    # unanswerable: v(q2) = 0 (it retrieved within K), v(q3) = 1 (nothing retrieved).
    # precision@2 (1+0+2*1)/(2+2+2); precision (2+0+0*1)/(3+2+0); recall@2 1/2;
    # hit_rate@2 (1+0+1)/3.
    "unanswerable": {
        "precision@2": 3 / 6,
        "precision": 2 / 5,
        "recall@2": 1 / 2,
        "hit_rate@2": 2 / 3,
    },
}


@pytest.mark.parametrize("policy", sorted(HAND))
def test_hand_computed_policies(policy: str) -> None:
    names = {metric: f"{metric}(no_gold={policy})" for metric in HAND[policy]}
    counts = ["num_ret@2", "num_rel", "num_rel_ret"]
    result = evaluate_rankings(QRELS, RANKINGS, [*names.values(), *counts])
    for metric, expected in HAND[policy].items():
        assert result[names[metric]].micro == pytest.approx(expected, abs=1e-15), metric
    expected_scored = 1 if policy == "skip" else 3
    assert all(result[n].scored == expected_scored for n in names.values())
    # Counts are always over every query: num_ret@2 2 + 2 + 0; num_rel 2 + 0 + 0; num_rel_ret 2.
    assert result["num_ret@2"].micro == 4.0
    assert result["num_rel"].micro == 2.0
    assert result["num_rel_ret"].micro == 2.0


def test_error_policy_raises_and_all_gold_is_unchanged() -> None:
    with pytest.raises(InputError, match="no gold"):
        evaluate_rankings(QRELS, RANKINGS, ["precision@2(no_gold=error)"])
    gold_only = {"q1": QRELS["q1"]}
    result = evaluate_rankings(gold_only, RANKINGS, ["precision@2(no_gold=error)", "precision@2"])
    assert result["precision@2(no_gold=error)"].micro == result["precision@2"].micro == 0.5


def test_nothing_to_pool_is_none() -> None:
    # Every query skipped; precision without K over empty rankings: the denominators are 0.
    result = evaluate_rankings(
        {"q": {"y": 0}},
        {"q": []},
        ["precision@2", "precision(no_gold=zero)", "recall(no_gold=zero)"],
    )
    assert result["precision@2"].micro is None
    assert result["precision(no_gold=zero)"].micro is None
    assert result["recall(no_gold=zero)"].micro is None
    assert result["recall(no_gold=zero)"].mean == 0.0


DOCS = [f"d{i}" for i in range(8)]
qrels_st = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", "q4", "q5"]),
    st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), max_size=5),
    min_size=1,
)
rankings_st = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", "q4", "q6"]),
    st.lists(st.sampled_from(DOCS), max_size=8, unique=True),
)


def _naive_micro(
    qrels: dict[str, dict[str, int]],
    rankings: dict[str, list[str]],
    name: str,
    k: int | None,
    t: int,
) -> float | None:
    """The pooled definition under no_gold=zero, written out: every query of the qrels."""
    hits_sum = weight_sum = 0
    for query, gold in qrels.items():
        ranking = rankings.get(query, [])
        top = ranking if k is None else ranking[:k]
        relevant = {d for d, g in gold.items() if g >= t}
        hits = sum(1 for d in top if d in relevant)
        if name == "precision":
            hits_sum += hits
            weight_sum += k if k is not None else len(ranking)
        elif name == "recall":
            hits_sum += hits
            weight_sum += len(relevant)
        else:  # hit_rate
            hits_sum += hits > 0
            weight_sum += 1
    return hits_sum / weight_sum if weight_sum else None


@settings(max_examples=200, deadline=None)
@given(
    qrels=qrels_st,
    rankings=rankings_st,
    k=st.sampled_from([None, 1, 2, 3, 5]),
    t=st.sampled_from([1, 2]),
)
def test_zero_policy_equals_the_naive_pooled_definition(
    qrels: dict[str, dict[str, int]], rankings: dict[str, list[str]], k: int | None, t: int
) -> None:
    cut = "" if k is None else f"@{k}"
    names = {m: f"{m}{cut}(no_gold=zero,rel={t})" for m in ("precision", "recall", "hit_rate")}
    result = evaluate_rankings(qrels, rankings, list(names.values()))
    for metric, name in names.items():
        assert result[name].micro == _naive_micro(qrels, rankings, metric, k, t), name
        assert result[name].scored == len(qrels)  # the macro's queries: all of them


@settings(max_examples=200, deadline=None)
@given(
    qrels=qrels_st,
    rankings=rankings_st,
    k=st.sampled_from([None, 1, 3]),
    policy=st.sampled_from(["skip", "zero", "unanswerable"]),
)
def test_micro_is_the_weighted_mean_of_the_macros_values(
    qrels: dict[str, dict[str, int]],
    rankings: dict[str, list[str]],
    k: int | None,
    policy: str,
) -> None:
    """micro = sum w_q v_q / sum w_q over the queries with a value (w: K, N_q, |G_q|, 1)."""
    cut = "" if k is None else f"@{k}"
    names = {m: f"{m}{cut}(no_gold={policy})" for m in ("precision", "recall", "hit_rate")}
    result = evaluate_rankings(qrels, rankings, list(names.values()))
    for metric, name in names.items():
        values = result[name].values
        weighted = weights = 0.0
        for i, query in enumerate(result.query_ids):
            if math.isnan(values[i]):
                continue
            n = len(rankings.get(query, []))
            w = {
                "precision": float(k) if k is not None else float(n),
                "recall": float(sum(1 for g in qrels[query].values() if g >= 1)),
                "hit_rate": 1.0,
            }[metric]
            weighted += w * values[i]
            weights += w
        expected = weighted / weights if weights else None
        got = result[name].micro
        assert (got is None) == (expected is None), name
        if got is not None:
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), name
    # hit_rate's micro is its macro mean.
    hit = result[names["hit_rate"]]
    assert hit.micro is None if hit.scored == 0 else hit.micro == pytest.approx(hit.mean)


POOLED = [
    *(
        f"{m}(no_gold={p})"
        for m in ("precision@3", "precision", "recall@2", "hit_rate@1")
        for p in ("skip", "zero", "unanswerable")
    ),
    "num_ret@2",
    "num_rel",
    "num_rel_ret@1",
]
_ID = st.sampled_from(DOCS[:5])


@settings(max_examples=200, deadline=None)
@given(
    runs=st.lists(
        st.tuples(
            st.one_of(st.none(), st.lists(_ID, max_size=6).map(tuple)),
            st.one_of(st.none(), st.lists(_ID, max_size=3).map(tuple)),  # () : no gold
        ),
        min_size=1,
        max_size=10,
    ),
)
def test_fast_path_micro_equals_plain_path(
    runs: list[tuple[Sequence[str] | None, Sequence[str] | None]],
) -> None:
    retrieved = [r for r, _ in runs]
    gold = [g for _, g in runs]
    if all(g is None for g in gold):
        return
    assert code_runs(retrieved, gold, duplicates="first") is not None
    fast = score_runs(retrieved, gold, POOLED)
    plain = per_run._score_general(retrieved, gold, resolve_all(POOLED), "list", "first", None)
    # And the same queries through evaluate_rankings (a run's gold is its query's qrels).
    width = len(str(len(runs)))
    qrels = {f"{i:0{width}d}": dict.fromkeys(g, 1.0) for i, g in enumerate(gold) if g is not None}
    rankings = {f"{i:0{width}d}": list(r) for i, r in enumerate(retrieved) if r is not None}
    reference = evaluate_rankings(qrels, rankings, POOLED)
    for name in POOLED:
        assert fast.result[name].micro == plain.result[name].micro, name
        assert fast.result[name].micro == reference[name].micro, name
        assert fast.result[name].scored == reference[name].scored, name
