"""Builders of OTLP requests for the collector's tests: real ``opentelemetry-proto``
messages, and their OTLP/JSON form."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

#: (trace id hex, span id hex, parent hex or "", name, attributes, error or None)
SpanSpec = tuple[str, str, str, str, dict[str, Any], str | None]


def _value(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    return AnyValue(string_value=str(value))


def request(specs: Sequence[SpanSpec], start: int = 1_700_000_000_000_000_000) -> bytes:
    """A serialized ``ExportTraceServiceRequest`` of ``specs`` (one resource, one scope)."""
    message = ExportTraceServiceRequest()
    rs = message.resource_spans.add()
    rs.resource.attributes.append(KeyValue(key="service.name", value=_value("toy")))
    ss = rs.scope_spans.add()
    ss.scope.name = "tests"
    for k, (trace, span_id, parent, name, attributes, error) in enumerate(specs):
        span = Span(
            trace_id=bytes.fromhex(trace),
            span_id=bytes.fromhex(span_id),
            parent_span_id=bytes.fromhex(parent) if parent else b"",
            name=name,
            kind=Span.SPAN_KIND_INTERNAL,
            start_time_unix_nano=start + k * 1_000_000,
            end_time_unix_nano=start + k * 1_000_000 + 500_000,
        )
        for key, value in attributes.items():
            span.attributes.append(KeyValue(key=key, value=_value(value)))
        if error is not None:
            span.status.CopyFrom(Status(code=Status.STATUS_CODE_ERROR, message=error))
        ss.spans.append(span)
    return message.SerializeToString()


def tool_trace(
    trace: str, calls: Sequence[tuple[str, dict[str, Any], str | None]]
) -> list[SpanSpec]:
    """An ``invoke_agent`` root and one ``execute_tool`` child a call (GenAI conventions)."""
    root = trace[:16]
    specs: list[SpanSpec] = []
    for k, (tool, arguments, error) in enumerate(calls):
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.arguments": json.dumps(arguments),
        }
        specs.append((trace, f"{k + 1:016x}", root, f"execute_tool {tool}", attributes, error))
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bot"}
    specs.append((trace, root, "", "invoke_agent bot", agent, None))
    return specs


class Builders:
    """The builders above, handed to tests as the ``otlp`` fixture."""

    request = staticmethod(request)
    tool_trace = staticmethod(tool_trace)


@pytest.fixture(scope="session")
def otlp() -> type[Builders]:
    return Builders
