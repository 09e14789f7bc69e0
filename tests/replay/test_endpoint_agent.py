"""The endpoint agent: a model on the local stub (127.0.0.1) driving a tool-calling loop.

Each test scripts the model's replies on the stub (``tests/conftest.py``), replays a recorded
run through :class:`EndpointAgent` and checks the replayed run and the requests sent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import pathgrade
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.tool.schemas import ToolSet, ToolSpec
from pathgrade.openai_compat import RetryPolicy
from pathgrade.replay import (
    EndpointAgent,
    EndpointClient,
    EndpointConfig,
    Unrecorded,
    function_tools,
    replay_run,
    tools_from_runs,
)

QUERY = "What is the weather in Paris?"
RECORDED = Run(
    case_id="weather-1",
    run_id="rec-1",
    steps=(
        Step(tool="search", arguments={"q": "Paris weather"}, output="sunny, 21C"),
        Step(tool="open", arguments={"id": "d1"}, output={"title": "Paris", "temp": 21}),
    ),
    answer="It is sunny in Paris.",
)
CASE = Case(case_id="weather-1", query=QUERY, reference=RECORDED.steps)
SEARCH = ("search", {"q": "Paris weather"}, "call_s")
OPEN = ("open", {"id": "d1"}, "call_o")


def replay_via(
    stub: Any,
    *,
    max_turns: int = 10,
    unrecorded: Unrecorded | None = None,
    sleeps: list[float] | None = None,
    api_key: str | None = None,
    label: str = "ep",
    **agent_options: Any,
) -> Run:
    config = EndpointConfig(
        stub.url, "agent-model", api_key=api_key, retry=RetryPolicy(2, backoff_base=0.01)
    )
    waits: list[float] = [] if sleeps is None else sleeps
    with EndpointClient(config, sleep=waits.append) as client:
        agent = EndpointAgent(client, max_turns=max_turns, **agent_options)
        return replay_run(
            RECORDED, agent, case=CASE, unrecorded=unrecorded or Unrecorded(), label=label
        )


def test_two_parallel_calls_then_an_answer(stub: Any) -> None:
    stub.on(QUERY, stub.tool_calls(SEARCH, OPEN), stub.reply(content="Sunny, 21C."))
    run = replay_via(stub)
    assert run.answer == "Sunny, 21C." and run.run_id == "rec-1#ep"
    assert [(s.tool, s.arguments, s.output) for s in run.steps] == [
        ("search", {"q": "Paris weather"}, "sunny, 21C"),
        ("open", {"id": "d1"}, {"title": "Paris", "temp": 21}),
    ]
    assert [(s.turn, s.call_id, s.metadata["replay"]) for s in run.steps] == [
        (0, "call_s", "recorded"),
        (0, "call_o", "recorded"),
    ]
    assert run.steps[0].raw_arguments == '{"q": "Paris weather"}'
    # usage: 120 tokens per model call; the first call's are shared by its two steps
    assert [s.tokens for s in run.steps] == [60.0, 60.0]
    assert all(s.latency_ms is not None and s.latency_ms > 0 for s in run.steps)
    assert run.usage is not None and run.usage.tokens == 240.0
    assert run.usage.latency_ms is not None and run.usage.latency_ms > 0
    agent = run.metadata["replay"]["agent"]
    assert agent["stopped"] == "answer" and agent["turns"] == 2
    assert agent["model"] == "agent-model" and agent["system_fingerprint"] == "fp_stub_1"

    first, second = (r["body"] for r in stub.requests)
    assert [r["path"] for r in stub.requests] == ["/v1/chat/completions"] * 2
    assert first["model"] == "agent-model"
    assert first["temperature"] == 0 and first["seed"] == 0
    assert first["messages"] == [{"role": "user", "content": QUERY}]
    assert first["tools"] == [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in ("search", "open")
    ]
    assistant, tool_s, tool_o = second["messages"][1:]
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_s", "call_o"]
    assert tool_s == {"role": "tool", "tool_call_id": "call_s", "content": "sunny, 21C"}
    assert tool_o["tool_call_id"] == "call_o"
    assert json.loads(tool_o["content"]) == {"title": "Paris", "temp": 21}


def test_unrecorded_call_gets_the_configured_reply_and_is_flagged(stub: Any) -> None:
    policy = ("policy", {"topic": "weather"}, "call_p")
    stub.on(QUERY, stub.tool_calls(policy, SEARCH), stub.reply(content="done"))
    run = replay_via(stub)
    assert [s.metadata["replay"] for s in run.steps] == ["unrecorded", "recorded"]
    assert run.steps[0].error is not None and run.metadata["replay"]["unrecorded"] == 1
    sent = stub.requests[1]["body"]["messages"][2]
    assert sent["tool_call_id"] == "call_p" and "error" in json.loads(sent["content"])

    stub.reset()
    stub.on(QUERY, stub.tool_calls(policy, SEARCH), stub.reply(content="done"))
    run = replay_via(stub, unrecorded=Unrecorded("value", {"ok": True}))
    assert run.steps[0].output == {"ok": True} and run.steps[0].error is None
    assert run.steps[0].metadata["replay"] == "unrecorded"
    assert stub.requests[1]["body"]["messages"][2]["content"] == '{"ok":true}'


def test_unrecorded_abort_stops_the_loop(stub: Any) -> None:
    stub.on(QUERY, stub.tool_calls(("policy", {}, "call_p")), stub.reply(content="never"))
    run = replay_via(stub, unrecorded=Unrecorded("abort"))
    assert run.metadata["replay"]["aborted"] is True and run.answer is None
    assert len(stub.requests) == 1


def test_malformed_arguments_are_kept_raw_and_answered_with_an_error(stub: Any) -> None:
    broken = ("search", '{"q": "Paris weather"', "call_bad")
    stub.on(QUERY, stub.tool_calls(broken), stub.tool_calls(SEARCH), stub.reply(content="Sunny."))
    run = replay_via(stub)
    bad, good = run.steps
    assert bad.raw_arguments == '{"q": "Paris weather"' and bad.arguments == {}
    assert bad.error is not None and "not valid JSON" in bad.error
    assert bad.metadata["replay"] == "malformed_arguments" and bad.output is None
    assert good.metadata["replay"] == "recorded" and (bad.turn, good.turn) == (0, 1)
    assert run.metadata["replay"]["malformed_arguments"] == 1
    assert run.metadata["replay"]["unrecorded"] == 0 and run.answer == "Sunny."
    error_message = stub.requests[1]["body"]["messages"][2]
    assert error_message["tool_call_id"] == "call_bad"
    assert "not valid JSON" in json.loads(error_message["content"])["error"]


def test_max_turns_stops_and_is_flagged(stub: Any) -> None:
    stub.on(QUERY, stub.tool_calls(SEARCH))  # asks for a tool forever
    run = replay_via(stub, max_turns=3)
    assert len(stub.requests) == 3 and run.answer is None
    assert [s.turn for s in run.steps] == [0, 1, 2]  # the last turn's calls are still answered
    agent = run.metadata["replay"]["agent"]
    assert agent["stopped"] == "max_turns" and agent["turns"] == 3


def test_429_then_success_honours_retry_after(stub: Any) -> None:
    busy = stub.reply(status=429, headers={"Retry-After": "3"}, body='{"error": "slow down"}')
    stub.on(QUERY, busy, stub.reply(content="Sunny."))
    sleeps: list[float] = []
    run = replay_via(stub, sleeps=sleeps)
    assert run.answer == "Sunny." and len(stub.requests) == 2
    assert len(sleeps) == 1 and sleeps[0] >= 3.0
    assert run.metadata["replay"]["agent"]["retries"] == 1


def test_endpoint_failure_is_flagged_and_key_free(stub: Any, api_key: str) -> None:
    echo = json.dumps({"error": f"invalid key {api_key}"})
    stub.on(QUERY, stub.reply(status=401, body=echo))
    run = replay_via(stub, api_key=api_key)
    agent = run.metadata["replay"]["agent"]
    assert agent["stopped"] == "error" and "HTTP 401" in agent["error"]
    assert run.answer is None and len(stub.requests) == 1  # a 4xx is not retried
    assert stub.requests[0]["headers"]["Authorization"] == f"Bearer {api_key}"
    assert api_key not in run.model_dump_json()
    assert api_key not in repr(EndpointConfig(stub.url, "m", api_key=api_key))


def test_system_prompt_and_given_tools_are_sent(stub: Any) -> None:
    stub.on(QUERY, stub.reply(content="ok"))
    spec = ToolSpec("search", {"type": "object", "x-dangerous": False}, description="Web search")
    tools = function_tools(ToolSet.of([spec]))
    replay_via(stub, system="You are terse.", tools=tools)
    body = stub.requests[0]["body"]
    assert body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Web search",
                "parameters": {"type": "object"},
            },
        }
    ]


def test_replayed_runs_score_like_the_recording(stub: Any) -> None:
    stub.on(QUERY, stub.tool_calls(SEARCH, OPEN), stub.reply(content="Sunny, 21C."))
    same = replay_via(stub, label="v1")
    stub.reset()
    stub.on(QUERY, stub.tool_calls(SEARCH), stub.reply(content="Sunny."))  # skips `open`
    skips = replay_via(stub, label="v2")
    scores = {
        r.run_id: r.metrics["path_score"] for r in pathgrade.score([CASE], [RECORDED, same, skips])
    }
    assert scores["rec-1#v1"] == scores["rec-1"] == 100.0
    assert scores["rec-1#v2"] == 75.0  # the reference's `open` is missing: -25


def test_tools_from_runs_in_first_call_order() -> None:
    runs = [RECORDED, Run(case_id="x", steps=(Step(tool="refund"), Step(tool="search")))]
    assert [t["function"]["name"] for t in tools_from_runs(runs)] == ["search", "open", "refund"]


def test_bad_settings_are_input_errors() -> None:
    with pytest.raises(pathgrade.InputError, match="expected an http"):
        EndpointConfig("ftp://example.invalid", "m")
    with pytest.raises(pathgrade.InputError, match="model name is empty"):
        EndpointConfig("http://127.0.0.1:1", " ")
    public = EndpointConfig("http://u:pw@127.0.0.1:8/v1?k=s", "m", api_key="k").public()
    assert public["base_url"] == "http://127.0.0.1:8/v1" and "api_key" not in public
