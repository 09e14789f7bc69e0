"""The worked examples of issue 5 for the answer layer, on tests/data/layers."""

from __future__ import annotations

import pytest

from pathgrade.core.types import Case, Run
from pathgrade.metrics.answer import abstention_layer, answer_layer


def by_run(runs: list[Run], run_id: str) -> Run:
    return next(run for run in runs if run.run_id == run_id)


def test_exact_match_token_f1_numeric(layer_cases: dict[str, Case], layer_runs: list[Run]) -> None:
    r1 = answer_layer(layer_cases["c1"], by_run(layer_runs, "r1"))
    assert {k: r1.metrics[k] for k in ("exact_match", "token_f1", "numeric_match")} == {
        "exact_match": 1.0,
        "token_f1": 1.0,
        "numeric_match": 1.0,
    }
    assert r1.not_computed["context_precision"] == "case has no gold_evidence"
    assert r1.not_computed["faithfulness"] == "run has no claims"
    assert r1.not_computed["citation_precision"] == "run has no citations"
    assert r1.not_computed["rubric"] == "run has no rubric scores"


def test_context_faithfulness_and_citations(
    layer_cases: dict[str, Case], layer_runs: list[Run]
) -> None:
    r2 = answer_layer(layer_cases["c2"], by_run(layer_runs, "r2"))
    assert r2.metrics == {
        "exact_match": 0.0,
        "token_f1": pytest.approx(2 / 3),  # 4 shared tokens of 7 predicted and 5 gold
        "numeric_match": 1.0,  # 0.1 and 0.1 (the last number of each)
        "context_precision": 0.5,  # runbook-7 of {runbook-7, dash-2}
        "context_recall": 0.5,  # runbook-7 of {runbook-7, log-9}: log-9 was never shown
        "faithfulness": 0.75,  # 3 supported / (3 + 1); the unverifiable claim is excluded
        "claims_supported": 3,
        "claims_unsupported": 1,
        "claims_unverifiable": 1,
        "citation_precision": pytest.approx(1 / 3),  # one entails; one does not; one unshown
        "citations_not_shown": 1,
        "citation_recall": 0.25,  # key claims 0-3; only claim 0 has a valid entailing citation
    }
    assert r2.citations_not_shown == (2,)
    assert r2.not_computed == {"rubric": "run has no rubric scores"}


def test_rubric_dimensions_kept_separate(
    layer_cases: dict[str, Case], layer_runs: list[Run]
) -> None:
    r3 = answer_layer(layer_cases["c3"], by_run(layer_runs, "r3"))
    assert {k: v for k, v in r3.metrics.items() if k.startswith("rubric.")} == {
        "rubric.action": 0.0,
        "rubric.evidence": 0.5,
        "rubric.root_cause": 1.0,
    }
    assert r3.labels == {"rubric.impact": "partial", "rubric.uncertainty": "stated"}
    assert r3.not_computed["exact_match"] == "case has no gold_answer"


def test_abstained_and_unanswerable_runs_are_not_scored_as_zero(
    layer_cases: dict[str, Case], layer_runs: list[Run]
) -> None:
    r4 = answer_layer(layer_cases["c4"], by_run(layer_runs, "r4"))
    assert r4.metrics == {}
    assert r4.not_computed["exact_match"] == "run abstained"
    r5 = answer_layer(layer_cases["c5"], by_run(layer_runs, "r5"))
    assert r5.metrics == {}
    assert r5.not_computed["token_f1"] == "case has no gold_answer"


def test_abstention_on_the_fixture(layer_cases: dict[str, Case], layer_runs: list[Run]) -> None:
    report = abstention_layer(layer_cases, layer_runs)
    # r1 right, r2 wrong, r3 unjudged (no gold), r4 abstained (answerable), r5 answered an
    # unanswerable case (wrong).
    assert (report.runs, report.answered, report.judged, report.correct) == (5, 4, 3, 1)
    assert report.unjudged == 1
    assert report.coverage == 0.8
    assert report.selective_accuracy == pytest.approx(1 / 3)
    assert report.risk == pytest.approx(2 / 3)
    assert (report.unnecessary_refusals, report.correct_refusals) == (1, 0)
    assert report.unnecessary_refusal_rate == 0.25
    assert report.correct_refusal_rate == 0.0
    assert report.curve is not None
    assert [(p.threshold, p.coverage, p.risk) for p in report.curve] == [
        (0.9, 0.2, 0.0),
        (0.8, 0.4, 0.5),
        (0.6, 0.6, pytest.approx(2 / 3)),
    ]
    assert report.aurc == pytest.approx(7 / 18)


def test_ten_cases_eight_answered_six_correct() -> None:
    cases = {f"q{i}": Case(case_id=f"q{i}", gold_answer=f"answer {i}") for i in range(8)}
    cases["q8"] = Case(case_id="q8", answerable=False)
    cases["q9"] = Case(case_id="q9", gold_answer="answer 9")
    confidence = [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.95, 0.6]
    runs = [
        Run(case_id=f"q{i}", answer=f"answer {i}" if i < 6 else "wrong", confidence=confidence[i])
        for i in range(8)
    ]
    runs += [Run(case_id="q8", abstained=True), Run(case_id="q9", abstained=True)]
    report = abstention_layer(cases, runs)
    assert report.coverage == 0.8
    assert report.selective_accuracy == 0.75
    assert report.risk == 0.25
    assert (report.unnecessary_refusals, report.correct_refusals) == (1, 1)
    assert (report.unnecessary_refusal_rate, report.correct_refusal_rate) == (1 / 9, 1.0)
    risks = [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 6, 1 / 7, 2 / 8]  # q6 (wrong) is most confident
    assert report.curve is not None and [p.risk for p in report.curve] == pytest.approx(risks)
    assert report.curve[-1].coverage == 0.8
    assert report.aurc == pytest.approx(sum(risks) / 8)
    metrics = report.metrics()
    assert metrics["coverage"] == 0.8 and metrics["aurc"] == report.aurc
    # an explicit verdict per run (e.g. the trajectory layer's goal_success) wins
    flipped = abstention_layer(cases, runs, correct=[True] * 8 + [None, None])
    assert flipped.selective_accuracy == 1.0


def test_curve_not_computed_without_confidence() -> None:
    cases = {"a": Case(case_id="a", gold_answer="x")}
    report = abstention_layer(cases, [Run(case_id="a", answer="x")])
    assert report.curve is None and report.aurc is None
    assert report.not_computed == {"aurc": "a judged answering run has no confidence"}
    assert report.coverage == 1.0 and report.selective_accuracy == 1.0
