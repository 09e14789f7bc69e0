"""The worked examples of the trajectory issue, reproduced exactly."""

from __future__ import annotations

import pytest

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.config import MatchingConfig

REFERENCE = ["lookup_order:A17", "refund:A17", "send_message:A17"]
RUNS = {
    "A": (REFERENCE, "Refund issued"),
    "B": (
        [
            "lookup_order:A17",
            "lookup_order:A17",
            "search_help:refund",
            "refund:A17",
            "send_message:A17",
        ],
        "Refund issued",
    ),
    "C": (["refund:A17", "lookup_order:A17", "send_message:A17"], "Refund issued"),
    "D": (["lookup_order:A17", "send_message:A17"], "Your parcel is on its way"),
}


def _case(budget: int = 4, **extra: object) -> Case:
    return Case.model_validate(
        {
            "case_id": "refund",
            "reference": REFERENCE,
            "budget": {"steps": budget},
            "gold_answer": "Refund issued",
            **extra,
        }
    )


def _runs() -> list[Run]:
    return [
        Run.model_validate({"case_id": "refund", "run_id": k, "steps": s, "answer": a})
        for k, (s, a) in RUNS.items()
    ]


def _by_run(result: object) -> dict[str, object]:
    return {r.run_id: r for r in result}  # type: ignore[attr-defined]


def test_path_scores_of_runs_a_to_d() -> None:
    results = _by_run(score([_case()], _runs()))
    assert {k: r.metrics["path_score"] for k, r in results.items()} == {
        "A": 100.0,
        "B": 70.0,
        "C": 85.0,
        "D": 60.0,
    }
    assert sorted(d.kind for d in results["B"].defects) == ["over_budget", "wasted_step"]
    assert [d.kind for d in results["C"].defects] == ["out_of_order"]
    assert sorted(d.kind for d in results["D"].defects) == ["missing_step", "out_of_order"]
    missing = next(d for d in results["D"].defects if d.kind == "missing_step")
    assert missing.reference_step == 1 and "refund:A17" in missing.detail


def test_correct_answer_but_imperfect_path_is_b_and_c() -> None:
    results = _by_run(score([_case()], _runs()))
    flagged = sorted(
        k for k, r in results.items() if r.metrics["goal_success"] and r.metrics["path_score"] < 100
    )
    assert flagged == ["B", "C"]
    assert results["D"].metrics["goal_success"] is False


def test_budget_of_five_steps_gives_b_ninety() -> None:
    results = _by_run(score([_case(budget=5)], _runs()))
    assert results["B"].metrics["path_score"] == 90.0
    assert results["B"].metrics["over_budget"] is False


def test_second_accepted_reference_makes_c_perfect() -> None:
    alternative = ["refund:A17", "lookup_order:A17", "send_message:A17"]
    results = _by_run(score([_case(references=[alternative])], _runs()))
    assert results["C"].metrics["path_score"] == 100.0
    assert results["C"].reference_index == 1
    assert results["A"].reference_index == 0
    assert results["B"].metrics["path_score"] == 70.0


MARS_GOLD = [
    {"tool": "retrieval", "arguments": {"query": "средняя температура Марса"}},
    {"tool": "calculator", "arguments": {"expression": "-63 + 273.15"}},
    {"tool": "response", "arguments": {"text": "около 210 K"}},
]
MARS_AGENT = [
    {"tool": "retrieval", "arguments": {"query": "температура Марса"}},
    {"tool": "retrieval", "arguments": {"query": "температура Марса"}},
    MARS_GOLD[1],
    MARS_GOLD[2],
]


@pytest.mark.parametrize(
    ("mode", "argument_accuracy", "composite"),
    [("exact", 0.5, 0.675), ("fuzzy", 0.75, 0.75)],
)
def test_gold_tools_example(mode: str, argument_accuracy: float, composite: float) -> None:
    case = Case.model_validate({"case_id": "mars", "reference": MARS_GOLD})
    run = Run.model_validate({"case_id": "mars", "steps": MARS_AGENT})
    config = ScoringConfig(matching=MatchingConfig(mode=mode))
    metrics = score([case], [run], config)[0].metrics
    assert metrics["tool_accuracy"] == pytest.approx(0.75)
    assert metrics["step_order_accuracy"] == pytest.approx(0.75)
    assert metrics["path_efficiency"] == pytest.approx(0.75)
    assert metrics["argument_accuracy"] == pytest.approx(argument_accuracy)
    assert metrics["composite"] == pytest.approx(composite)


def test_gold_tools_alignment_labels_the_repeat_as_the_extra() -> None:
    case = Case.model_validate({"case_id": "mars", "reference": MARS_GOLD})
    run = Run.model_validate({"case_id": "mars", "steps": MARS_AGENT})
    config = ScoringConfig(matching=MatchingConfig(mode="fuzzy"))
    alignment = score([case], [run], config)[0].alignment
    assert [(a.op, a.agent_step, a.reference_step) for a in alignment] == [
        ("match", 0, 0),
        ("insertion", 1, None),
        ("match", 2, 1),
        ("match", 3, 2),
    ]
