"""Write traces of an AutoGen AgentChat Swarm (two agents, a hand-off, tools), offline.

Drives ``autogen-agentchat`` 0.7.5 / ``autogen-core`` 0.7.5 / ``autogen-ext[openai]`` 0.7.5 (the
0.4+ API): an ``OpenAIChatCompletionClient`` whose ``httpx2.AsyncClient`` (the HTTP client of
``openai`` 3.63.0) has a ``MockTransport`` serving recorded chat-completions replies, so no model
call leaves the process (fake key, a 127.0.0.1 base URL that is never connected to). Spans go
to the OpenTelemetry SDK's (1.45.2) in-memory exporter and are written as OTLP/JSON lines, one
trace per line, by ``_oi_export.write_otlp_json``. Not run in CI; not imported by the package.

The scenario, ``refund-A17`` (a ``Swarm`` of two ``AssistantAgent``s, ``triage`` first):

- ``triage`` (tools ``lookup_order``, ``search_kb``; ``handoffs=["billing"]``,
  ``max_tool_iterations=3``): reply 1 asks for ``lookup_order {"order_id": "A17"}`` and
  ``search_kb {"query": "refunds for damaged items"}`` in one response (AutoGen runs them
  concurrently); reply 2 calls ``transfer_to_billing`` (the hand-off: a ``HandoffMessage``);
- ``billing`` (tool ``issue_refund``, ``max_tool_iterations=3``): reply 3 asks for
  ``issue_refund {"order_id": "A17", "amount": 25.0}``, which raises
  ``RuntimeError("payment gateway timeout")`` (AutoGen hands it back to the model as a
  ``FunctionExecutionResult`` with ``is_error=True``); reply 4 asks again, which succeeds
  (``{"refund_id": "R-1"}``); reply 5 answers ``Refunded 25.00 on order A17 (refund R-1).``
  and ``TextMessageTermination("billing")`` ends the run.
- usage: (120+30) + (200+12) + (180+20) + (230+20) + (260+14) = 1086 tokens.

AutoGen has no retriever concept in its traces: ``search_kb`` is a plain tool returning
document ids.

Two recordings of the same scenario, each with its own tracer provider (ids count from 1):

1. ``autogen_openinference.jsonl``: ``openinference-instrumentation-autogen-agentchat``
   0.1.22 (``openinference-instrumentation`` 0.1.72, ``openinference-semantic-conventions``
   0.1.42): CHAIN ``Swarm.run_stream``, AGENT ``<agent>.on_messages_stream``, LLM
   ``OpenAIChatCompletionClient.create``, TOOL ``<agent>.<tool>``. No global tracer provider,
   so AutoGen's own spans are no-ops here.
2. ``autogen_otel.jsonl``: AutoGen's own OpenTelemetry spans (the global tracer provider for
   autogen-core's ``create_agent`` / ``invoke_agent`` / ``execute_tool`` GenAI spans, and
   ``SingleThreadedAgentRuntime(tracer_provider=...)`` for its messaging spans ``create`` /
   ``send`` / ``publish`` / ``process`` / ``ack``), plus ``opentelemetry-instrumentation-openai-v2``
   2.4b0 (with ``opentelemetry-util-genai`` pinned to 1.1b0, which it imports from, and
   ``httpx`` 0.29.0, which it imports; latest GenAI conventions, content ``span_only``) for the
   model calls, as AutoGen's tracing guide pairs its spans with an OpenAI instrumentation; one
   application span ``refund-A17`` around the run, as that guide does, makes it one trace. The
   OpenInference instrumentor is uninstrumented first. AutoGen's ``execute_tool`` spans carry
   the tool name and call id only (no arguments, no result): the arguments are in the model
   spans' ``gen_ai.output.messages``, the results in the next ones' ``gen_ai.input.messages``.

Environment (outside the repository; one ``pip install`` command, wrapped here)::

    python3 -m venv /tmp/venv_autogen
    /tmp/venv_autogen/bin/pip install "autogen-agentchat==0.7.5" "autogen-core==0.7.5"
        "autogen-ext[openai]==0.7.5" "openinference-instrumentation-autogen-agentchat==0.1.22"
        "opentelemetry-instrumentation-openai-v2==2.4b0" "opentelemetry-util-genai==1.1b0"
        "opentelemetry-sdk==1.45.2" "opentelemetry-exporter-otlp-proto-common==1.45.2" httpx

Usage: ``python tools/producers/autogen_trace.py OUT_DIR`` (with that environment's Python)
writes both files.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.update(
    {
        "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only",
        "OPENAI_API_KEY": "x",
    }
)

import httpx2
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.conditions import TextMessageTermination
from autogen_agentchat.teams import Swarm
from autogen_core import SingleThreadedAgentRuntime
from autogen_ext.models.openai import OpenAIChatCompletionClient
from opentelemetry import trace

sys.path.insert(0, str(Path(__file__).parent))
from _oi_export import provider, write_otlp_json

QUESTION = "Please refund order A17, it arrived damaged."
ANSWER = "Refunded 25.00 on order A17 (refund R-1)."


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def reply(number: int, message: dict[str, Any], prompt: int, completion: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000 + number,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                "message": {"role": "assistant", "content": None, **message},
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


REFUND = {"order_id": "A17", "amount": 25.0}
REPLIES = [
    reply(
        1,
        {
            "tool_calls": [
                call("call_lookup", "lookup_order", {"order_id": "A17"}),
                call("call_kb", "search_kb", {"query": "refunds for damaged items"}),
            ]
        },
        120,
        30,
    ),
    reply(2, {"tool_calls": [call("call_handoff", "transfer_to_billing", {})]}, 200, 12),
    reply(
        3,
        {"tool_calls": [call("call_refund_1", "issue_refund", REFUND)]},
        180,
        20,
    ),
    reply(
        4,
        {"tool_calls": [call("call_refund_2", "issue_refund", REFUND)]},
        230,
        20,
    ),
    reply(5, {"content": ANSWER}, 260, 14),
]

ATTEMPTS = {"refund": 0}


async def lookup_order(order_id: str) -> str:
    """Look an order up by its id."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 25.0})


async def search_kb(query: str) -> str:
    """Search the refund policy base; returns document ids."""
    return json.dumps(["kb-refunds", "kb-warranty"])


async def issue_refund(order_id: str, amount: float) -> str:
    """Refund an amount on an order (the gateway times out the first time)."""
    ATTEMPTS["refund"] += 1
    if ATTEMPTS["refund"] == 1:
        raise RuntimeError("payment gateway timeout")
    return json.dumps({"refund_id": "R-1"})


def model_client() -> OpenAIChatCompletionClient:
    queue = list(REPLIES)

    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        return httpx2.Response(200, json=queue.pop(0))

    return OpenAIChatCompletionClient(
        model="gpt-4o-mini",
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )


def team(runtime: SingleThreadedAgentRuntime | None) -> Swarm:
    client = model_client()
    triage = AssistantAgent(
        "triage",
        model_client=client,
        tools=[lookup_order, search_kb],
        handoffs=["billing"],
        max_tool_iterations=3,
        system_message="You triage support requests; hand refunds to billing.",
        description="Support triage.",
    )
    billing = AssistantAgent(
        "billing",
        model_client=client,
        tools=[issue_refund],
        max_tool_iterations=3,
        system_message="You issue refunds.",
        description="Billing.",
    )
    return Swarm(
        [triage, billing],
        termination_condition=TextMessageTermination("billing"),
        runtime=runtime,
    )


async def run(runtime: SingleThreadedAgentRuntime | None = None) -> None:
    ATTEMPTS["refund"] = 0
    if runtime is not None:
        runtime.start()
    result = await team(runtime).run(task=QUESTION)
    if runtime is not None:
        await runtime.stop_when_idle()
    for message in result.messages:
        print(type(message).__name__, getattr(message, "source", ""), str(message.content)[:100])
    assert result.messages[-1].content == ANSWER, result.messages[-1]


def openinference(out_dir: Path) -> None:
    from openinference.instrumentation.autogen_agentchat import AutogenAgentChatInstrumentor

    tracer_provider, exporter = provider()
    instrumentor = AutogenAgentChatInstrumentor()
    instrumentor.instrument(tracer_provider=tracer_provider)
    asyncio.run(run())
    instrumentor.uninstrument()
    write_otlp_json(exporter.get_finished_spans(), out_dir / "autogen_openinference.jsonl")


def autogen_own(out_dir: Path) -> None:
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    tracer_provider, exporter = provider()
    trace.set_tracer_provider(tracer_provider)
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)

    async def with_runtime() -> None:
        # As AutoGen's tracing guide does: one application span around the team's run, so that
        # the runtime's spans and the agents' spans are one trace.
        with tracer_provider.get_tracer("support-app").start_as_current_span("refund-A17"):
            await run(SingleThreadedAgentRuntime(tracer_provider=tracer_provider))

    asyncio.run(with_runtime())
    write_otlp_json(exporter.get_finished_spans(), out_dir / "autogen_otel.jsonl")


def main(out_dir: Path) -> None:
    openinference(out_dir)
    autogen_own(out_dir)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
