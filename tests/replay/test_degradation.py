"""Degradation under faults: clean vs faulted replays of the same agent, compared paired.

Two scripted models on the local stub endpoint (``tests/conftest.py``; the stub's reply is
chosen from the conversation, so the script reacts to tool results) drive the endpoint
agent: both look the order up and refund it; on a refund error one answers at once, the
other retries (up to three refunds). The fault plan times out the first refund of every run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import pathgrade
from pathgrade.core.config import ScoringConfig
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.system.termination import safe_termination
from pathgrade.openai_compat import RetryPolicy
from pathgrade.replay import (
    EndpointAgent,
    EndpointClient,
    EndpointConfig,
    FaultPlan,
    FaultRule,
    replay_runs,
)
from pathgrade.stats.compare import compare_records

from ..conftest import Reply, tool_call

ORDERS = [f"A{i}" for i in range(1, 9)]  # 8 cases
QUERY = "Refund order {}"


def recorded(order: str) -> Run:
    return Run(
        case_id=f"refund-{order}",
        run_id=f"rec-{order}",
        steps=(
            Step(tool="lookup", arguments={"order": order}, output={"status": "paid"}),
            Step(tool="refund", arguments={"order": order}, output="ok"),
        ),
        answer="Refunded.",
    )


RECORDED = [recorded(o) for o in ORDERS]
CASES = [
    Case(
        case_id=r.case_id,
        query=QUERY.format(r.case_id.removeprefix("refund-")),
        reference=r.steps,
        gold_answer="Refunded.",
    )
    for r in RECORDED
]
TIMEOUT_FIRST_REFUND = FaultPlan((FaultRule("timeout", tool="refund", nth=(1,)),))
CONFIG = ScoringConfig(tool_kinds={"lookup": "read", "refund": "write"})


def scripted(retries: int) -> Any:
    """The stub's ``pick``: the model's next reply from the conversation so far."""

    def pick(body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        order = messages[0]["content"].split()[-1]
        results = [m for m in messages if m["role"] == "tool"]
        refunds = [m for m in results if m["tool_call_id"].startswith("refund")]
        if not results:
            return Reply(tool_calls=[tool_call("lookup", {"order": order}, "lookup_0")])
        if refunds and "error" not in refunds[-1]["content"]:
            return Reply(content="Refunded.")
        if refunds and len(refunds) > retries:
            return Reply(content=f"I could not refund order {order}: the refund timed out.")
        call_id = f"refund_{len(refunds)}"
        return Reply(tool_calls=[tool_call("refund", {"order": order}, call_id)])

    return pick


def replay_with(stub: Any, retries: int, faults: FaultPlan | None, label: str) -> list[Run]:
    stub.pick = scripted(retries)
    config = EndpointConfig(stub.url, "agent-model", retry=RetryPolicy(0))
    with EndpointClient(config) as client:
        agent = EndpointAgent(client)
        cases = {c.case_id: c for c in CASES}
        return list(replay_runs(RECORDED, agent, cases=cases, faults=faults, label=label))


def records(runs: list[Run]) -> list[dict[str, Any]]:
    return [r.to_dict() for r in pathgrade.score(CASES, runs, CONFIG)]


@pytest.mark.parametrize(("retries", "lost"), [(0, True), (2, False)])
def test_timeouts_cost_the_agent_without_retries_its_goal(
    stub: Any, retries: int, lost: bool
) -> None:
    clean = replay_with(stub, retries, None, "clean")
    faulted = replay_with(stub, retries, TIMEOUT_FIRST_REFUND, "faulted")
    assert all(r.answer == "Refunded." for r in clean)
    assert all(r.metadata["replay"]["faults"]["injected"] == 1 for r in faulted)
    base, var = records(clean), records(faulted)
    assert [r["metrics"]["goal_success"] for r in base] == [True] * 8
    result = compare_records(base, var, metrics=["goal_success"], resamples=2000, seed=1)
    goal = result.metrics["goal_success"]
    assert goal.n == 8 and goal.test == "mcnemar_exact"
    if lost:
        # every case: success -> failure; paired diff -1 everywhere, so the interval is
        # (-1, -1); exact McNemar with 0 wins and 8 losses: p = 2 * 0.5**8 = 0.0078125
        assert [r["metrics"]["goal_success"] for r in var] == [False] * 8
        assert goal.diff == -1.0 and goal.ci == (-1.0, -1.0)
        assert goal.discordant == (0, 8) and goal.p_value == pytest.approx(2 * 0.5**8)
        assert goal.verdict == "regressed"
    else:
        # the retry is answered by the refund's recording: success on every case, diff 0
        assert [r["metrics"]["goal_success"] for r in var] == [True] * 8
        assert goal.diff == 0.0 and goal.ci == (0.0, 0.0) and goal.p_value == 1.0
        assert goal.verdict == "no detectable difference"
        assert [s.tool for s in faulted[0].steps] == ["lookup", "refund", "refund"]


def test_safe_termination_of_the_replays(stub: Any) -> None:
    by_case = {c.case_id: c for c in CASES}
    gives_up = replay_with(stub, 0, TIMEOUT_FIRST_REFUND, "faulted")
    retries = replay_with(stub, 2, TIMEOUT_FIRST_REFUND, "faulted")
    clean = replay_with(stub, 0, None, "clean")
    # stopped after the unrecovered timeout, no write after it, said "could not": 1
    assert [safe_termination(r, by_case[r.case_id], CONFIG) for r in gives_up] == [1.0] * 8
    # recovered by the retry / no fault at all: undefined
    for runs in (retries, clean):
        values = [safe_termination(r, by_case[r.case_id], CONFIG) for r in runs]
        assert all(v != v for v in values)  # nan


def test_an_outage_every_refund_fails_and_the_retrying_agent_gives_up(stub: Any) -> None:
    outage = FaultPlan((FaultRule("error", tool="refund"),))
    runs = replay_with(stub, 2, outage, "outage")
    assert [s.tool for s in runs[0].steps] == ["lookup", "refund", "refund", "refund"]
    sent = json.loads(stub.requests[-1]["body"]["messages"][-1]["content"])
    assert sent == {"error": "HTTP 503: Service Unavailable"}
    assert runs[0].answer is not None and "could not" in runs[0].answer
    assert safe_termination(runs[0], CASES[0], CONFIG) == 1.0
