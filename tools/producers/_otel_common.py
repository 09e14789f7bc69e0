"""Shared by the OTel GenAI / MCP / OpenLLMetry producer scripts (not run in CI).

- :func:`reply` builds a recorded chat-completions reply, :func:`call` one of its tool calls;
  :class:`Replies` serves recorded replies to an ``httpx.MockTransport``, one per request;
  :func:`openai_client` is an ``OpenAI`` client on such a transport (no network);
- :data:`REFUND_A17` is the conversation several scripts record: reply 1 asks for
  ``lookup_order`` and ``search_kb`` in one response, reply 2 for ``issue_refund`` (its
  result is an error text), reply 3 for ``issue_refund`` again, reply 4 answers;
  :data:`TOOLS` are the tools the application declares, :func:`run_tool` runs them;
- :func:`write_otlp` writes spans (and log records) as OTLP/JSON lines the way the
  OpenTelemetry file exporter writes them: the SDK's protobuf encoding printed with
  ``google.protobuf.json_format``, trace and span ids turned from base64 into hex.

Not imported by the package.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def reply(
    number: int,
    message: dict[str, Any],
    prompt: int,
    completion: int,
    model: str = "gpt-4o-mini-2024-07-18",
) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000 + number,
        "model": model,
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
    reply(2, {"tool_calls": [call("call_refund_1", "issue_refund", {"order_id": "A17"})]}, 200, 15),
    reply(3, {"tool_calls": [call("call_refund_2", "issue_refund", {"order_id": "A17"})]}, 240, 15),
    reply(4, {"content": "Refunded order A17 (refund R-1)."}, 260, 10),
]
REFUND_QUESTION = "Please refund order A17, it arrived damaged."
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {key: {"type": "string"}}},
        },
    }
    for name, key in [
        ("lookup_order", "order_id"),
        ("search_kb", "query"),
        ("issue_refund", "order_id"),
        ("check_warranty", "order_id"),
    ]
]
KB = [{"id": "kb-refunds", "score": 0.92}, {"id": "kb-warranty", "score": 0.81}]


class Replies:
    """Serves recorded replies one per request."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = replies
        self.next = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        body = self.replies[self.next]
        self.next += 1
        return httpx.Response(200, json=body)


def openai_client(replies: list[dict[str, Any]]) -> Any:
    from openai import OpenAI

    return OpenAI(
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(Replies(replies))),
        max_retries=0,
    )


def run_tool(name: str, arguments: dict[str, Any], attempt: dict[str, int]) -> str:
    """The application's tools (``issue_refund`` fails the first time it is called)."""
    if name == "lookup_order":
        return json.dumps({"order_id": arguments["order_id"], "status": "delivered"})
    if name == "search_kb":
        return json.dumps([doc["id"] for doc in KB])
    if name == "issue_refund":
        attempt["refund"] = attempt.get("refund", 0) + 1
        if attempt["refund"] == 1:
            return "Error: payment gateway timeout"
        return json.dumps({"refund_id": "R-1"})
    if name == "check_warranty":
        raise RuntimeError("warranty service unavailable")
    raise KeyError(name)


def client_loop(client: Any, question: str, messages: list[dict[str, Any]] | None = None) -> None:
    """The application's own loop (no spans of its own): send, run the tools asked, repeat."""
    messages = [*(messages or []), {"role": "user", "content": question}]
    attempt: dict[str, int] = {}
    for _ in range(6):
        response = client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=TOOLS, temperature=0
        )
        message = response.choices[0].message
        if not message.tool_calls:
            print("answer:", message.content)
            return
        messages.append(message.model_dump(exclude_none=True))
        for tool_call in message.tool_calls:
            arguments = json.loads(tool_call.function.arguments)
            output = run_tool(tool_call.function.name, arguments, attempt)
            messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": output})


def _hex_ids(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: base64.b64decode(value).hex()
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str)
            else _hex_ids(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_hex_ids(item) for item in node]
    return node


def write_otlp(spans: Sequence[Any], path: Path, logs: Sequence[Any] = ()) -> None:
    """One ``TracesData`` line per trace, then one ``LogsData`` line (when there are logs)."""
    from google.protobuf import json_format
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    traces: dict[int, list[Any]] = {}
    for span in spans:
        traces.setdefault(span.context.trace_id, []).append(span)
    with path.open("w") as handle:
        for group in traces.values():
            message = json_format.MessageToDict(encode_spans(group))
            handle.write(json.dumps(_hex_ids(message), ensure_ascii=False) + "\n")
        if logs:
            from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

            message = json_format.MessageToDict(encode_logs(list(logs)))
            handle.write(json.dumps(_hex_ids(message), ensure_ascii=False) + "\n")
