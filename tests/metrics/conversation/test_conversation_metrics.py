"""The conversation metrics, pinned on hand-built transcripts (docs/conversations.md)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathgrade import score
from pathgrade.core.config import ScoringConfig
from pathgrade.core.types import Case, Run
from pathgrade.metrics import catalogue
from pathgrade.metrics.conversation.definition import (
    CONVERSATION_METRICS,
    conversation_score,
    reasks,
)
from pathgrade.metrics.conversation.turns import TURN_PATH_METRICS, score_conversations

GOAL: dict[str, Any] = {
    "instructions": "Cancel order W123 and get the refund to the card.",
    "facts": {"order_id": "W123", "zip_code": "10001"},
    "ask_terms": {"zip_code": ["zip code", "postal code"]},
    "required_info": ["refund of $40"],
}


def _case(**extra: Any) -> Case:
    return Case.model_validate({"case_id": "c", "user": GOAL, **extra})


def _run(*turns: dict[str, Any], **extra: Any) -> Run:
    return Run.model_validate({"case_id": "c", "turns": list(turns), **extra})


def test_reasking_a_given_fact_is_counted_by_turn() -> None:
    # Turn 1 asks for the order id before it was given: not a re-ask. The user gives it in
    # turn 2, and the agent asks for it again in turn 2's and turn 3's replies: two re-asks.
    # The zip code is asked for ("postal code?") in turn 3 but never given: not a re-ask.
    run = _run(
        {"user": "I want to cancel an order", "reply": "Sure. What is the order ID?"},
        {"user": "It is w123.", "reply": "Thanks! Could you confirm the order id?"},
        {"user": "W123, as I said", "reply": "What is your order ID? And your postal code?"},
    )
    found = reasks(_case().user, run.turns or ())  # type: ignore[arg-type]
    assert found == [(2, "order_id", 2), (3, "order_id", 2)]
    result = conversation_score(_case(), run, None)
    assert result.metrics["reasked_facts"] == 2
    assert result.notes[2] == ["asked again for order_id, given in turn 2"]


def test_asking_needs_a_question_and_whole_words() -> None:
    run = _run(
        {"user": "order W123", "reply": "Your order id is W123."},  # no question mark
        {"user": "ok", "reply": "Any border idea?"},  # "order id" not as whole words
    )
    assert conversation_score(_case(), run, None).metrics["reasked_facts"] == 0


def test_ask_once_limits_the_guarded_facts() -> None:
    case = _case(user={**GOAL, "ask_once": ["zip_code"]})
    run = _run({"user": "W123", "reply": "What is the order id?"})
    assert conversation_score(case, run, None).metrics["reasked_facts"] == 0


def test_premature_end() -> None:
    # The agent ends after two turns without saying the refund amount: premature.
    ended = _run(
        {"user": "cancel W123", "steps": ["cancel:W123"], "reply": "Cancelled."},
        {"user": "and the refund?", "reply": "Goodbye.", "ended_by": "agent"},
    )
    metrics = conversation_score(_case(), ended, None).metrics
    assert metrics["user_outcome"] == 0 and metrics["premature_end"] == 1
    assert metrics["turns_to_success"] is None and metrics["turns"] == 2
    # The same end after telling the user: a success in 1 turn, not premature.
    told = _run({"user": "cancel W123", "reply": "Done: a REFUND of  $40.", "ended_by": "agent"})
    metrics = conversation_score(_case(), told, None).metrics
    assert metrics["user_outcome"] == 1 and metrics["premature_end"] == 0
    assert metrics["turns_to_success"] == 1
    # The user stopped: not the agent's premature end, whatever the outcome.
    stopped = _run({"user": "cancel W123", "reply": "Hm.", "ended_by": "user"})
    assert conversation_score(_case(), stopped, None).metrics["premature_end"] == 0
    # Nothing records who ended it: undefined.
    silent = _run({"user": "cancel W123", "reply": "Hm."})
    assert conversation_score(_case(), silent, None).metrics["premature_end"] is None


@pytest.mark.parametrize(
    ("escalate", "tools", "expected", "note_turn"),
    [
        (True, [[], ["transfer_to_human_agents"]], 1.0, None),
        (True, [[], []], 0.0, 2),  # should have handed off: the note is on the last turn
        (False, [["transfer_to_human_agents"], []], 0.0, 1),  # wrong hand-off, in turn 1
        (False, [[], []], 1.0, None),
        (None, [["transfer_to_human_agents"], []], None, None),
    ],
)
def test_escalation(
    escalate: bool | None, tools: list[list[str]], expected: float | None, note_turn: int | None
) -> None:
    case = _case(user={**GOAL, "escalate": escalate})
    run = _run(*({"user": "help", "steps": steps, "reply": "ok"} for steps in tools))
    result = conversation_score(case, run, None)
    assert result.metrics["escalation_correct"] == expected
    if note_turn is not None:
        assert any("hand" in note for note in result.notes[note_turn])


def test_tool_errors_and_recovery() -> None:
    failed = {"tool": "lookup", "arguments": {"id": "W123"}, "error": "timeout"}
    ok = {"tool": "lookup", "arguments": {"id": "W123"}}
    recovered = _run(
        {"user": "a", "reply": "x"},
        {"user": "b", "steps": [failed, "other"], "reply": "retrying"},
        {"user": "c", "steps": ["other", ok], "reply": "done"},
    )
    metrics = conversation_score(_case(), recovered, None).metrics
    assert (metrics["first_error_turn"], metrics["error_recovered"]) == (2, 1)
    assert metrics["turns_to_recovery"] == 1
    same_turn = _run({"user": "a", "steps": [failed, ok]})
    assert conversation_score(_case(), same_turn, None).metrics["turns_to_recovery"] == 0
    lost = _run({"user": "a", "steps": [ok, failed]}, {"user": "b"})
    result = conversation_score(_case(), lost, None)
    assert result.metrics["error_recovered"] == 0 and result.metrics["turns_to_recovery"] is None
    assert result.notes[1] == ["lookup failed and was never called again"]
    clean = conversation_score(_case(), _run({"user": "a", "steps": [ok]}), None).metrics
    assert clean["first_error_turn"] is None and clean["error_recovered"] is None


def test_success_falls_back_to_goal_success() -> None:
    case = Case.model_validate({"case_id": "c", "user": {"instructions": "x"}})
    run = _run({"user": "a"}, {"user": "b"})
    assert conversation_score(case, run, 1.0).metrics["conversation_success"] == 1.0
    assert conversation_score(case, run, 1.0).metrics["turns_to_success"] == 2
    assert conversation_score(case, run, None).metrics["conversation_success"] is None


def test_end_state_is_part_of_the_user_outcome() -> None:
    case = _case(user={**GOAL, "required_info": []}, expected_state={"W123": "cancelled"})
    good = _run({"user": "a"}, final_state={"W123": "cancelled"})
    bad = _run({"user": "a"}, final_state={"W123": "pending"})
    assert conversation_score(case, good, None).metrics["user_outcome"] == 1
    assert conversation_score(case, bad, None).metrics["user_outcome"] == 0


def test_per_turn_paths_by_hand() -> None:
    # Turn 1 matches; turn 2 misses refund:W123 (a missing step of 25 points: 75); turn 3
    # exists only in the run (the empty reference): its one extra read-only call costs no
    # points (path_score's convention: only repeats and writes of extra steps do), so 100.
    case = _case(turn_references=[["get_order:W123"], ["refund:W123"]])
    run = _run(
        {"user": "W123", "steps": ["get_order:W123"]},
        {"user": "refund", "steps": ["get_order:W123"]},
        {"user": "bye", "steps": ["log"]},
    )
    scored = score_conversations({"c": case}, [run], ScoringConfig(), np.array([math.nan]), [0])
    entry = scored.details[0]
    points = [row["path_score"] for row in entry["turns"]]
    assert points == [100.0, 75.0, 100.0]
    assert scored.values["turn_path_score"][0] == pytest.approx(275 / 3)
    assert scored.values["turns_on_path"][0] == pytest.approx(2 / 3)
    assert scored.values["first_off_path_turn"][0] == 2
    assert [d["kind"] for d in entry["turns"][1]["defects"]] == ["missing_step"]


def test_a_missing_turn_scores_its_reference_against_no_calls() -> None:
    case = _case(turn_references=[[], ["refund:W123"]])
    run = _run({"user": "W123"})
    scored = score_conversations({"c": case}, [run], ScoringConfig(), np.array([math.nan]), [0])
    rows = scored.details[0]["turns"]
    assert [r["turn"] for r in rows] == [1, 2] and rows[1]["user"] is None
    assert rows[0]["path_score"] == 100.0 and rows[1]["path_score"] < 100.0


def test_score_emits_the_layer_and_single_turn_runs_are_unchanged() -> None:
    plain_case = Case.model_validate({"case_id": "p", "reference": ["a"]})
    plain = Run.model_validate({"case_id": "p", "steps": ["a"]})
    alone = score([plain_case], [plain])
    assert not set(CONVERSATION_METRICS) & set(alone.metrics)
    assert "conversation" in alone.summary_extra["not_computed"]
    assert alone[0].conversation is None
    case = _case(reference=["get_order:W123"], turn_references=[["get_order:W123"]])
    run = _run({"user": "W123", "steps": ["get_order:W123"], "reply": "a refund of $40"})
    both = score([plain_case, case], [plain, run])
    assert math.isnan(both.metrics["turns"][0]) and both.metrics["turns"][1] == 1
    assert both.metrics["user_outcome"][1] == 1 and both.metrics["turn_path_score"][1] == 100
    assert both[1].conversation is not None and both[0].conversation is None
    record = both[1].to_dict()
    assert record["conversation"]["turns"][0]["calls"] == ["get_order:W123"]
    for name in (*CONVERSATION_METRICS, *TURN_PATH_METRICS):
        row = catalogue.find(name)
        assert row is not None and row.layer == "conversation"


_TEXT = st.text(alphabet="abW123 ?.", max_size=12)


@given(
    st.lists(st.tuples(_TEXT, st.one_of(st.none(), _TEXT)), min_size=1, max_size=6),
)
def test_reasks_properties(turns: list[tuple[str, str | None]]) -> None:
    run = _run(*({"user": "u" + user, "reply": reply} for user, reply in turns))
    found = reasks(_case().user, run.turns or ())  # type: ignore[arg-type]
    for number, _fact, given_in in found:
        assert given_in <= number  # never before the fact was given
        assert "?" in (turns[number - 1][1] or "")
    # Re-asks are counted once per (turn, fact).
    assert len(found) == len({(n, f) for n, f, _ in found})
    metrics = conversation_score(_case(), run, None).metrics
    for name, value in metrics.items():
        row = catalogue.find(name)
        assert row is not None
        assert value is None or row.lo <= value <= row.hi
