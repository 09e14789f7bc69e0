"""Replay harness: fixtures matched like scoring, unrecorded calls flagged, frozen time/rng."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

import pathgrade
from pathgrade.core.config import FieldMatch, MatchingConfig, ToolMatch
from pathgrade.core.types import Case, Run, Step
from pathgrade.replay import FixtureSet, ReplayTask, Unrecorded, replay_run

RECORDED = Run(
    case_id="refund-1",
    run_id="r1",
    trial=1,
    steps=(
        Step(
            tool="lookup",
            arguments={"order": "A17"},
            output={"status": "paid"},
            start_time=1_715_000_000.0,
        ),
        Step(tool="refund", arguments={"order": "A17", "amount": 10}, error="gateway timeout"),
        Step(tool="refund", arguments={"order": "A17", "amount": 10}, output="ok"),
    ),
    answer="Refunded.",
)
CASE = Case(case_id="refund-1", query="Refund order A17", reference=RECORDED.steps[::2])


def planner_v1(task: ReplayTask) -> str:
    """Looks the order up, refunds with retry on error, answers."""
    order = task.call("lookup", {"order": "A17"}).output
    if order != {"status": "paid"}:
        return "cannot refund"
    for _ in range(3):
        if task.call("refund", order="A17", amount=10).error is None:
            return "Refunded."
    return "failed"


def planner_v2(task: ReplayTask) -> str:
    """Asks a tool the recording never saw, and refunds once (no retry)."""
    task.call("policy", {"topic": "refunds"})
    task.call("lookup", {"order": "a17 "})
    result = task.call("refund", {"order": "A17", "amount": 10})
    return "Refunded." if result.error is None else "failed"


def test_replay_answers_from_the_recording_in_order() -> None:
    run = replay_run(RECORDED, planner_v1, case=CASE)
    assert [(s.tool, s.output, s.error) for s in run.steps] == [
        ("lookup", {"status": "paid"}, None),
        ("refund", None, "gateway timeout"),  # the first recording of the same call
        ("refund", "ok", None),  # then the next one: the retry sees what the recording saw
    ]
    assert run.answer == "Refunded." and run.run_id == "r1#replay" and run.trial == 1
    assert run.metadata["replay"]["unrecorded"] == 0
    assert run.metadata["replay"]["unused_fixtures"] == 0
    assert [s.metadata["fixture"] for s in run.steps] == [0, 1, 2]


def test_unrecorded_calls_get_an_error_by_default_and_are_flagged() -> None:
    run = replay_run(RECORDED, planner_v2, case=CASE)
    policy, lookup, refund = run.steps
    assert policy.error is not None and policy.metadata["replay"] == "unrecorded"
    # exact matching: "a17 " is not "A17" -> unrecorded as well
    assert lookup.metadata["replay"] == "unrecorded"
    assert refund.error == "gateway timeout" and run.answer == "failed"
    assert run.metadata["replay"]["unrecorded"] == 2


def test_matching_modes_are_the_scoring_ones() -> None:
    normalized = MatchingConfig(mode="normalized")
    run = replay_run(RECORDED, planner_v2, matching=normalized)
    assert run.steps[1].output == {"status": "paid"}  # "a17 " ~ "A17" after normalisation
    per_field = MatchingConfig(
        tools={"policy": ToolMatch(fields={"topic": FieldMatch(mode="ignore")})}
    )
    fixtures = FixtureSet([Step(tool="policy", arguments={"topic": "x"}, output="p")], per_field)
    found = fixtures.lookup("policy", {"topic": "anything"})
    assert found is not None and found.output == "p"
    assert fixtures.lookup("policy", {"other": 1}) is None


def test_configurable_reply_and_abort() -> None:
    run = replay_run(RECORDED, planner_v2, unrecorded=Unrecorded("value", {"ok": True}))
    assert run.steps[0].output == {"ok": True} and run.steps[0].error is None
    assert run.steps[0].metadata["replay"] == "unrecorded"
    aborted = replay_run(RECORDED, planner_v2, unrecorded=Unrecorded("abort"))
    assert [s.tool for s in aborted.steps] == ["policy"]
    assert aborted.metadata["replay"]["aborted"] is True and aborted.answer is None


def test_time_and_randomness_are_frozen_and_restored() -> None:
    seen: list[Any] = []

    def agent(task: ReplayTask) -> str:
        seen.append((task.now(), time.time(), task.rng.random(), random.random()))
        return "done"

    before = random.getstate()
    replay_run(RECORDED, agent, seed=7)
    replay_run(RECORDED, agent, seed=7)
    assert seen[0] == seen[1]
    assert seen[0][0] == seen[0][1] == 1_715_000_000.0  # the recording's start
    assert random.getstate() == before and time.time() > 1_715_000_000.0
    replay_run(RECORDED, agent, seed=8)
    assert seen[2][2] != seen[0][2]


def test_two_planner_versions_scored_on_the_same_observations() -> None:
    v1 = replay_run(RECORDED, planner_v1, case=CASE, label="v1")
    v2 = replay_run(RECORDED, planner_v2, case=CASE, label="v2")
    scores = {r.run_id: r.metrics["path_score"] for r in pathgrade.score([CASE], [v1, v2])}
    # v1: lookup, refund (failed), refund -> both reference steps matched; the failed refund
    # is a retry after an error, not waste: 100. v2: policy and lookup("a17 ") are extra
    # reads (no penalty); refund has the reference's tool and arguments, so it matches;
    # lookup("A17") is missing (-25) and the refund ran without the lookup it depends on
    # (out of order, -15): 100 - 25 - 15 = 60.
    assert scores == {"r1#v1": 100.0, "r1#v2": 60.0}


def test_agent_errors_propagate() -> None:
    def broken(task: ReplayTask) -> str:
        raise ValueError("bug in the planner")

    with pytest.raises(ValueError, match="bug in the planner"):
        replay_run(RECORDED, broken)
