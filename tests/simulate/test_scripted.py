"""The scripted user end to end with a small rule-based Python agent (tests/simulate/toy_agents)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.types import Run
from pathgrade.io.cases import load_runs
from pathgrade.replay import FaultPlan, FaultRule
from pathgrade.simulate import simulate

from . import toy_agents
from .conftest import FIXTURES, case


def test_a_scripted_conversation_is_recorded_turn_by_turn() -> None:
    (run,) = simulate([case()], toy_agents.shop, fixtures=[FIXTURES])
    assert run.run_id == "refund-1#sim-0" and run.trial == 0
    assert run.turns is not None and len(run.turns) == 2
    first, second = run.turns
    assert first.user == "Hi, I have a problem" and first.steps == ()
    assert first.reply == "Which order is it about? Please give the order id."
    assert first.ended_by is None and second.ended_by == "user"
    assert [(s.tool, s.arguments, s.output) for s in second.steps] == [
        ("lookup", {"order_id": "W1"}, {"status": "delivered"}),
        ("refund", {"order_id": "W1"}, "ok"),
    ]
    assert [s.call_id for s in second.steps] == ["call_1_0", "call_1_1"]
    assert all(s.latency_ms is not None for s in second.steps)
    assert second.reply == run.answer == "Refund status: ok"
    assert run.steps == second.steps  # the run's path is the turns' steps
    # the agent's usage (the dict's tokens and cost, the simulator's latency); none for the user
    assert second.usage is not None and (second.usage.tokens, second.usage.cost) == (7.0, 0.5)
    assert first.user_usage is None and second.user_usage is None
    assert run.usage is not None and run.usage.tokens == 7.0 and run.usage.latency_ms is not None
    simulator = run.metadata["simulator"]
    assert simulator["user"] == {"kind": "scripted"} and simulator["outcome"] == "finished"
    assert simulator["agent"]["kind"] == "callable" and simulator["agent"]["name"].endswith("shop")
    assert (simulator["max_turns"], simulator["seed"], simulator["unrecorded"]) == (10, 0, 0)
    assert "error" not in run.metadata


def test_the_agent_sees_the_whole_conversation_as_openai_messages() -> None:
    seen: list[list[dict[str, object]]] = []

    def agent(messages: list[dict[str, object]], tools: object) -> str:
        seen.append(messages)
        return toy_agents.shop(messages, tools)  # type: ignore[arg-type,return-value]

    simulate([case(script=("order W1 please", "thanks"))], agent, fixtures=[FIXTURES])
    assert seen[0] == [{"role": "user", "content": "order W1 please"}]
    assert seen[1][1]["role"] == "assistant" and seen[1][1]["content"] is None
    assert seen[1][1]["tool_calls"][0]["function"] == {  # type: ignore[index]
        "name": "lookup",
        "arguments": '{"order_id":"W1"}',
    }
    assert seen[1][2] == {
        "role": "tool",
        "tool_call_id": "call_0_0",
        "content": '{"status":"delivered"}',
    }
    assert seen[1][3] == {"role": "assistant", "content": "Order W1: {'status': 'delivered'}"}
    assert seen[1][4] == {"role": "user", "content": "thanks"}


def test_an_unrecorded_call_gets_an_error_observation_and_is_counted() -> None:
    (run,) = simulate([case()], toy_agents.shop)  # no fixtures at all
    assert run.turns is not None
    (step,) = run.turns[1].steps
    assert step.tool == "lookup" and step.error == "no recorded result for this call (replay)"
    assert step.metadata["replay"] == "unrecorded"
    assert run.metadata["simulator"]["unrecorded"] == 1
    assert run.answer == "I could not look it up: no recorded result for this call (replay)"


def test_faults_are_injected_into_the_fixture_calls() -> None:
    plan = FaultPlan((FaultRule("timeout", tool="lookup"),))
    (run,) = simulate([case()], toy_agents.shop, fixtures=[FIXTURES], faults=plan)
    assert run.turns is not None
    (step,) = run.turns[1].steps
    assert step.error == "timeout: the tool did not answer in time"
    assert step.metadata["fault"] == {"kind": "timeout", "rule": 0}
    assert run.metadata["simulator"]["faults"] == {"injected": 1, "by_kind": {"timeout": 1}}


def test_live_tools_run_the_agents_own_functions() -> None:
    (run,) = simulate([case()], toy_agents.live, live_tools=toy_agents.live.tools)  # type: ignore[attr-defined]
    assert run.turns is not None
    assert run.turns[0].reply == "12:00|RuntimeError: live tool down|no live tool named 'missing'"
    assert [s.metadata for s in run.turns[0].steps] == [{"simulate": "live"}] * 3


@pytest.mark.parametrize(
    ("agent", "script", "ended_by", "turns"),
    [
        (toy_agents.ender, ("a", "b", "c"), "agent", 2),  # end=True
        (toy_agents.shop, ("I want a human", "hello?"), "agent", 1),  # a transfer tool
        (toy_agents.shop, ("x",) * 20, "max_turns", 3),
    ],
    ids=["end-flag", "transfer", "max-turns"],
)
def test_how_a_conversation_ends(
    agent: Callable[..., Any], script: tuple[str, ...], ended_by: str, turns: int
) -> None:
    (run,) = simulate([case(script=script)], agent, max_turns=3, fixtures=[FIXTURES])
    assert run.turns is not None and len(run.turns) == turns
    assert run.turns[-1].ended_by == ended_by
    assert [t.ended_by for t in run.turns[:-1]] == [None] * (turns - 1)
    assert run.metadata["simulator"]["outcome"] == "finished"


def test_the_budget_stops_a_conversation_after_the_turn_that_reached_it() -> None:
    script = ("refund W1", "and again W1 refund", "bye")
    (run,) = simulate([case(script=script)], toy_agents.shop, fixtures=[FIXTURES], budget_tokens=5)
    assert run.turns is not None and len(run.turns) == 1 and run.turns[0].ended_by == "budget"


def test_trials_are_separate_runs_in_job_order() -> None:
    runs = simulate([case("a"), case("b")], toy_agents.shop, trials=3, concurrency=4)
    assert [(r.case_id, r.trial) for r in runs] == [(c, t) for c in "ab" for t in range(3)]


def test_two_simulations_give_byte_identical_files_without_timings(tmp_path: Path) -> None:
    from pathgrade.simulate import RunWriter

    outs = []
    for name in ("one.jsonl", "two.jsonl"):
        with RunWriter(tmp_path / name) as writer:
            simulate(
                [case("a"), case("b", script=("W1 refund", "thanks"))],
                toy_agents.shop,
                fixtures=[FIXTURES.model_copy(update={"case_id": c}) for c in "ab"],
                trials=2,
                concurrency=3,
                timing=False,
                on_run=writer.run,
            )
        outs.append((tmp_path / name).read_bytes())
    assert outs[0] == outs[1] and b"latency_ms" not in outs[0]
    assert len(outs[0].splitlines()) == 4


def test_the_written_runs_are_read_back_as_the_same_runs(tmp_path: Path) -> None:
    from pathgrade.simulate import RunWriter

    with RunWriter(tmp_path / "runs.jsonl") as writer:
        runs = simulate([case()], toy_agents.shop, fixtures=[FIXTURES], on_run=writer.run)
    (back,) = load_runs(tmp_path / "runs.jsonl").items
    assert back == runs[0]
    assert isinstance(back, Run) and json.loads((tmp_path / "runs.jsonl").read_text())["turns"]
