"""An OTLP ``ExportTraceServiceRequest`` (the real ``opentelemetry-proto`` message) as the
OTLP/JSON object the trace readers read (:func:`pathgrade.io.ingest.spans.otlp_record`).

The OTLP/JSON encoding (opentelemetry-proto, "JSON Protobuf Encoding") differs from
protobuf's generic JSON mapping in two ways that matter here: trace and span ids are hex,
not base64, and enums are integers. Both are followed; 64-bit integers are decimal strings.
"""

from __future__ import annotations

import base64
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

__all__ = ["MAX_VALUE_DEPTH", "any_value", "parse_request", "request_json"]

#: Arrays and maps nested deeper than this are cut (the readers keep 16 levels).
MAX_VALUE_DEPTH = 16


def parse_request(body: bytes) -> ExportTraceServiceRequest:
    """The request message of ``body`` (``google.protobuf.message.DecodeError`` if it is not
    one)."""
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    return request


def any_value(value: AnyValue, depth: int = 0) -> dict[str, Any]:
    """An ``AnyValue`` as OTLP/JSON (``{"stringValue": ...}``, ``{"intValue": "7"}``, ...)."""
    which = value.WhichOneof("value")
    if which == "string_value":
        return {"stringValue": value.string_value}
    if which == "int_value":
        return {"intValue": str(value.int_value)}
    if which == "double_value":
        return {"doubleValue": value.double_value}
    if which == "bool_value":
        return {"boolValue": value.bool_value}
    if which == "bytes_value":
        return {"bytesValue": base64.b64encode(value.bytes_value).decode("ascii")}
    if depth >= MAX_VALUE_DEPTH:
        return {}
    if which == "array_value":
        return {
            "arrayValue": {"values": [any_value(v, depth + 1) for v in value.array_value.values]}
        }
    if which == "kvlist_value":
        return {"kvlistValue": {"values": _key_values(value.kvlist_value.values, depth + 1)}}
    return {}


def _key_values(items: Any, depth: int = 0) -> list[dict[str, Any]]:
    out = []
    for item in items:
        kv: KeyValue = item
        out.append({"key": kv.key, "value": any_value(kv.value, depth)})
    return out


def _span(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": span.trace_id.hex(),
        "spanId": span.span_id.hex(),
        "name": span.name,
        "kind": span.kind,
        "startTimeUnixNano": str(span.start_time_unix_nano),
        "endTimeUnixNano": str(span.end_time_unix_nano),
        "attributes": _key_values(span.attributes),
        "status": {"code": span.status.code, "message": span.status.message},
    }
    if span.parent_span_id:
        out["parentSpanId"] = span.parent_span_id.hex()
    if span.events:
        out["events"] = [
            {
                "name": e.name,
                "timeUnixNano": str(e.time_unix_nano),
                "attributes": _key_values(e.attributes),
            }
            for e in span.events
        ]
    return out


def request_json(request: ExportTraceServiceRequest) -> dict[str, Any]:
    """``request`` as an OTLP/JSON ``TracesData`` object (``{"resourceSpans": [...]}``)."""
    resource_spans = []
    for rs in request.resource_spans:
        scopes = [
            {
                "scope": {"name": ss.scope.name, "version": ss.scope.version},
                "spans": [_span(s) for s in ss.spans],
            }
            for ss in rs.scope_spans
        ]
        resource = {"attributes": _key_values(rs.resource.attributes)}
        resource_spans.append({"resource": resource, "scopeSpans": scopes})
    return {"resourceSpans": resource_spans}
