"""The conversation model (docs/conversations.md): a run's turns become its path, a case's
user goal is checked, and a single-turn run is exactly what it was."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from pathgrade.core.types import Case, Run, Step, Turn, UserGoal


def test_turns_make_the_path_and_the_answer() -> None:
    run = Run.model_validate(
        {
            "case_id": "c",
            "turns": [
                {"user": "refund please", "reply": "Which order?"},
                {"user": "W1", "steps": ["get_order:W1", "refund:W1"], "reply": "Refunded."},
            ],
        }
    )
    assert [s.tool for s in run.steps] == ["get_order", "refund"]
    assert run.answer == "Refunded."
    assert len(run.turns or ()) == 2


def test_given_steps_must_equal_the_turns() -> None:
    same = {"case_id": "c", "steps": ["a"], "turns": [{"user": "x", "steps": ["a"]}]}
    assert [s.tool for s in Run.model_validate(same).steps] == ["a"]
    with pytest.raises(ValidationError, match="differ from the turns"):
        Run.model_validate({**same, "steps": ["b"]})


@pytest.mark.parametrize(
    ("turns", "message"),
    [([], "at least one turn"), ([{"user": " "}], "user's message"), ([{"steps": []}], "user")],
)
def test_bad_turns_are_refused(turns: list[object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Run.model_validate({"case_id": "c", "turns": turns})


def test_a_run_without_turns_is_unchanged() -> None:
    run = Run.model_validate({"case_id": "c", "steps": ["a"], "answer": "x"})
    assert run.turns is None and run.answer == "x"
    assert "turns" not in run.model_dump(exclude_defaults=True)


def test_user_goal_names_only_its_facts() -> None:
    goal = UserGoal(instructions="x", facts={"order_id": "W1", "zip": "1"})
    assert goal.guarded_facts() == ("order_id", "zip")
    assert goal.terms("order_id") == ("order id",)
    with pytest.raises(ValidationError, match="not one of the user's facts"):
        UserGoal.model_validate({"instructions": "x", "facts": {}, "ask_once": ["zip"]})
    with pytest.raises(ValidationError, match="non-empty term"):
        UserGoal.model_validate(
            {"instructions": "x", "facts": {"zip": "1"}, "ask_terms": {"zip": [" "]}}
        )


def test_turn_references_take_the_grammar() -> None:
    case = Case.model_validate(
        {
            "case_id": "c",
            "user": {"instructions": "x"},
            "turn_references": [[], [{"tool": "a", "optional": True}, "b"]],
        }
    )
    assert case.turn_references is not None
    assert case.turn_references[1][0].optional and case.turn_references[0] == ()


@given(st.lists(st.lists(st.sampled_from(["a", "b:1", "c:x"]), max_size=3), min_size=1))
def test_the_path_is_the_turns_in_order(paths: list[list[str]]) -> None:
    turns = [Turn.model_validate({"user": "u", "steps": p}) for p in paths]
    run = Run(case_id="c", turns=tuple(turns))
    assert run.steps == tuple(Step.model_validate(s) for p in paths for s in p)
