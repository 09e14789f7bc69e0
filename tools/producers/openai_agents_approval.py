"""Write OpenAI Agents SDK traces with human-in-the-loop approvals, offline (not run in CI).

Drives ``openai-agents`` 0.24.0 like ``openai_agents_trace.py`` (recorded chat-completions
replies over ``httpx.MockTransport``, no network; a custom ``TracingProcessor`` writes
``trace.export()`` at trace start and ``span.export()`` at span end, one JSON object per
line). Agent ``Billing`` has ``lookup_order`` and ``issue_refund``, the latter a
``function_tool(needs_approval=True)``. Each run stops at the interruption
(``result.interruptions``), is decided on ``result.to_state()`` (``RunState.approve`` /
``RunState.reject``) and resumed with ``Runner.run(agent, state)``, which continues the
same trace.

Five traces:

1. ``approve-A17``: ``lookup_order`` runs, ``issue_refund`` is interrupted, approved, runs;
   ``Billing`` answers.
2. ``reject-A17``: ``issue_refund`` is interrupted and rejected with a message; the tool does
   not run, the model gets the message and answers.
3. ``always-approve``: ``issue_refund`` of A17 is interrupted and approved with
   ``always_approve=True``; a second ``issue_refund`` (B22) in the same run is approved by
   that decision and runs without an interruption.
4. ``always-reject``: ``issue_refund`` of A17 is interrupted and rejected with
   ``always_reject=True``; the model's second ``issue_refund`` (B22) is rejected by that
   decision when it is first attempted: its ``function`` span has the rejection error.
5. ``pending-A17``: ``issue_refund`` is interrupted and the run is not resumed (the trace
   ends waiting for a decision).

What the SDK writes (0.24.0): the interruption is a ``function`` span with ``input`` and no
``output``; the resumed run opens a new ``task`` and ``agent`` span in the same trace; an
approved call is a second ``function`` span of the same input, before any model span; a call
rejected on resume has no span at all (the next model call is shown the rejection message as
the call's result); a call rejected before it is attempted has a span with the error
``data.error`` "Tool execution for <call id> was manually rejected by user.".

Usage: ``python tools/producers/openai_agents_approval.py OUT.jsonl``
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
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
    set_trace_processors,
    set_tracing_disabled,
)
from agents.tracing import TracingProcessor
from openai import AsyncOpenAI


def _reply(number: int, message: dict[str, Any], prompt: int, completion: int) -> dict[str, Any]:
    return reply(number, message, prompt, completion, model="gpt-4o-mini")


def _tools(number: int, *calls: dict[str, Any]) -> dict[str, Any]:
    return _reply(number, {"tool_calls": list(calls)}, 100 + 10 * number, 20)


def _refund(call_id: str, order_id: str) -> dict[str, Any]:
    return call(call_id, "issue_refund", {"order_id": order_id, "amount": 25.0})


#: The recorded model replies of each run, in the order the agent asks for them.
REPLIES = {
    "approve-A17": [
        _tools(1, call("call_lookup", "lookup_order", {"order_id": "A17"})),
        _tools(2, _refund("call_refund", "A17")),
        _reply(3, {"content": "Refunded 25.00 EUR for order A17."}, 160, 11),
    ],
    "reject-A17": [
        _tools(1, _refund("call_refund", "A17")),
        _reply(2, {"content": "The refund of order A17 was not approved."}, 150, 12),
    ],
    "always-approve": [
        _tools(1, _refund("call_refund_a", "A17")),
        _tools(2, _refund("call_refund_b", "B22")),
        _reply(3, {"content": "Refunded orders A17 and B22."}, 170, 9),
    ],
    "always-reject": [
        _tools(1, _refund("call_refund_a", "A17")),
        _tools(2, _refund("call_refund_b", "B22")),
        _reply(3, {"content": "Neither refund was approved."}, 170, 8),
    ],
    "pending-A17": [_tools(1, _refund("call_refund", "A17"))],
}


class Replies:
    """Serves the replies of one run, one per request."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = replies
        self.next = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        body = self.replies[self.next]
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


@function_tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 25.0})


@function_tool(needs_approval=True)
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an order (a person approves each refund)."""
    return f"refund of {amount:.2f} for {order_id}"


async def _run(case_id: str, decide: Any) -> None:
    client = AsyncOpenAI(
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(Replies(REPLIES[case_id]))),
        max_retries=0,
    )
    model = OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client)
    agent = Agent(
        name="Billing",
        instructions="Issue refunds; each refund needs a person's approval.",
        tools=[lookup_order, issue_refund],
        model=model,
    )
    config = RunConfig(workflow_name="refunds", trace_metadata={"pathgrade.case_id": case_id})
    result = await Runner.run(agent, "Please refund my orders.", run_config=config)
    while result.interruptions and decide is not None:
        state = result.to_state()
        for item in result.interruptions:
            print(case_id, "interrupted:", item.tool_name, item.arguments)
            decide(state, item)
        result = await Runner.run(agent, state, run_config=config)
    print(case_id, "answer:", result.final_output)


def _approve(state: Any, item: Any) -> None:
    state.approve(item)


def _reject(state: Any, item: Any) -> None:
    state.reject(item, rejection_message="Refunds over 20 EUR need a manager.")


def _always(state: Any, item: Any) -> None:
    state.approve(item, always_approve=True)


def _never(state: Any, item: Any) -> None:
    state.reject(item, always_reject=True, rejection_message="Refunds are paused today.")


async def main(out: str) -> None:
    set_tracing_disabled(False)
    processor = JsonLines()
    set_trace_processors([processor])
    await _run("approve-A17", _approve)
    await _run("reject-A17", _reject)
    await _run("always-approve", _always)
    await _run("always-reject", _never)
    await _run("pending-A17", None)
    with open(out, "w", encoding="utf-8") as handle:
        for item in processor.items:
            handle.write(json.dumps(item, sort_keys=True) + "\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
