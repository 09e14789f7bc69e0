"""``pathgrade.score`` runs every layer the data has labels for, and says what it skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade import Case, Run, score
from pathgrade.cli.main import main
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.tools import load_tools

DATA = Path(__file__).resolve().parent / "data" / "layers"


def _fixture() -> tuple[dict[str, Case], list[Run]]:
    cases = {c.case_id: c for c in load_cases(DATA / "cases.jsonl").items}
    return cases, load_runs(DATA / "runs.jsonl", cases).items


def test_every_layer_with_labels_is_computed() -> None:
    cases, runs = _fixture()
    result = score(cases, runs, tools=load_tools(DATA / "tools.json"))
    names = set(result.metrics)
    assert {"path_score", "schema_validity", "faithfulness", "token_f1", "recall@5"} <= names
    by_run = {r.run_id: r.metrics for r in result}
    faithful = [m["faithfulness"] for m in by_run.values() if m["faithfulness"] is not None]
    assert faithful == [0.75]  # 3 supported, 1 unsupported, 1 unverifiable
    summary = result.summary()
    assert "abstention" in summary and "tools" in summary
    assert summary["undefined"]["faithfulness"] == len(runs) - 1


def test_without_labels_layers_are_not_computed_not_zero() -> None:
    result = score([Case(case_id="a", reference=())], [Run(case_id="a")])
    summary = result.summary()
    assert "faithfulness" not in result.metrics and "recall@5" not in result.metrics
    assert set(summary["not_computed"]) >= {"retrieval", "tool_layer", "answer_layer"}


def test_retrieval_layer_from_retrieved_and_gold_evidence() -> None:
    case = Case(case_id="q", reference=(), gold_evidence=("A", "C", "D"))
    run = Run.model_validate({"case_id": "q", "retrieved": ["B", "A", "E", "C", "F"]})
    metrics = score([case], [run])[0].metrics
    assert metrics["precision@5"] == pytest.approx(0.4)
    assert metrics["recall@5"] == pytest.approx(2 / 3)
    assert metrics["hit_rate@5"] == 1.0


def test_pass_at_k_in_summary_when_runs_have_trials() -> None:
    # case a: 3 trials, 1 success; case b: 3 trials, 3 successes
    cases = [Case(case_id="a", reference=()), Case(case_id="b", reference=())]
    outcomes = {"a": [True, False, False], "b": [True, True, True]}
    runs = [
        Run(case_id=c, trial=t, success=s) for c, seq in outcomes.items() for t, s in enumerate(seq)
    ]
    summary = score(cases, runs).summary()
    assert summary["pass@k"]["1"] == pytest.approx((1 / 3 + 1) / 2)
    assert summary["pass^k"]["3"] == pytest.approx((0 + 1) / 2)
    assert summary["trials"]["min"] == 3 and summary["trials"]["cases"] == 2


def test_unanswerable_case_goal_is_to_abstain() -> None:
    case = Case(case_id="u", reference=(), answerable=False)
    abstained = Run.model_validate({"case_id": "u", "abstained": True})
    answered = Run.model_validate({"case_id": "u", "answer": "42"})
    result = score([case], [abstained, answered])
    assert [r.metrics["goal_success"] for r in result] == [True, False]


def test_cli_tools_option(capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(DATA / "cases.jsonl"), str(DATA / "runs.jsonl")]
    code = main(["score", *args, "--tools", str(DATA / "tools.json"), "--json"])
    assert code == 0
    document = json.loads(capsys.readouterr().out)
    assert "schema_validity" in document["results"][0]["metrics"]
