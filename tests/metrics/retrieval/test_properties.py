"""Hypothesis properties of the retrieval kernels, and agreement with a plain reference."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.metrics.retrieval import evaluate, evaluate_rankings, rank_order

DOCS = [f"d{i}" for i in range(12)]
BOUNDED = ["precision@3", "recall@3", "hit_rate@3", "mrr@3", "ap@3", "ap@3(denominator=gold)",
           "map", "ndcg@3", "ndcg(gain=linear)", "precision", "recall", "mrr"]  # fmt: skip

qrels_st = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", "q4"]),
    st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), max_size=6),
    min_size=1,
)
run_st = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", "q5"]),
    st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.0, 0.5, 1.0, 2.0, -3.0]), max_size=8),
)


def reference(gold: dict[str, int], ranking: list[str], k: int) -> dict[str, float]:
    """Textbook definitions, one query at a time (rel >= 1, exp gain)."""
    rel = [gold.get(d, 0) >= 1 for d in ranking]
    n_rel = sum(g >= 1 for g in gold.values())
    top = rel[:k]
    precisions = [sum(rel[: i + 1]) / (i + 1) for i in range(len(rel)) if rel[i]]
    ap_k = sum(p for i, p in zip([i for i in range(len(rel)) if rel[i]], precisions, strict=True)
               if i < k)  # fmt: skip
    gains = [max(gold.get(d, 0), 0) for d in ranking]

    def dcg(values: list[int]) -> float:
        return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(values))

    ideal = dcg(sorted((g for g in gold.values() if g > 0), reverse=True)[:k])
    first = next((i for i, r in enumerate(rel) if r), None)
    return {
        f"precision@{k}": sum(top) / k,
        f"recall@{k}": sum(top) / n_rel,
        f"hit_rate@{k}": float(any(top)),
        f"mrr@{k}": 0.0 if first is None or first >= k else 1 / (first + 1),
        f"ap@{k}": ap_k / min(n_rel, k),
        "map": sum(precisions) / n_rel,
        f"ndcg@{k}": dcg(gains[:k]) / ideal if ideal > 0 else 0.0,
    }


@settings(max_examples=150, deadline=None)
@given(qrels_st, run_st)
def test_matches_reference_and_bounds(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> None:
    result = evaluate(qrels, run, [*BOUNDED, "dcg@3"])
    per_query = result.per_query()
    for metric in result:
        if metric.name in BOUNDED:
            for value in metric.values.tolist():
                assert math.isnan(value) or 0.0 <= value <= 1.0 + 1e-12
    for q, gold in qrels.items():
        if not any(g >= 1 for g in gold.values()):
            assert math.isnan(per_query[q]["map"])  # no gold: skipped by default
            continue
        want = reference(gold, rank_order(run.get(q, {})), 3)
        for name, value in want.items():
            assert math.isclose(per_query[q][name], value, abs_tol=1e-12), (q, name)


@settings(max_examples=100, deadline=None)
@given(qrels_st, run_st, st.randoms(use_true_random=False))
def test_invariant_to_query_and_dict_order(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], rnd: random.Random
) -> None:
    def shuffled(mapping: dict[str, dict[str, float]] | dict[str, dict[str, int]]) -> dict:  # type: ignore[type-arg]
        outer = list(mapping.items())
        rnd.shuffle(outer)
        out = {}
        for key, inner in outer:
            items = list(inner.items())
            rnd.shuffle(items)
            out[key] = dict(items)
        return out

    a = evaluate(qrels, run, BOUNDED).per_query()
    b = evaluate(shuffled(qrels), shuffled(run), BOUNDED).per_query()
    assert a.keys() == b.keys()
    for q in a:
        for name in a[q]:
            x, y = a[q][name], b[q][name]
            assert (math.isnan(x) and math.isnan(y)) or x == y


@settings(max_examples=100, deadline=None)
@given(qrels_st, run_st)
def test_scored_run_equals_its_rank_order(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> None:
    scored = evaluate(qrels, run, BOUNDED).per_query()
    ranked = evaluate_rankings(qrels, {q: rank_order(d) for q, d in run.items()}, BOUNDED)
    assert repr(scored) == repr(ranked.per_query())


@settings(max_examples=60, deadline=None)
@given(qrels_st, run_st)
def test_adding_a_query_does_not_change_the_others(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> None:
    base = evaluate(qrels, run, BOUNDED).per_query()
    bigger_q = {**qrels, "zz": {f"x{i}": 1 for i in range(40)}}
    bigger_r = {**run, "zz": {f"x{i}": float(i) for i in range(60)}}
    more = evaluate(bigger_q, bigger_r, BOUNDED).per_query()
    assert repr({q: more[q] for q in base}) == repr(base)
