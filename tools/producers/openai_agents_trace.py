"""Write an OpenAI Agents SDK trace export with the SDK itself, offline (not run in CI).

Drives ``openai-agents`` (``pip install openai-agents``) with recorded chat-completions
replies served by an ``httpx.MockTransport`` (no network), and captures what the SDK's
tracing exports through a custom ``TracingProcessor``: ``trace.export()`` when a trace
starts and ``span.export()`` when a span ends (the order the SDK's own batch exporter
sends them), one JSON object per line.

Two traces:

1. ``refund-A17``: agent ``Support`` (tools ``lookup_order`` and ``get_policy``, called in
   parallel by one model response; an input guardrail that passes) hands off to agent
   ``Billing``, whose ``issue_refund`` fails once (``payment gateway timeout``) and then
   succeeds; ``Billing`` answers.
2. ``blocked-1``: the input guardrail of ``Support`` trips; the run stops before any model
   call.

Usage: ``python tools/producers/openai_agents_trace.py OUT.jsonl``
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx
from _otel_common import call, reply  # this folder's shared helpers (not the package's)
from agents import (
    Agent,
    GuardrailFunctionOutput,
    InputGuardrailTripwireTriggered,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
    input_guardrail,
    set_trace_processors,
    set_tracing_disabled,
)
from agents.tracing import TracingProcessor
from openai import AsyncOpenAI


def _reply(number: int, message: dict[str, Any], prompt: int, completion: int) -> dict[str, Any]:
    return reply(number, message, prompt, completion, model="gpt-4o-mini")


#: The recorded model replies, in the order the agents ask for them.
REPLIES = [
    _reply(
        1,
        {
            "tool_calls": [
                call("call_lookup", "lookup_order", {"order_id": "A17"}),
                call("call_policy", "get_policy", {"topic": "refunds"}),
            ]
        },
        120,
        30,
    ),
    _reply(2, {"tool_calls": [call("call_handoff", "transfer_to_billing", {})]}, 180, 12),
    _reply(
        3,
        {
            "tool_calls": [
                call("call_refund_1", "issue_refund", {"order_id": "A17", "amount": 25.0})
            ]
        },
        200,
        20,
    ),
    _reply(
        4,
        {
            "tool_calls": [
                call("call_refund_2", "issue_refund", {"order_id": "A17", "amount": 25.0})
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


class JsonLines(TracingProcessor):
    """Writes ``trace.export()`` at trace start and ``span.export()`` at span end."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def on_trace_start(self, trace: Any) -> None:
        exported = trace.export()
        if exported:
            self.items.append(exported)

    def on_trace_end(self, trace: Any) -> None:
        pass

    def on_span_start(self, span: Any) -> None:
        pass

    def on_span_end(self, span: Any) -> None:
        exported = span.export()
        if exported:
            self.items.append(exported)

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


FAILS = {"issue_refund": 1}


@function_tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 25.0})


@function_tool
def get_policy(topic: str) -> str:
    """The policy text of a topic."""
    return "Refunds within 30 days of delivery."


def _refund_failed(ctx: Any, error: Exception) -> str:
    return f"refund failed: {error}"


@function_tool(failure_error_function=_refund_failed)
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


async def main(out: str) -> None:
    set_tracing_disabled(False)
    processor = JsonLines()
    set_trace_processors([processor])
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
        tools=[lookup_order, get_policy],
        handoffs=[billing],
        input_guardrails=[no_threats],
        model=model,
    )
    result = await Runner.run(
        support,
        "Please refund order A17.",
        run_config=RunConfig(
            workflow_name="refunds",
            group_id="thread-9",
            trace_metadata={"pathgrade.case_id": "refund-A17"},
        ),
    )
    print("answer:", result.final_output)
    try:
        await Runner.run(
            support,
            "My lawyer wants a refund.",
            run_config=RunConfig(
                workflow_name="refunds", trace_metadata={"pathgrade.case_id": "blocked-1"}
            ),
        )
    except InputGuardrailTripwireTriggered as error:
        print("blocked:", error.guardrail_result.guardrail.get_name())
    with open(out, "w", encoding="utf-8") as handle:
        for item in processor.items:
            handle.write(json.dumps(item, sort_keys=True) + "\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
