"""Write a Traceloop (OpenLLMetry) trace of an agent using OpenAI and MCP, offline (not run in CI).

Drives ``traceloop-sdk`` (its ``@workflow``/``@agent``/``@tool``/``@task`` decorators) with the
OpenLLMetry instrumentations ``opentelemetry-instrumentation-openai`` (the OpenAI client) and
``opentelemetry-instrumentation-mcp`` (the ``mcp`` client, 1.x). The OpenAI client's
``httpx.Client`` has an ``httpx.MockTransport`` serving recorded chat-completions replies and
the MCP server runs in process over the SDK's in-memory streams: no network. ``Traceloop.init``
gets an in-memory span exporter (no API key, telemetry and metrics off), so nothing is sent.
The spans are written as OTLP/JSON the way the OpenTelemetry file exporter writes them (see
``_oi_export.py``). Not imported by the package.

One trace, ``refund-A17`` (workflow ``refund_flow``):

- the MCP client lists the server's tools (``tools/list.mcp``, its result recorded);
- agent ``support_agent``: reply 1 asks for ``lookup_order`` (an MCP tool: span
  ``lookup_order.tool``) and ``search_kb`` (a local ``@tool``) in one response; reply 2 for
  ``issue_refund`` (MCP), which returns an ``isError`` result; reply 3 for ``issue_refund``
  again, which succeeds; reply 4 answers; a ``@task`` formats the answer.

Usage: ``python tools/producers/traceloop_openai_mcp.py OUT_DIR`` writes
``traceloop_openai_mcp.jsonl``.
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
        "TRACELOOP_TRACE_CONTENT": "true",
        "TRACELOOP_METRICS_ENABLED": "false",
        "TRACELOOP_LOGGING_ENABLED": "false",
        "TRACELOOP_TELEMETRY": "false",
    }
)

from mcp.server.fastmcp import FastMCP
from mcp.shared.memory import create_connected_server_and_client_session
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from traceloop.sdk import Traceloop
from traceloop.sdk.decorators import agent, task, tool, workflow
from traceloop.sdk.instruments import Instruments

sys.path.insert(0, str(Path(__file__).parent))
from _oi_export import write_otlp_json
from _otel_common import REFUND_A17, REFUND_QUESTION, openai_client

server = FastMCP(name="orders")
ATTEMPTS = {"refund": 0}


@server.tool()
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return json.dumps({"order_id": order_id, "status": "delivered"})


@server.tool()
def issue_refund(order_id: str) -> str:
    """Refund an order (fails once: the gateway times out)."""
    ATTEMPTS["refund"] += 1
    if ATTEMPTS["refund"] == 1:
        raise RuntimeError("payment gateway timeout")
    return json.dumps({"refund_id": "R-1"})


@tool(name="search_kb")
def search_kb(query: str) -> list[str]:
    """The application's own retriever tool."""
    return ["kb-refunds", "kb-warranty"]


@task(name="format_answer")
def format_answer(text: str) -> str:
    return text.strip()


def _schemas(tools: Any) -> list[dict[str, Any]]:
    out = [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.inputSchema},
        }
        for t in tools.tools
    ]
    out.append(
        {
            "type": "function",
            "function": {
                "name": "search_kb",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
            },
        }
    )
    return out


@agent(name="support_agent")
async def support_agent(client: Any, session: Any, question: str) -> str:
    tools = _schemas(await session.list_tools())
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": question},
    ]
    for _ in range(6):
        reply = client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=tools, temperature=0
        )
        message = reply.choices[0].message
        if not message.tool_calls:
            return format_answer(message.content or "")
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            arguments = json.loads(call.function.arguments)
            if call.function.name == "search_kb":
                output = json.dumps(search_kb(**arguments))
            else:
                result = await session.call_tool(call.function.name, arguments)
                output = "\n".join(part.text for part in result.content)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
    return ""


@workflow(name="refund_flow")
async def refund_flow(question: str) -> str:
    client = openai_client(REFUND_A17)
    async with create_connected_server_and_client_session(server._mcp_server) as session:
        return await support_agent(client, session, question)


def main(out_dir: Path) -> None:
    exporter = InMemorySpanExporter()
    Traceloop.init(
        app_name="support-bot",
        exporter=exporter,
        disable_batch=True,
        telemetry_enabled=False,
        instruments={Instruments.OPENAI, Instruments.MCP},
        resource_attributes={"pathgrade.case_id": "refund-A17"},
    )
    print("answer:", asyncio.run(refund_flow(REFUND_QUESTION)))
    write_otlp_json(exporter.get_finished_spans(), out_dir / "traceloop_openai_mcp.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
