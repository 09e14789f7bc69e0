"""Write OpenInference traces of an OpenAI Agents SDK run, offline (not run in CI).

Drives ``openinference-instrumentation-openai-agents`` over ``openai-agents``
(``OpenAIChatCompletionsModel`` on an ``AsyncOpenAI`` client whose ``httpx.AsyncClient`` has
an ``httpx.MockTransport`` serving recorded chat-completions replies: no network). The
instrumentor replaces the SDK's own trace processors (``exclusive_processor``, its default),
so nothing is sent to the SDK's backend; spans go to the OpenTelemetry SDK's in-memory
exporter. Not imported by the package.

Two traces:

1. ``refund-A17``: agent ``Support`` (tools ``lookup_order``, a one-argument tool, and
   ``search_kb``, a function tool mapped to ``RETRIEVER`` with the instrumentor's
   ``tool_span_kinds``, returning documents with ids and scores) asks for both in one model
   response, then hands off to agent ``Billing`` (``transfer_to_billing``), whose
   ``issue_refund`` fails once (``payment gateway timeout``: the SDK hands the error text to
   the model and marks the span failed) and then succeeds; ``Billing`` answers.
2. ``blocked-1``: the input guardrail of ``Support`` trips; the run stops with no tool call.

Usage: ``python tools/producers/openinference_openai_agents.py OUT_DIR`` writes
``openinference_openai_agents_otlp.jsonl`` (OTLP/JSON lines).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
from _oi_export import provider, write_otlp_json
from agents import (
    Agent,
    GuardrailFunctionOutput,
    InputGuardrailTripwireTriggered,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
    input_guardrail,
)
from openai import AsyncOpenAI
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _reply(number: int, message: dict[str, Any], prompt: int, completion: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000 + number,
        "model": "gpt-4o-mini",
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


REPLIES = [
    _reply(
        1,
        {
            "tool_calls": [
                _call("call_lookup", "lookup_order", {"order_id": "A17"}),
                _call("call_kb", "search_kb", {"query": "refunds for damaged items"}),
            ]
        },
        120,
        30,
    ),
    _reply(2, {"tool_calls": [_call("call_handoff", "transfer_to_billing", {})]}, 180, 12),
    _reply(
        3,
        {
            "tool_calls": [
                _call("call_refund_1", "issue_refund", {"order_id": "A17", "amount": 25.0})
            ]
        },
        200,
        20,
    ),
    _reply(
        4,
        {
            "tool_calls": [
                _call("call_refund_2", "issue_refund", {"order_id": "A17", "amount": 25.0})
            ]
        },
        240,
        20,
    ),
    _reply(5, {"content": "Refunded 25.00 EUR for order A17."}, 260, 11),
]


class Replies:
    """Serves :data:`REPLIES` one per request."""

    def __init__(self) -> None:
        self.next = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        body = REPLIES[self.next]
        self.next += 1
        return httpx.Response(200, json=body)


FAILS = {"issue_refund": 1}


@function_tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 25.0})


@function_tool
def search_kb(query: str) -> list[dict[str, Any]]:
    """Search the policy base."""
    return [
        {"id": "kb-refunds", "content": "Damaged items are refunded in full.", "score": 0.92},
        {"id": "kb-payments", "content": "Refunds go to the original card.", "score": 0.71},
    ]


@function_tool
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an order."""
    if FAILS["issue_refund"]:
        FAILS["issue_refund"] -= 1
        raise RuntimeError("payment gateway timeout")
    return f"refund R-1 of {amount:.2f} for {order_id}"


@input_guardrail
async def no_threats(ctx: Any, agent: Any, text: Any) -> GuardrailFunctionOutput:
    """Trips when the request mentions a lawyer."""
    return GuardrailFunctionOutput(output_info=None, tripwire_triggered="lawyer" in str(text))


async def run() -> None:
    client = AsyncOpenAI(
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(Replies())),
        max_retries=0,
    )
    model = OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client)
    billing = Agent(
        name="Billing", instructions="Issue refunds.", tools=[issue_refund], model=model
    )
    support = Agent(
        name="Support",
        instructions="Help customers; hand refunds to Billing.",
        tools=[lookup_order, search_kb],
        handoffs=[billing],
        input_guardrails=[no_threats],
        model=model,
    )
    result = await Runner.run(
        support, "Please refund order A17.", run_config=RunConfig(workflow_name="refunds")
    )
    print("answer:", result.final_output)
    try:
        await Runner.run(
            support, "My lawyer wants a refund.", run_config=RunConfig(workflow_name="refunds")
        )
    except InputGuardrailTripwireTriggered as error:
        print("blocked:", error.guardrail_result.guardrail.get_name())


def main(out_dir: Path) -> None:
    tracer_provider, exporter = provider()
    OpenAIAgentsInstrumentor().instrument(
        tracer_provider=tracer_provider, tool_span_kinds={"search_kb": "RETRIEVER"}
    )
    asyncio.run(run())
    write_otlp_json(
        exporter.get_finished_spans(), out_dir / "openinference_openai_agents_otlp.jsonl"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
