"""Write a Langfuse trace export from a run of the Langfuse SDK, offline (not run in CI).

Drives the OpenTelemetry-based Langfuse Python SDK v3 (``pip install "langfuse>=3,<4"``):
an agent observation, model calls through the SDK's OpenAI drop-in (``langfuse.openai``)
answered by recorded chat-completions replies over an ``httpx.MockTransport``, tools
through the ``@observe(as_type="tool")`` decorator (one raises, which the SDK records as
``level: ERROR``) and a retriever observation. The SDK exports its spans to a stub Langfuse
host on 127.0.0.1, which keeps the OTLP/HTTP protobuf bodies it is sent (no network).

The Langfuse server, which turns those spans into the API's observations, is not run: the
captured spans are mapped to the SDK's own API models (``TraceWithFullDetails``,
``ObservationsView`` of ``langfuse.api``) following the documented attribute mapping
(``langfuse.observation.type``/``input``/``output``/``level``/``status_message``/
``usage_details``/``model.name``, ``langfuse.trace.*``, ``session.id``, ``user.id``; JSON
attribute values decoded), and serialised with the models' ``json()``. The server's renaming
of OpenAI usage keys (``prompt_tokens`` -> ``input`` ...) is applied; costs are left empty
(the server computes them from its model price table).

Writes ``OUT_DIR/langfuse_trace.json`` (the body of ``GET /api/public/traces/{id}``) and
``OUT_DIR/langfuse_observations_page.json`` (a ``GET /api/public/observations`` page).

Usage: ``python tools/producers/langfuse_trace.py OUT_DIR``
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import httpx
from google.protobuf.json_format import MessageToDict
from langfuse import Langfuse, get_client, observe
from langfuse.api.resources.commons.types import ObservationsView, TraceWithFullDetails, Usage
from langfuse.openai import OpenAI
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

BODIES: list[bytes] = []


class Stub(BaseHTTPRequestHandler):
    """A Langfuse host that accepts everything and keeps the OTLP trace exports."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.endswith("/otel/v1/traces"):
            BODIES.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def do_GET(self) -> None:
        self.do_POST()

    def log_message(self, *args: Any) -> None:
        pass


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


REPLIES = [
    _reply(1, {"tool_calls": [_call("call_kb", "search_kb", {"query": "refund window"})]}, 90, 18),
    _reply(
        2,
        {
            "tool_calls": [
                _call("call_order", "lookup_order", {"order_id": "A17"}),
                _call("call_calc", "calculator", {"expression": "25 * 0.5"}),
            ]
        },
        160,
        40,
    ),
    _reply(3, {"content": "You can get 12.50 EUR back within 30 days."}, 230, 14),
]
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("search_kb", "lookup_order", "calculator")
]


class Replies:
    def __init__(self) -> None:
        self.next = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = REPLIES[self.next]
        self.next += 1
        return httpx.Response(200, json=body)


@observe(as_type="tool")
def lookup_order(order_id: str) -> dict[str, Any]:
    raise ConnectionError("order service unavailable")


@observe(as_type="tool")
def calculator(expression: str) -> float:
    return 25 * 0.5 if expression == "25 * 0.5" else 0.0


def search_kb(query: str) -> list[dict[str, Any]]:
    with get_client().start_as_current_observation(
        as_type="retriever", name="search_kb", input={"query": query, "top_k": 2}
    ) as retriever:
        docs = [
            {"id": "kb-12", "score": 0.82, "text": "Refunds within 30 days."},
            {"id": "kb-40", "score": 0.41, "text": "Partial refunds for opened items."},
        ]
        retriever.update(output={"documents": docs})
        return docs


def agent(client: OpenAI) -> str:
    lf = get_client()
    question = "How much of order A17 can I get back?"
    with lf.start_as_current_observation(
        as_type="agent", name="support-agent", input={"question": question}
    ) as span:
        span.update_trace(
            name="support",
            session_id="session-42",
            user_id="user-7",
            tags=["refunds"],
            metadata={"pathgrade.case_id": "kb-refund"},
            input={"question": question},
        )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": "Answer from the knowledge base."},
            {"role": "user", "content": question},
        ]
        while True:
            reply = client.chat.completions.create(
                model="gpt-4o-mini", messages=messages, tools=TOOLS, name="chat"
            )
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                break
            for call in message.tool_calls:
                arguments = json.loads(call.function.arguments)
                try:
                    if call.function.name == "search_kb":
                        result: Any = search_kb(**arguments)
                    elif call.function.name == "lookup_order":
                        result = lookup_order(**arguments)
                    else:
                        result = calculator(**arguments)
                    content = json.dumps(result)
                except ConnectionError as error:
                    content = f"error: {error}"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        answer = message.content or ""
        span.update(output=answer)
        span.update_trace(output={"answer": answer})
    return answer


def _value(value: dict[str, Any]) -> Any:
    """An OTLP AnyValue (protobuf JSON mapping) as a Python value."""
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_value(v) for v in value["arrayValue"].get("values", [])]
    return None


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _time(nanos: str) -> dt.datetime:
    return dt.datetime.fromtimestamp(int(nanos) / 1e9, tz=dt.UTC)


def _hex(b64: str) -> str:
    """A span id as the API writes it: hex (the protobuf JSON mapping gives base64)."""
    return base64.b64decode(b64).hex()


def spans() -> list[dict[str, Any]]:
    """The captured spans, each with ``resource`` attributes and ``scope`` added."""
    out = []
    for body in BODIES:
        request = MessageToDict(ExportTraceServiceRequest.FromString(body))
        for resource in request.get("resourceSpans", []):
            attributes = resource.get("resource", {}).get("attributes", [])
            resource_attrs = {a["key"]: _value(a["value"]) for a in attributes}
            for scope in resource.get("scopeSpans", []):
                for span in scope.get("spans", []):
                    out.append({**span, "resource": resource_attrs, "scope": scope["scope"]})
    return out


#: The server's renaming of OpenAI usage keys (null entries dropped).
USAGE_KEYS = {"prompt_tokens": "input", "completion_tokens": "output", "total_tokens": "total"}


def observation(span: dict[str, Any]) -> ObservationsView:
    attrs = {a["key"]: _value(a["value"]) for a in span.get("attributes", [])}
    prefix = "langfuse.observation.metadata."
    metadata = {k[len(prefix) :]: _json(v) for k, v in attrs.items() if k.startswith(prefix)}
    metadata["resourceAttributes"] = span["resource"]
    metadata["scope"] = {k: span["scope"].get(k) for k in ("name", "version")}
    recorded = _json(attrs.get("langfuse.observation.usage_details")) or {}
    usage = {USAGE_KEYS.get(k, k): v for k, v in recorded.items() if isinstance(v, int)}
    cost = _json(attrs.get("langfuse.observation.cost_details")) or {}
    start, end = _time(span["startTimeUnixNano"]), _time(span["endTimeUnixNano"])
    level = attrs.get("langfuse.observation.level") or "DEFAULT"
    return ObservationsView(
        id=_hex(span["spanId"]),
        trace_id=_hex(span["traceId"]),
        type=str(attrs.get("langfuse.observation.type", "span")).upper(),
        name=span["name"],
        start_time=start,
        end_time=end,
        completion_start_time=None,
        model=attrs.get("langfuse.observation.model.name"),
        model_parameters=_json(attrs.get("langfuse.observation.model.parameters")),
        input=_json(attrs.get("langfuse.observation.input")),
        version=None,
        metadata=metadata,
        output=_json(attrs.get("langfuse.observation.output")),
        usage=Usage(
            input=usage.get("input", 0),
            output=usage.get("output", 0),
            total=usage.get("total", 0),
            unit="TOKENS",
        ),
        level=level,
        status_message=attrs.get("langfuse.observation.status_message"),
        parent_observation_id=_hex(span["parentSpanId"]) if span.get("parentSpanId") else None,
        prompt_id=None,
        usage_details=usage,
        cost_details=cost,
        environment=attrs.get("langfuse.environment", "default"),
        prompt_name=None,
        prompt_version=None,
        model_id=None,
        input_price=None,
        output_price=None,
        total_price=None,
        calculated_input_cost=None,
        calculated_output_cost=None,
        calculated_total_cost=None,
        latency=(end - start).total_seconds(),
        time_to_first_token=None,
    )


def trace(raw: list[dict[str, Any]], observations: list[ObservationsView]) -> TraceWithFullDetails:
    attrs: dict[str, Any] = {}
    for span in raw:  # trace attributes are set on the spans that updated the trace
        attrs.update({a["key"]: _value(a["value"]) for a in span.get("attributes", [])})
    prefix = "langfuse.trace.metadata."
    metadata = {k[len(prefix) :]: _json(v) for k, v in attrs.items() if k.startswith(prefix)}
    root = next(o for o in observations if o.parent_observation_id is None)
    return TraceWithFullDetails(
        id=root.trace_id,
        timestamp=root.start_time,
        name=attrs.get("langfuse.trace.name"),
        input=_json(attrs.get("langfuse.trace.input")),
        output=_json(attrs.get("langfuse.trace.output")),
        session_id=attrs.get("session.id"),
        release=None,
        version=None,
        user_id=attrs.get("user.id"),
        metadata=metadata,
        tags=attrs.get("langfuse.trace.tags") or [],
        public=False,
        environment="default",
        html_path=f"/project/local/traces/{root.trace_id}",
        latency=root.latency,
        total_cost=None,
        observations=sorted(observations, key=lambda o: o.start_time),
        scores=[],
    )


def main(out_dir: str) -> None:
    server = HTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Langfuse(
        public_key="pk-lf-local",
        secret_key="sk-lf-local",
        host=f"http://127.0.0.1:{server.server_port}",
    )
    client = OpenAI(
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(Replies())),
        max_retries=0,
    )
    print("answer:", agent(client))
    get_client().flush()
    server.shutdown()
    raw = spans()
    observations = [observation(s) for s in raw]
    out = Path(out_dir)
    full = trace(raw, observations)
    (out / "langfuse_trace.json").write_text(
        json.dumps(json.loads(full.json()), indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    page = {
        "data": [json.loads(o.json()) for o in full.observations],
        "meta": {"page": 1, "limit": 50, "totalItems": len(observations), "totalPages": 1},
    }
    (out / "langfuse_observations_page.json").write_text(
        json.dumps(page, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main(sys.argv[1])
