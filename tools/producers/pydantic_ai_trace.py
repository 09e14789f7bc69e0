"""Write Pydantic AI's own OpenTelemetry spans, and OpenInference's version of them, offline.

Drives ``pydantic-ai-slim`` 2.78.0 (``Agent`` on ``OpenAIChatModel`` / ``OpenAIProvider`` over
``openai`` 3.63.0, its HTTP client an ``httpx2.AsyncClient`` on ``httpx2.MockTransport``
serving recorded chat-completions replies: no network, no key) with pydantic-ai's own
instrumentation (the ``Instrumentation`` capability with
``InstrumentationSettings(tracer_provider=...)``, the default data format,
version 5: the spans Logfire shows, here on a plain ``opentelemetry-sdk`` 1.45.2 tracer
provider, no Logfire), and writes the spans twice:

1. ``pydantic_ai_otel.jsonl``: pydantic-ai's spans as they are exported.
2. ``pydantic_ai_openinference.jsonl``: the same run again with
   ``openinference-instrumentation-pydantic-ai`` 0.1.30's ``OpenInferenceSpanProcessor`` on
   the provider (before the exporter), which adds OpenInference attributes
   (``openinference.span.kind``, ``input.value``, ``tool.name``...) to pydantic-ai's spans in
   place.

One trace per file (``refund-A17``): agent ``support`` (tools ``lookup_order``,
``search_kb``, ``ask_billing``) gets two calls in its first response (``lookup_order`` and
``search_kb``: a tool returning two documents with ids, pydantic-ai has no retriever of
its own), then delegates with ``ask_billing``, a tool that runs agent ``billing``
(``billing.run(..., usage=ctx.usage)``, the agent-delegation pattern of pydantic-ai's
docs). ``billing`` calls ``issue_refund``, which raises ``ModelRetry("payment gateway
timeout")`` (the tool error pydantic-ai hands back to the model), then again with success,
and answers; ``support`` answers. Six model calls, each with recorded token usage.

Ids and times: ids from ``_oi_export.CountingIds``; times are real.

Usage: ``python tools/producers/pydantic_ai_trace.py OUT_DIR``. Not run in CI; not imported
by the package.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx2
from _oi_export import CountingIds, write_otlp_json
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.capabilities import Instrumentation
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

KB = [
    {"id": "kb-refunds", "text": "Damaged items are refunded in full within 30 days."},
    {"id": "kb-payments", "text": "Refunds go back to the original payment method."},
]


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
                "message": {"role": "assistant", "content": None, **message},
                "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


REFUND = {"order_id": "A17", "amount": 25.0}
#: tokens: 160 + 230 + 95 + 130 + 150 + 310 = 1075
REPLIES = [
    # support
    _reply(
        1,
        {
            "tool_calls": [
                _call("call_lookup", "lookup_order", {"order_id": "A17"}),
                _call("call_kb", "search_kb", {"query": "refund policy for damaged items"}),
            ]
        },
        120,
        40,
    ),
    _reply(
        2,
        {
            "tool_calls": [
                _call("call_billing", "ask_billing", {"request": "Refund 25.00 EUR on order A17."})
            ]
        },
        200,
        30,
    ),
    # billing
    _reply(3, {"tool_calls": [_call("call_refund_1", "issue_refund", REFUND)]}, 80, 15),
    _reply(4, {"tool_calls": [_call("call_refund_2", "issue_refund", REFUND)]}, 115, 15),
    _reply(5, {"content": "Refund R-1 of 25.00 EUR issued for order A17."}, 140, 10),
    # support
    _reply(6, {"content": "Refunded 25.00 EUR on order A17 (refund R-1)."}, 290, 20),
]


def serve(replies: list[dict[str, Any]]) -> httpx2.AsyncClient:
    """An HTTP client whose every chat-completions request gets the next recorded reply."""
    queue = list(replies)

    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        return httpx2.Response(200, json=queue.pop(0))

    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))


def agents(settings: InstrumentationSettings) -> Agent[None, str]:
    model = OpenAIChatModel(
        "gpt-4o-mini",
        provider=OpenAIProvider(
            base_url="http://127.0.0.1:9/v1", api_key="x", http_client=serve(REPLIES)
        ),
    )
    billing: Agent[None, str] = Agent(
        model,
        name="billing",
        instructions="You issue refunds.",
        capabilities=[Instrumentation(settings=settings)],
    )
    support: Agent[None, str] = Agent(
        model,
        name="support",
        instructions="You help customers; billing issues refunds.",
        capabilities=[Instrumentation(settings=settings)],
    )
    attempts = {"refund": 0}

    @billing.tool_plain
    def issue_refund(order_id: str, amount: float) -> str:
        """Refund an amount on an order."""
        attempts["refund"] += 1
        if attempts["refund"] == 1:
            raise ModelRetry("payment gateway timeout")
        return f"refund R-1 of {amount:.2f} for {order_id}"

    @support.tool_plain
    def lookup_order(order_id: str) -> dict[str, Any]:
        """Look up an order by its id."""
        return {"order_id": order_id, "status": "delivered", "total": 25.0}

    @support.tool_plain
    def search_kb(query: str) -> list[dict[str, str]]:
        """Search the policy knowledge base."""
        return list(KB)

    @support.tool
    async def ask_billing(ctx: RunContext[None], request: str) -> str:
        """Ask the billing agent to do something."""
        result = await billing.run(request, usage=ctx.usage)
        return result.output

    return support


def record(with_openinference: bool) -> list[Any]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider(id_generator=CountingIds())
    if with_openinference:
        from openinference.instrumentation.pydantic_ai import OpenInferenceSpanProcessor

        tracer_provider.add_span_processor(OpenInferenceSpanProcessor())
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    support = agents(InstrumentationSettings(tracer_provider=tracer_provider))
    result = asyncio.run(support.run("Refund order A17 if the policy allows it."))
    assert result.output == "Refunded 25.00 EUR on order A17 (refund R-1).", result.output
    assert result.usage.total_tokens == 1075, result.usage
    return list(exporter.get_finished_spans())


def main(out_dir: Path) -> None:
    write_otlp_json(record(False), out_dir / "pydantic_ai_otel.jsonl")
    write_otlp_json(record(True), out_dir / "pydantic_ai_openinference.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
