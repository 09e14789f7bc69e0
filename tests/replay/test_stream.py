"""Streamed replies (``stream = true``): assembled from server-sent events into the reply a
plain request gets, by hand and against the local stub (127.0.0.1), for the simulator too."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pathgrade.openai_compat import RetryPolicy
from pathgrade.replay import EndpointClient, EndpointConfig, EndpointError
from pathgrade.replay.sse import assemble_stream
from pathgrade.simulate import EndpointTurnAgent, LLMUser, simulate
from pathgrade.simulate.users import GREETING

from ..conftest import completion, stream_events, tool_call
from ..simulate.conftest import FIXTURES, case, untimed


def _events(*chunks: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + (
        b"data: [DONE]\n\n"
    )


def test_by_hand() -> None:
    body = _events(
        {"id": "x", "model": "m", "choices": [{"delta": {"role": "assistant", "content": "Hel"}}]},
        {"choices": [{"delta": {"content": "lo"}}]},
        {"choices": [{"delta": {"tool_calls": [
            {"index": 0, "id": "c1", "function": {"name": "lookup", "arguments": "{\"id"}}]}}]},
        {"choices": [{"delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": "\": 1}"}}]}}]},
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}},
    )  # fmt: skip
    reply = assemble_stream(b": keep-alive\n\n" + body)
    message = reply["choices"][0]["message"]
    assert message["content"] == "Hello"
    assert message["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"id": 1}'}}
    ]
    assert (
        reply["choices"][0]["finish_reason"] == "tool_calls" and reply["usage"]["total_tokens"] == 5
    )


@pytest.mark.parametrize(
    ("content", "tool_calls"),
    [("a reply of some length", None), (None, [tool_call("lookup", {"order_id": "W1"}, "c")])],
)
def test_the_stub_stream_assembles_to_the_plain_reply(content: str | None, tool_calls: Any) -> None:
    made = completion(content, tool_calls)
    assembled = assemble_stream(stream_events(made))
    assert assembled["choices"][0]["message"] == made["choices"][0]["message"] | (
        {} if content else {"content": None}
    )
    assert assembled["usage"] == made["usage"]


@pytest.mark.parametrize(
    ("body", "message"),
    [(b"data: {\"choices\": []}\n\n", "without 'data: \\[DONE\\]'"),
     (b"hello\n", "not 'data: ...'"), (b"data: {oops\n\ndata: [DONE]\n", "not JSON"),
     (b"data: [1]\n\ndata: [DONE]\n", "object")],
)  # fmt: skip
def test_broken_streams_are_refused(body: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        assemble_stream(body)


def test_a_broken_stream_is_an_endpoint_error(stub: Any) -> None:
    stub.on("hi", stub.reply(body='data: {"choices": []}\n\n'))
    config = EndpointConfig(stub.url, "m", retry=RetryPolicy(0), stream=True)
    with EndpointClient(config) as client, pytest.raises(EndpointError, match="stream is broken"):
        client.complete([{"role": "user", "content": "hi"}], [])


def _conversation(stub: Any, stream: bool) -> Any:
    stub.reset()
    for rule in stub.rules:
        rule.hits = 0
    config = {"retry": RetryPolicy(0), "stream": stream}
    agent_config = EndpointConfig(stub.url, "agent-m", **config)
    user_config = EndpointConfig(stub.url, "user-m", **config)
    with EndpointClient(agent_config) as agent_client, EndpointClient(user_config) as user_client:
        agent = EndpointTurnAgent(agent_client, system="You are the shop agent.")
        (run,) = simulate([case()], agent, LLMUser(user_client), fixtures=[FIXTURES], timing=False)
    assert all(r["body"].get("stream", False) is stream for r in stub.requests)
    return run


def test_a_streamed_simulation_equals_the_plain_one(stub: Any) -> None:
    lookup = ("lookup", {"order_id": "W1"}, "call_l")
    stub.on(GREETING, stub.reply(content="I want a refund for order W1"), system="role-playing")
    stub.on("refund for order W1", stub.tool_calls(lookup), stub.reply(content="Refunded W1."),
            system="shop agent")  # fmt: skip
    stub.on("Refunded W1.", stub.reply(content="Thanks! ###STOP###"), system="role-playing")
    plain, streamed = _conversation(stub, False), _conversation(stub, True)
    assert streamed.turns and [t.reply for t in streamed.turns] == ["Refunded W1."]
    assert untimed(streamed.model_dump(mode="json")) == untimed(plain.model_dump(mode="json"))
