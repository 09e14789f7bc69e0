"""The endpoint agent and the LLM user on the local stub server (127.0.0.1, tests/conftest.py),
and endpoints that drip or hang (tests/judge/limits_servers.py): bounded, recorded, counted."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from pathgrade.openai_compat import RetryPolicy
from pathgrade.replay import EndpointClient, EndpointConfig
from pathgrade.simulate import EndpointTurnAgent, LLMUser, simulate
from pathgrade.simulate.users import GREETING

from ..judge.limits_servers import drip_body, serving
from .conftest import FIXTURES, case

AGENT_SYSTEM = "You are the shop agent."
USER_SYSTEM = "role-playing a user"  # in every LLM user's system prompt


@contextmanager
def clients(url: str, **settings: Any) -> Iterator[tuple[EndpointClient, EndpointClient]]:
    given: dict[str, Any] = {"retry": RetryPolicy(0), **settings}
    with ExitStack() as stack:
        agent = stack.enter_context(EndpointClient(EndpointConfig(url, "agent-m", **given)))
        user = stack.enter_context(EndpointClient(EndpointConfig(url, "user-m", **given)))
        yield agent, user


def test_an_llm_user_and_an_endpoint_agent_hold_a_conversation(stub: Any) -> None:
    lookup = ("lookup", {"order_id": "W1"}, "call_l")
    stub.on(GREETING, stub.reply(content="I want a refund for order W1"), system=USER_SYSTEM)
    stub.on(
        "refund for order W1",
        stub.tool_calls(lookup),
        stub.reply(content="Which order?"),
        system=AGENT_SYSTEM,
    )
    stub.on("Which order?", stub.reply(content="W1, as I said"), system=USER_SYSTEM)
    stub.on(
        "W1, as I said",
        stub.tool_calls(lookup),
        stub.reply(content="Refunded W1."),
        system=AGENT_SYSTEM,
    )
    stub.on("Refunded W1.", stub.reply(content="Thanks! ###STOP###"), system=USER_SYSTEM)
    with clients(stub.url) as (agent_client, user_client):
        agent = EndpointTurnAgent(agent_client, system=AGENT_SYSTEM)
        (run,) = simulate([case()], agent, LLMUser(user_client), fixtures=[FIXTURES])
    assert run.turns is not None
    assert [(t.user, t.reply) for t in run.turns] == [
        ("I want a refund for order W1", "Which order?"),
        ("W1, as I said", "Refunded W1."),
    ]
    first, second = run.turns
    assert second.ended_by == "user" and second.metadata["user_stop"] == "Thanks! ###STOP###"
    # model calls are numbered over the conversation: adjacent turns never share a number
    assert [s.turn for s in run.steps] == [0, 2]
    assert [s.output for s in run.steps] == [{"status": "delivered"}] * 2
    # the agent's tokens (two model calls a turn, 120 each) apart from the user's
    assert first.usage is not None and first.usage.tokens == 240
    assert first.user_usage is not None and first.user_usage.tokens == 120
    assert second.user_usage is not None and second.user_usage.tokens == 240  # + the stop
    assert run.usage is not None and run.usage.tokens == 480
    assert first.metadata["agent"]["stopped"] == "answer"
    assert run.metadata["simulator"]["user"] == {"kind": "endpoint", "model": "user-m"}
    assert run.metadata["simulator"]["agent"]["model"] == "agent-m"

    bodies = [r["body"] for r in stub.requests]
    user_bodies = [b for b in bodies if b["model"] == "user-m"]
    agent_bodies = [b for b in bodies if b["model"] == "agent-m"]
    system = user_bodies[0]["messages"][0]["content"]
    assert "You want a refund for order W1." in system and "- order_id: W1" in system
    assert "###STOP###" in system and "tools" not in user_bodies[0]
    assert user_bodies[1]["messages"][1:] == [  # the user's view: roles flipped, no tool calls
        {"role": "user", "content": GREETING},
        {"role": "assistant", "content": "I want a refund for order W1"},
        {"role": "user", "content": "Which order?"},
    ]
    last = agent_bodies[-1]["messages"]
    assert last[0] == {"role": "system", "content": AGENT_SYSTEM}
    assert [m["role"] for m in last] == [
        "system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool",
    ]  # fmt: skip
    names = [t["function"]["name"] for t in agent_bodies[0]["tools"]]
    assert names == ["lookup", "refund", "transfer_to_human_agents"]


def test_a_user_model_that_never_stops_is_bounded_by_max_turns(stub: Any) -> None:
    stub.on("", stub.reply(content="tell me more"), system=USER_SYSTEM)
    stub.on("tell me more", stub.reply(content="Sure."), system=AGENT_SYSTEM)
    with clients(stub.url) as (agent_client, user_client):
        agent = EndpointTurnAgent(agent_client, system=AGENT_SYSTEM)
        (run,) = simulate([case()], agent, LLMUser(user_client), max_turns=3)
    assert run.turns is not None and len(run.turns) == 3
    assert run.turns[-1].ended_by == "max_turns"
    assert run.metadata["simulator"]["outcome"] == "finished"


def test_an_endpoint_error_is_the_turns_error(stub: Any) -> None:
    stub.on("", stub.reply(status=400, body='{"error": "bad request"}'), system=AGENT_SYSTEM)
    with clients(stub.url) as (agent_client, _):
        (run,) = simulate([case()], EndpointTurnAgent(agent_client, system=AGENT_SYSTEM))
    assert run.turns is not None and run.turns[0].ended_by == "error"
    assert run.metadata["error"].startswith("HTTP 400")


def test_a_dripping_agent_endpoint_is_bounded_by_the_request_deadline() -> None:
    with serving(drip_body) as url, clients(url, deadline=0.3, timeout=1.0) as (client, _):
        runs = simulate([case("a"), case("b")], EndpointTurnAgent(client), concurrency=2)
    expected = "deadline of 0.3 s exceeded (after 1 attempt(s))"
    assert [r.metadata["error"] for r in runs] == [expected] * 2
    assert all(r.metadata["simulator"]["outcome"] == "failed" for r in runs)


def test_a_hanging_agent_endpoint_is_bounded_by_the_conversation_timeout() -> None:
    with serving(drip_body) as url, clients(url, deadline=1.5, timeout=2.0) as (client, _):
        (run,) = simulate([case()], EndpointTurnAgent(client), timeout=0.2)
    assert run.metadata["simulator"]["outcome"] == "timed_out"
    assert run.turns is not None and run.turns[0].reply is None
