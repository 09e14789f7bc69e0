"""Builders of small trace files for the reader tests (OTLP/JSON spans, JSON lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

TRACE_A = "5b8efff798038103d269b633813fc60c"
TRACE_B = "0af7651916cd43dd8448eb211c80319c"
T0 = 1_700_000_000_000_000_000  # unix ns


def value(v: Any) -> dict[str, Any]:
    """An OTLP AnyValue (int64 as a decimal string)."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [value(x) for x in v]}}
    return {"stringValue": v}


def span(
    trace: str,
    span_id: int,
    parent: int | None,
    start_ms: int,
    end_ms: int,
    attributes: dict[str, Any],
    *,
    name: str = "",
    error: str | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": trace,
        "spanId": f"{span_id:016x}",
        "name": name or str(attributes.get("gen_ai.operation.name", "span")),
        "kind": 1,
        "startTimeUnixNano": str(T0 + start_ms * 1_000_000),
        "endTimeUnixNano": str(T0 + end_ms * 1_000_000),
        "attributes": [{"key": k, "value": value(v)} for k, v in attributes.items()],
        "status": {"code": 2, "message": error} if error else {},
    }
    if parent is not None:
        out["parentSpanId"] = f"{parent:016x}"
    return out


def traces_line(spans: list[dict[str, Any]], resource: dict[str, Any] | None = None) -> bytes:
    doc = {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [
                        {"key": k, "value": value(v)} for k, v in (resource or {}).items()
                    ]
                },
                "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}],
            }
        ]
    }
    return orjson.dumps(doc)


def write_lines(path: Path, lines: list[bytes | Any]) -> Path:
    path.write_bytes(
        b"".join((x if isinstance(x, bytes) else orjson.dumps(x)) + b"\n" for x in lines)
    )
    return path
