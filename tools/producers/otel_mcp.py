"""Write OTel MCP-convention traces of an agent calling MCP tools, offline (not run in CI).

Drives the ``mcp`` Python SDK (2.3.0), which records MCP spans itself: a client span ``MCP
send tools/call <tool>`` (``mcp.method.name``, ``jsonrpc.request.id``) per request, and a
server span ``tools/call <tool>`` (``gen_ai.operation.name = execute_tool``,
``gen_ai.tool.name``; ``error.type = tool_error`` and an error status for an ``isError``
result), parented under the client span through the trace context it sends in ``_meta``. The
model calls are ``opentelemetry-instrumentation-openai-v2`` (2.4b0, latest conventions,
content ``span_only``) over an ``OpenAI`` client whose ``httpx.Client`` has an
``httpx.MockTransport`` serving recorded replies; the server runs in process (the SDK's
in-memory transport). No network. Spans are written as OTLP/JSON the way the OpenTelemetry
file exporter writes them. Not imported by the package.

Where the application wraps an MCP call in an ``execute_tool`` span with the arguments and
the ``CallToolResult`` JSON (what the OpenTelemetry contrib MCP client instrumentation
records), it uses ``opentelemetry-util-genai``'s handler.

Files:

1. ``otel_mcp.jsonl`` (mode ``client``), two traces (each under a plain ``support-session``
   span carrying ``pathgrade.case_id``):

   - ``refund-A17``: ``tools/list``; reply 1 asks for ``lookup_order`` and ``search_kb``
     (raw MCP calls: client and server spans); reply 2 for ``issue_refund`` (wrapped in an
     ``execute_tool`` span), which returns an ``isError`` result; reply 3 answers.
   - ``refund-B9``: the client process's own export only (the server's spans go to the
     server's backend): ``issue_refund`` wrapped in ``execute_tool``, whose recorded result
     has ``isError: true`` although every span's status is unset; then an answer.

2. ``otel_mcp_server.jsonl`` (mode ``server``): an MCP server's own export (resource
   ``service.name = orders-mcp``): its ``tools/call`` server spans only, one with an
   ``isError`` result.

Usage: ``python tools/producers/otel_mcp.py client|server OUT_DIR``.
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
    }
)

from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer
from opentelemetry import trace
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind
from opentelemetry.util.genai.handler import TelemetryHandler

sys.path.insert(0, str(Path(__file__).parent))
from _oi_export import CountingIds
from _otel_common import call, openai_client, reply, write_otlp

REFUND_A17 = [
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
    reply(2, {"tool_calls": [call("call_refund", "issue_refund", {"order_id": "A17"})]}, 200, 15),
    reply(3, {"content": "The refund of order A17 failed: the gateway timed out."}, 240, 14),
]
REFUND_B9 = [
    reply(11, {"tool_calls": [call("call_refund_b9", "issue_refund", {"order_id": "B9"})]}, 90, 12),
    reply(12, {"content": "The refund of order B9 failed."}, 120, 8),
]


server = MCPServer(name="orders")


@server.tool()
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return json.dumps({"order_id": order_id, "status": "delivered"})


@server.tool()
def search_kb(query: str) -> list[str]:
    """Search the policy base."""
    return ["kb-refunds", "kb-warranty"]


@server.tool()
def issue_refund(order_id: str) -> str:
    """Refund an order (the gateway times out)."""
    raise RuntimeError("payment gateway timeout")


def _schemas(tools: Any) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in tools.tools
    ]


async def agent_loop(
    mcp: Client, llm: Any, handler: TelemetryHandler, question: str, wrapped: set[str]
) -> None:
    """The application's loop; the tools in ``wrapped`` get an ``execute_tool`` span."""
    tools = _schemas(await mcp.list_tools())
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(5):
        reply = llm.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=tools, temperature=0
        )
        message = reply.choices[0].message
        if not message.tool_calls:
            print("answer:", message.content)
            return
        messages.append(message.model_dump(exclude_none=True))
        for asked in message.tool_calls:
            name, arguments = asked.function.name, json.loads(asked.function.arguments)
            if name in wrapped:
                tool = handler.tool(name, tool_type="extension")
                tool.tool_call_id = asked.id
                tool.arguments = arguments
                with tool:
                    result = await mcp.call_tool(name, arguments)
                    tool.tool_result = result.model_dump_json(by_alias=True, exclude_none=True)
            else:
                result = await mcp.call_tool(name, arguments)
            text = "\n".join(getattr(part, "text", "") for part in result.content)
            messages.append({"role": "tool", "tool_call_id": asked.id, "content": text})


async def run(tracer_provider: TracerProvider) -> None:
    tracer = tracer_provider.get_tracer("support-bot")
    handler = TelemetryHandler(tracer_provider=tracer_provider)
    async with Client(server, mode="legacy") as mcp:
        attributes = {"pathgrade.case_id": "refund-A17"}
        with tracer.start_as_current_span("support-session", attributes=attributes):
            await agent_loop(
                mcp,
                openai_client(REFUND_A17),
                handler,
                "Please refund order A17, it arrived damaged.",
                {"issue_refund"},
            )
        attributes = {"pathgrade.case_id": "refund-B9"}
        with tracer.start_as_current_span("support-session", attributes=attributes):
            await agent_loop(
                mcp, openai_client(REFUND_B9), handler, "Refund order B9.", {"issue_refund"}
            )


def main(mode: str, out_dir: Path) -> None:
    service = "support-bot" if mode == "client" else "orders-mcp"
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider(
        id_generator=CountingIds(), resource=Resource.create({"service.name": service})
    )
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(tracer_provider)
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
    asyncio.run(run(tracer_provider))
    spans = list(exporter.get_finished_spans())
    sessions = [s for s in spans if s.name == "support-session"]
    if mode == "client":
        second = sessions[1].context.trace_id
        # refund-B9: the client process's export (server spans are exported by the server)
        kept = [s for s in spans if s.context.trace_id != second or s.kind != SpanKind.SERVER]
        write_otlp(kept, out_dir / "otel_mcp.jsonl")
    else:
        calls = [s for s in spans if s.kind == SpanKind.SERVER and s.name.startswith("tools/call")]
        write_otlp(calls, out_dir / "otel_mcp_server.jsonl")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
