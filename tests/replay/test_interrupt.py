"""``interrupt_at=K``: the agent stopped right after step K and restarted from the checkpoint."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step
from pathgrade.openai_compat import RetryPolicy
from pathgrade.replay import (
    EndpointAgent,
    EndpointClient,
    EndpointConfig,
    FaultPlan,
    FaultRule,
    ReplayTask,
    Unrecorded,
    replay_run,
)

RECORDED = Run(
    case_id="refund-1",
    run_id="r1",
    steps=(
        Step(tool="lookup", arguments={"order": "A17"}, output={"status": "paid"}),
        Step(tool="refund", arguments={"order": "A17"}, output="ok"),
    ),
)
CASE = Case(case_id="refund-1", query="Refund order A17")


def naive(task: ReplayTask) -> str:
    """Starts over on a restart: looks up and refunds again."""
    task.call("lookup", {"order": "A17"})
    task.call("refund", {"order": "A17"})
    return "Refunded."


def checkpointed(task: ReplayTask) -> str:
    """Skips what the checkpoint shows done."""
    done = {s.tool for s in task.checkpoint if s.error is None}
    for tool in ("lookup", "refund"):
        if tool not in done:
            task.call(tool, {"order": "A17"})
    return "Refunded."


def test_a_naive_agent_repeats_the_refund_after_the_resume() -> None:
    run = replay_run(RECORDED, naive, interrupt_at=2)
    # lookup, refund | interrupted before the agent read the refund's result | restarted:
    # lookup (resumed), refund again (the recording answers again)
    assert [(s.tool, s.resumed) for s in run.steps] == [
        ("lookup", False),
        ("refund", False),
        ("lookup", True),
        ("refund", False),
    ]
    assert run.answer == "Refunded."
    assert run.metadata["replay"]["interrupt"] == {"at": 2, "interrupted": True}


def test_an_agent_that_reads_the_checkpoint_does_not_repeat_it() -> None:
    seen: list[tuple[bool, tuple[str, ...]]] = []

    def agent(task: ReplayTask) -> str:
        seen.append((task.resumed, tuple(s.tool for s in task.checkpoint)))
        return checkpointed(task)

    run = replay_run(RECORDED, agent, interrupt_at=1)
    assert seen == [(False, ()), (True, ("lookup",))]
    assert [(s.tool, s.resumed) for s in run.steps] == [("lookup", False), ("refund", True)]
    assert run.steps[1].output == "ok"


def test_a_run_shorter_than_k_is_not_interrupted() -> None:
    run = replay_run(RECORDED, naive, interrupt_at=3)
    assert [s.tool for s in run.steps] == ["lookup", "refund"]
    assert not any(s.resumed for s in run.steps)
    assert run.metadata["replay"]["interrupt"] == {"at": 3, "interrupted": False}
    assert "interrupt" not in replay_run(RECORDED, naive).metadata["replay"]


def test_except_exception_does_not_swallow_the_stop() -> None:
    def stubborn(task: ReplayTask) -> str:
        try:
            task.call("lookup", {"order": "A17"})
        except Exception:  # the point of the test
            return "swallowed"
        return "finished"

    run = replay_run(RECORDED, stubborn, interrupt_at=1)
    assert run.answer == "finished" and [s.resumed for s in run.steps] == [False, True]


def test_an_abort_ends_the_run_without_a_restart() -> None:
    def asks_unknown(task: ReplayTask) -> str:
        task.call("policy", {})
        return "never"

    run = replay_run(RECORDED, asks_unknown, interrupt_at=1, unrecorded=Unrecorded("abort"))
    assert run.metadata["replay"]["aborted"] is True and len(run.steps) == 1
    assert run.metadata["replay"]["interrupt"]["interrupted"] is False


def test_fault_counters_run_on_across_the_restart() -> None:
    # nth=3: the third lookup of the run, which is the restarted attempt's first
    def lookups(task: ReplayTask) -> str:
        for _ in range(2):
            task.call("lookup", {"order": "A17"})
        return "done"

    plan = FaultPlan((FaultRule("timeout", tool="lookup", nth=(3,)),))
    run = replay_run(RECORDED, lookups, interrupt_at=2, faults=plan)
    assert [(s.resumed, s.error is not None) for s in run.steps] == [
        (False, False),
        (False, False),
        (True, True),
        (False, False),
    ]


@pytest.mark.parametrize("bad", [0, -1])
def test_k_must_be_at_least_one(bad: int) -> None:
    with pytest.raises(InputError, match=">= 1") as caught:
        replay_run(RECORDED, naive, interrupt_at=bad)
    assert caught.value.field == "--interrupt-at"


def test_the_endpoint_agent_resumes_from_the_recorded_conversation(stub: Any) -> None:
    query = CASE.query or ""
    lookup = ("lookup", {"order": "A17"}, "call_l")
    refund = ("refund", {"order": "A17"}, "call_r")
    # turn 0: lookup; turn 1: refund (interrupted after it); after the restart the model,
    # seeing the refund's result in the rebuilt conversation, answers
    stub.on(query, stub.tool_calls(lookup), stub.tool_calls(refund), stub.reply(content="Done."))
    config = EndpointConfig(stub.url, "agent-model", retry=RetryPolicy(0))
    with EndpointClient(config) as client:
        run = replay_run(RECORDED, EndpointAgent(client), case=CASE, interrupt_at=2)
    assert [s.tool for s in run.steps] == ["lookup", "refund"] and run.answer == "Done."
    resumed = stub.requests[2]["body"]["messages"]
    assert [m["role"] for m in resumed] == ["user", "assistant", "tool", "assistant", "tool"]
    assert resumed[3]["tool_calls"] == [
        {
            "id": "call_r",
            "type": "function",
            "function": {"name": "refund", "arguments": '{"order": "A17"}'},
        }
    ]
    assert resumed[4] == {"role": "tool", "tool_call_id": "call_r", "content": "ok"}
    assert json.loads(resumed[2]["content"]) == {"status": "paid"}
    agent = run.metadata["replay"]["agent"]
    assert agent["resumed_at_turn"] == 2 and agent["stopped"] == "answer"


def test_the_endpoint_agent_repeating_a_call_marks_it_resumed(stub: Any) -> None:
    query = CASE.query or ""
    refund = ("refund", {"order": "A17"}, "call_r")
    stub.on(query, stub.tool_calls(refund), stub.tool_calls(refund), stub.reply(content="Done."))
    config = EndpointConfig(stub.url, "agent-model", retry=RetryPolicy(0))
    with EndpointClient(config) as client:
        run = replay_run(RECORDED, EndpointAgent(client), case=CASE, interrupt_at=1)
    assert [(s.tool, s.turn, s.resumed) for s in run.steps] == [
        ("refund", 0, False),
        ("refund", 1, True),  # turns go on from the checkpoint's last
    ]
