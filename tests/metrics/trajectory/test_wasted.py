"""Wasted steps as the lesson defines them: a step that repeats an earlier step.

Of ``n`` identical calls at most ``n - 1`` are wasted; the first copy is wasted only when it
is a premature copy of a later call that the reference counts (issue 18).
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.config import MatchingConfig

from .helpers import one


def _wasted(result: object) -> list[tuple[int | None, str]]:
    return [(d.agent_step, d.detail) for d in result.defects if d.kind == "wasted_step"]  # type: ignore[attr-defined]


def test_issue_example_first_copy_repeats_nothing() -> None:
    # Reference [search:x]; lookup:A is made three times, matched never: two repeats, so two
    # wasted steps (agent steps 4 and 5); the first lookup:A (step 2) is a plain extra.
    result = one(
        ["search:x"],
        ["search:x", "refund:A", "lookup:A", "lookup:B", "lookup:A", "lookup:A"],
    )
    assert _wasted(result) == [
        (4, "lookup:A repeats an earlier call"),
        (5, "lookup:A repeats an earlier call"),
    ]
    assert result.metrics["redundant_steps"] == 2
    # 100 - 2 * 10 (no missing step, in order, no budget).
    assert result.metrics["path_score"] == 80


def test_mars_temp_under_exact_matching() -> None:
    # The bundled mars-temp run F: retrieval(query='temperature of Mars') twice, against a
    # reference retrieval(query='mean temperature of Mars'). Under exact matching neither
    # copy matches; only the second repeats the first: 1 wasted step, not 2.
    case = Case.model_validate(
        {
            "case_id": "mars-temp",
            "reference": [
                {"tool": "retrieval", "arguments": {"query": "mean temperature of Mars"}},
                {"tool": "calculator", "arguments": {"expression": "-63 + 273.15"}},
                {"tool": "response", "arguments": {"text": "about 210 K"}},
            ],
        }
    )
    run = Run.model_validate(
        {
            "case_id": "mars-temp",
            "steps": [
                {"tool": "retrieval", "arguments": {"query": "temperature of Mars"}},
                {"tool": "retrieval", "arguments": {"query": "temperature of Mars"}},
                {"tool": "calculator", "arguments": {"expression": "-63 + 273.15"}},
                {"tool": "response", "arguments": {"text": "about 210 K"}},
            ],
        }
    )
    result = score([case], [run], ScoringConfig(matching=MatchingConfig(mode="exact")))[0]
    assert [step for step, _ in _wasted(result)] == [1]
    # 100 - 25 (retrieval reference step missing) - 10 (one wasted) - 15 (out of order:
    # calculator ran although retrieval, which it depends on, never did) = 50.
    assert result.metrics["path_score"] == 50


def test_premature_copy_is_the_wasted_one_and_says_so() -> None:
    # [report, logs, metrics, report] against [logs, metrics, report]: the last report is the
    # matched one, so the first (premature) copy is the wasted one, and it is out of order.
    result = one(["logs", "metrics", "report"], ["report", "logs", "metrics", "report"])
    assert _wasted(result) == [(0, "report is repeated later, where the reference counts it")]
    assert result.metrics["out_of_order"] is True
    # 100 - 10 (wasted) - 15 (out of order) = 75.
    assert result.metrics["path_score"] == 75


def test_retry_after_failure_is_not_waste() -> None:
    steps = [{"tool": "lookup", "arguments": ["A"], "error": "timeout"}, "lookup:A"]
    assert _wasted(one(["lookup:A"], steps)) == []


CALLS = ["a:1", "a:2", "b:1", "c:1"]


@settings(max_examples=300, deadline=None)
@given(
    reference=st.lists(st.sampled_from(CALLS), max_size=4),
    steps=st.lists(st.sampled_from(CALLS), max_size=9),
    order=st.sampled_from(["total", "none"]),
)
def test_at_most_n_minus_one_of_n_identical_calls_are_wasted(
    reference: list[str], steps: list[str], order: str
) -> None:
    result = one(reference, steps, order=order)
    wasted = Counter(steps[d.agent_step] for d in result.defects if d.kind == "wasted_step")
    made = Counter(steps)
    for call, count in wasted.items():
        assert count <= made[call] - 1
    # Every wasted step is truly a repeat: another identical call exists in the path.
    assert sum(wasted.values()) <= sum(n - 1 for n in made.values())
    assert result.metrics["redundant_steps"] == sum(wasted.values())
    for step, detail in _wasted(result):
        assert step is not None
        earlier = steps[step] in steps[:step]
        assert detail.endswith("repeats an earlier call") == earlier
