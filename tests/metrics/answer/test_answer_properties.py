"""Properties of the answer metrics (hypothesis) and their documented edge cases."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathgrade.core.types import Citation, Claim, ContextUnit
from pathgrade.metrics.answer import (
    Outcome,
    abstention_report,
    citation_report,
    context_precision,
    context_recall,
    exact_match,
    faithfulness,
    normalize_answer,
    numeric_match,
    numeric_value,
    risk_coverage_curve,
    token_f1,
)

words = st.sampled_from(["the", "a", "an", "cat", "Cat", "dog", "red", "red,", "42", "!", " "])
texts = st.lists(words, max_size=8).map(" ".join)
gold_lists = st.lists(texts, min_size=1, max_size=4)


def test_squad_normalisation_and_edge_cases() -> None:
    assert normalize_answer("  The Cat, a DOG & an apple. ") == "cat dog apple"
    assert token_f1("", [""]) == 1.0  # SQuAD v2.0: both empty
    assert token_f1("the", ["cat"]) == 0.0  # only an article: no tokens on one side
    assert exact_match("x", []) is None and token_f1("x", []) is None
    assert numeric_match("x", ["no numbers"]) is None
    assert numeric_match("none here", ["12"]) == 0.0
    assert numeric_match("1,000,000", ["1e6"]) == 1.0
    assert numeric_value("-3.5 degrees") == -3.5
    with pytest.raises(ValueError, match="non-negative"):
        numeric_match("1", ["1"], abs_tol=-1)


@given(texts, gold_lists)
def test_bounds_and_em_implies_f1(prediction: str, golds: list[str]) -> None:
    em, f1 = exact_match(prediction, golds), token_f1(prediction, golds)
    assert em is not None and f1 is not None
    assert em in (0.0, 1.0) and 0.0 <= f1 <= 1.0
    assert em <= f1


@given(texts, texts)
def test_token_f1_is_symmetric(a: str, b: str) -> None:
    assert token_f1(a, [b]) == pytest.approx(token_f1(b, [a]))


@given(texts, gold_lists, st.randoms())
def test_invariant_to_order_of_gold_answers(
    prediction: str, golds: list[str], rng: random.Random
) -> None:
    shuffled = list(golds)
    rng.shuffle(shuffled)
    assert token_f1(prediction, golds) == token_f1(prediction, shuffled)
    assert exact_match(prediction, golds) == exact_match(prediction, shuffled)
    f1 = token_f1(prediction, golds)
    assert f1 is not None and f1 == max(token_f1(prediction, [g]) or 0.0 for g in golds)


@given(texts)
def test_normalisation_is_idempotent(text: str) -> None:
    once = normalize_answer(text)
    assert normalize_answer(once) == once
    assert exact_match(text, [once]) == 1.0


ids = st.lists(st.sampled_from("abcdef"), max_size=6)


@given(ids, ids)
def test_context_bounds(shown: list[str], gold: list[str]) -> None:
    p, r = context_precision(shown, gold), context_recall(shown, gold)
    assert (p is None) == (not shown) and (r is None) == (not gold)
    for value in (p, r):
        assert value is None or 0.0 <= value <= 1.0
    assert context_precision(list(reversed(shown)), gold) == p


labels = st.lists(st.sampled_from([True, False, None]), max_size=8)


@given(labels)
def test_faithfulness_bounds_and_undefined(support: list[bool | None]) -> None:
    result = faithfulness([Claim(text="c", supported=s) for s in support])
    verifiable = sum(s is not None for s in support)
    assert (result.value is None) == (verifiable == 0)
    assert result.value is None or 0.0 <= result.value <= 1.0
    assert result.supported + result.unsupported + result.unverifiable == len(support)


def test_citation_version_must_match_the_shown_one() -> None:
    context = [ContextUnit(id="doc", version_id="v2"), ContextUnit(id="bare")]
    citations = [
        Citation(chunk_id="doc", version_id="v1", claim=0, entails=True),  # stale version
        Citation(chunk_id="bare", claim=0, entails=None),  # valid, unlabelled
        Citation(chunk_id="doc", version_id="v2", claim=1, entails=True),
    ]
    claims = [Claim(text="a"), Claim(text="b"), Claim(text="c", key=False)]
    report = citation_report(citations, claims, context)
    assert report.not_shown == (0,)
    assert (report.entailing, report.judged) == (1, 2)
    assert (report.covered_key_claims, report.key_claims) == (2, 2)  # unlabelled still covers


outcomes = st.lists(
    st.builds(
        Outcome,
        answered=st.booleans(),
        answerable=st.booleans(),
        correct=st.sampled_from([True, False]),
        confidence=st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9]),
    ),
    max_size=12,
)


@given(outcomes, st.randoms())
def test_abstention_bounds_and_order_invariance(items: list[Outcome], rng: random.Random) -> None:
    items = [
        Outcome(o.answered, o.answerable, o.correct if o.answered else None, o.confidence)
        for o in items
    ]
    report = abstention_report(items)
    shuffled = list(items)
    rng.shuffle(shuffled)
    again = abstention_report(shuffled)
    assert report.metrics() == again.metrics()
    for name, value in report.metrics().items():
        if name.endswith("refusals"):
            continue
        assert value is None or 0.0 <= value <= 1.0 + 1e-12, name
    if report.selective_accuracy is not None and report.risk is not None:
        assert report.selective_accuracy + report.risk == pytest.approx(1.0)


@given(st.lists(st.booleans(), min_size=1, max_size=10))
def test_aurc_equals_geifman_mean_risk_with_distinct_confidences(correct: list[bool]) -> None:
    n = len(correct)
    items = [Outcome(True, correct=c, confidence=1.0 - i / (n + 1)) for i, c in enumerate(correct)]
    _, area = risk_coverage_curve(items)
    expected = sum(1 - sum(correct[: k + 1]) / (k + 1) for k in range(n)) / n
    assert area == pytest.approx(expected)
