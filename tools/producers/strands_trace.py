"""Write Strands Agents' own OpenTelemetry GenAI spans of a two-agent run, offline.

Drives ``strands-agents`` 1.65.0 (``Agent`` on its ``OpenAIModel``, streaming as by default,
over ``openai`` 3.63.0 whose HTTP client is an ``httpx2.AsyncClient`` on
``httpx2.MockTransport`` serving recorded chat-completions replies as server-sent events: no
network, no key). Strands traces itself (``strands.telemetry.tracer``, the default
conventions: no ``OTEL_SEMCONV_STABILITY_OPT_IN``, so messages are span events); its tracer
takes the global tracer provider, here an ``opentelemetry-sdk`` 1.45.2 provider with the
in-memory exporter and counting ids of ``_oi_export``.

One trace (``refund-A17``): agent ``support`` (tools ``lookup_order``, ``search_memory`` and
``billing``) gets two calls in its first response: ``lookup_order`` and ``search_memory``,
the tool of Strands' own ``MemoryManager`` (its retrieval: a ``memory.search`` span) over a
read-only store whose two entries carry ids in their metadata. Then it delegates with
``billing``, agent ``billing`` wrapped by ``Agent.as_tool()``; ``billing`` calls
``issue_refund``, which raises ``RuntimeError("payment gateway timeout")`` (Strands hands
the error to the model as a tool result with status ``error``), then again with success,
and answers; ``support`` answers. Six model calls with recorded token usage.

Usage: ``python tools/producers/strands_trace.py OUT_DIR`` writes ``strands_otel.jsonl``
(OTLP/JSON lines, one trace per line): Strands' default conventions (``gen_ai.system``;
tool arguments and results, prompts and answers only in span events: ``gen_ai.tool.message``,
``gen_ai.choice``, ``gen_ai.user.message``...).
``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental python
tools/producers/strands_trace.py OUT_DIR`` writes the same run with the latest GenAI
conventions to ``strands_otel_latest.jsonl`` (``gen_ai.provider.name``,
``gen_ai.tool.call.arguments`` / ``gen_ai.tool.call.result`` attributes, messages in
``gen_ai.client.inference.operation.details`` events). Not run in CI; not imported by the
package.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx2
import openai
from _oi_export import provider, write_otlp_json
from opentelemetry import trace as trace_api

REFUND = {"order_id": "A17", "amount": 25.0}


def _chunk(number: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000 + number,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _reply(
    number: int,
    prompt: int,
    completion: int,
    *,
    text: str | None = None,
    calls: Sequence[tuple[str, str, dict[str, Any]]] = (),
) -> list[dict[str, Any]]:
    """The chunks of one streamed chat completion (``stream_options.include_usage``)."""
    chunks = [_chunk(number, {"role": "assistant", "content": ""})]
    if text is not None:
        chunks.append(_chunk(number, {"content": text}))
    for index, (call_id, name, arguments) in enumerate(calls):
        call = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        chunks.append(_chunk(number, {"tool_calls": [call]}))
    chunks.append(_chunk(number, {}, "tool_calls" if calls else "stop"))
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    chunks.append({**_chunk(number, {}), "choices": [], "usage": usage})
    return chunks


#: tokens: 160 + 230 + 95 + 130 + 150 + 310 = 1075
REPLIES = [
    # support
    _reply(
        1,
        120,
        40,
        calls=[
            ("call_lookup", "lookup_order", {"order_id": "A17"}),
            ("call_kb", "search_memory", {"query": "refund policy for damaged items"}),
        ],
    ),
    _reply(
        2, 200, 30, calls=[("call_billing", "billing", {"input": "Refund 25.00 EUR on order A17."})]
    ),
    # billing
    _reply(3, 80, 15, calls=[("call_refund_1", "issue_refund", REFUND)]),
    _reply(4, 115, 15, calls=[("call_refund_2", "issue_refund", REFUND)]),
    _reply(5, 140, 10, text="Refund R-1 of 25.00 EUR issued for order A17."),
    # support
    _reply(6, 290, 20, text="Refunded 25.00 EUR on order A17 (refund R-1)."),
]


def serve(replies: list[list[dict[str, Any]]]) -> openai.AsyncOpenAI:
    """An OpenAI client whose every chat-completions request streams the next recorded reply."""
    queue = list(replies)

    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        assert json.loads(request.content)["stream"] is True
        body = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in queue.pop(0))
        return httpx2.Response(
            200,
            content=(body + "data: [DONE]\n\n").encode(),
            headers={"content-type": "text/event-stream"},
        )

    return openai.AsyncOpenAI(
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )


def main(out_dir: Path) -> None:
    tracer_provider, exporter = provider()
    trace_api.set_tracer_provider(tracer_provider)

    # imported after the global provider is set (Strands' tracer reads it once)
    from strands import Agent, tool
    from strands.memory import MemoryEntry, MemoryManager
    from strands.models.openai import OpenAIModel

    class PolicyStore:
        """A read-only memory store: the two policy entries, ids in their metadata."""

        name = "policies"
        description = "Refund and payment policies."
        max_search_results = None
        writable = False
        extraction = None

        async def search(self, query: str, options: Any = None) -> list[MemoryEntry]:
            return [
                MemoryEntry(
                    "Damaged items are refunded in full within 30 days.",
                    metadata={"id": "kb-refunds", "score": 0.92},
                ),
                MemoryEntry(
                    "Refunds go back to the original payment method.",
                    metadata={"id": "kb-payments", "score": 0.71},
                ),
            ]

    attempts = {"refund": 0}

    @tool
    def issue_refund(order_id: str, amount: float) -> str:
        """Refund an amount on an order.

        Args:
            order_id: The order.
            amount: The amount to refund.
        """
        attempts["refund"] += 1
        if attempts["refund"] == 1:
            raise RuntimeError("payment gateway timeout")
        return f"refund R-1 of {amount:.2f} for {order_id}"

    @tool
    def lookup_order(order_id: str) -> dict[str, Any]:
        """Look up an order by its id.

        Args:
            order_id: The order.
        """
        return {"order_id": order_id, "status": "delivered", "total": 25.0}

    model = OpenAIModel(client=serve(REPLIES), model_id="gpt-4o-mini")
    billing = Agent(
        model=model,
        name="billing",
        description="Issues refunds.",
        system_prompt="You issue refunds.",
        tools=[issue_refund],
        callback_handler=None,
    )
    support = Agent(
        model=model,
        name="support",
        system_prompt="You help customers; billing issues refunds.",
        tools=[lookup_order, billing.as_tool()],
        memory_manager=MemoryManager(stores=[PolicyStore()], injection=False),
        callback_handler=None,
        trace_attributes={"session.id": "refund-A17"},
    )
    result = support("Refund order A17 if the policy allows it.")
    assert str(result).strip() == "Refunded 25.00 EUR on order A17 (refund R-1).", str(result)

    latest = "gen_ai_latest_experimental" in os.environ.get("OTEL_SEMCONV_STABILITY_OPT_IN", "")
    name = "strands_otel_latest.jsonl" if latest else "strands_otel.jsonl"
    write_otlp_json(exporter.get_finished_spans(), out_dir / name)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
