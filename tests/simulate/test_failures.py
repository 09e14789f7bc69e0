"""Failures are recorded and counted, never raised: a raising agent, a reply that is not a
message, a crashing user, a user that gives no first message, a hung agent (timeout)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from pathgrade.core.conversation import UserGoal
from pathgrade.simulate import Failure, Said, UserError, simulate

from . import toy_agents
from .conftest import case


def test_an_agent_that_raises_ends_its_conversation_with_the_error() -> None:
    (run,) = simulate([case(script=("a", "b", "c"))], toy_agents.raiser)
    assert run.turns is not None and len(run.turns) == 2
    assert run.turns[0].reply == "first answer" and run.turns[0].error is None
    last = run.turns[1]
    assert (last.ended_by, last.reply) == ("error", None)
    assert last.error == run.metadata["error"] == "agent raised ValueError: the agent broke"
    assert run.metadata["simulator"]["outcome"] == "failed"


@pytest.mark.parametrize(
    ("returned", "error"),
    [
        (42, "agent returned 42, not a message"),
        (None, "agent returned None, not a message"),
        ({"text": "hi"}, "agent returned {'text': 'hi'}, not a message"),
        ({"reply": "hi", "stop": True}, "agent returned unknown key 'stop', not a message"),
        ({"reply": "hi", "end": "yes"}, "agent returned end='yes', not true or false"),
        ({"reply": "hi", "usage": {"tokens": "many"}}, "agent returned usage {'tokens': 'many'}"),
    ],
)
def test_a_reply_that_is_not_a_message_is_the_runs_error(returned: Any, error: str) -> None:
    (run,) = simulate([case()], lambda messages, tools: returned)
    assert run.turns is not None and len(run.turns) == 1
    assert run.turns[0].error == run.metadata["error"] == error
    assert run.turns[0].ended_by == "error"


def test_one_failed_conversation_does_not_stop_the_others() -> None:
    def agent(messages: list[dict[str, Any]], tools: Any) -> Any:
        return 42 if "bad" in messages[0]["content"] else "fine"

    cases = [case("a", script=("good",)), case("b", script=("bad",)), case("c", script=("ok",))]
    runs = simulate(cases, agent, concurrency=2)
    assert [r.metadata["simulator"]["outcome"] for r in runs] == ["finished", "failed", "finished"]


class _User:
    """A user that says ``lines`` in order; an exception instance in it is raised instead."""

    def __init__(self, *lines: str | BaseException) -> None:
        self.lines = lines

    def speak(self, goal: UserGoal, messages: Sequence[Mapping[str, Any]]) -> Said:
        line = self.lines[sum(1 for m in messages if m["role"] == "user")]
        if isinstance(line, BaseException):
            raise line
        return Said(line)

    def describe(self) -> dict[str, Any]:
        return {"kind": "test"}


def test_a_user_that_crashes_is_recorded_on_the_last_turn() -> None:
    user = _User("hello", RuntimeError("user bug"))
    (run,) = simulate([case()], toy_agents.shop, user)
    assert run.turns is not None and len(run.turns) == 1
    assert run.turns[0].reply is not None  # the turn itself had finished
    assert run.turns[0].ended_by == "error"
    assert run.metadata["error"] == "crashed: RuntimeError: user bug"
    assert run.metadata["simulator"]["user"] == {"kind": "test"}


def test_a_user_error_after_a_turn_ends_with_that_error() -> None:
    (run,) = simulate([case()], toy_agents.shop, _User("hello", UserError("no text")))
    assert run.turns is not None and run.metadata["error"] == "user: no text"


@pytest.mark.parametrize(
    ("user", "error"),
    [
        (_User(UserError("endpoint down")), "user: endpoint down"),
        (_User("###STOP###"), "user: the user sent the stop signal before the first turn"),
        (_User("   "), "user: the user's message is empty"),
    ],
    ids=["user-error", "stops-at-once", "empty"],
)
def test_a_conversation_without_a_turn_is_a_failure_not_a_run(user: _User, error: str) -> None:
    failures: list[Failure] = []
    runs = simulate([case(), case("b")], toy_agents.shop, user, on_failure=failures.append)
    assert runs == [] and [f.case_id for f in failures] == ["refund-1", "b"]
    assert failures[0].record() == {
        "case_id": "refund-1",
        "trial": 0,
        "run_id": "refund-1#sim-0",
        "outcome": "failed",
        "error": error,
    }


def test_a_hung_agent_times_out_and_the_rest_go_on() -> None:
    def agent(messages: list[dict[str, Any]], tools: Any) -> str:
        if "hang" in messages[-1]["content"]:
            tools.call("lookup", {"order_id": "W1"})
            return toy_agents.stuck(messages, tools)
        return "fine"

    toy_agents.RELEASE.clear()
    try:
        cases = [case("a", script=("hi", "now hang")), case("b", script=("hi",))]
        hung, done = simulate(cases, agent, timeout=0.3, concurrency=2)
    finally:
        toy_agents.RELEASE.set()
    assert done.metadata["simulator"]["outcome"] == "finished"
    assert hung.metadata["simulator"]["outcome"] == "timed_out"
    assert hung.metadata["error"] == "timed out after 0.3 s"
    assert hung.turns is not None and len(hung.turns) == 2
    last = hung.turns[-1]
    assert (last.user, last.reply, last.ended_by) == ("now hang", None, "error")
    assert [s.tool for s in last.steps] == ["lookup"]  # what it made before it hung


def test_bad_counts_are_value_errors() -> None:
    with pytest.raises(ValueError, match="trials must be >= 1"):
        simulate([case()], toy_agents.shop, trials=0)
    with pytest.raises(ValueError, match="max_turns must be >= 1"):
        simulate([case()], toy_agents.shop, max_turns=0)
    with pytest.raises(ValueError, match="timeout must be > 0"):
        simulate([case()], toy_agents.shop, timeout=0)
