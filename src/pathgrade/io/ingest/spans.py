"""Spans from OTLP/JSON files (``TracesData`` per line) and from flat span JSON lines.

OTLP/JSON (the OpenTelemetry file exporter): each line is ``{"resourceSpans": [{"resource":
{"attributes": [...]}, "scopeSpans": [{"spans": [...]}]}]}``. Trace and span ids are hex
strings (not base64, unlike the generic protobuf JSON mapping); 64-bit integers
(``startTimeUnixNano``, ``intValue``) are decimal strings; attribute values are ``AnyValue``
objects (``stringValue``, ``intValue``, ``doubleValue``, ``boolValue``, ``arrayValue``,
``kvlistValue``, ``bytesValue``). ``status.code`` 2 (``STATUS_CODE_ERROR``) is an error.

Flat span JSON (the OpenTelemetry SDK's ``span.to_json()``, Phoenix exports): one span per
line, ``{"name", "context": {"trace_id", "span_id"}, "parent_id", "start_time",
"end_time", "status": {"status_code"}, "attributes": {...}}`` with ``0x``-prefixed hex ids and
ISO-8601 or nanosecond times; nested attribute objects are flattened to dotted keys.

Spans of one trace may be spread over lines and come in any order; grouping and ordering is
done by the readers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.io.ingest._common import IngestOptions, json_lines, obj

_HEX = re.compile(r"[0-9a-fA-F]+")


@dataclass(frozen=True)
class Span:
    """One span, format-neutral. Times are unix nanoseconds (``None`` when absent)."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int | None
    end_ns: int | None
    attributes: Mapping[str, Any]
    error: str | None
    line: int
    order: int  # position in the file, to break start-time ties
    resource: Mapping[str, Any] = field(default_factory=dict)

    @property
    def start_s(self) -> float | None:
        return None if self.start_ns is None else self.start_ns / 1e9

    @property
    def end_s(self) -> float | None:
        return None if self.end_ns is None else self.end_ns / 1e9

    @property
    def latency_ms(self) -> float | None:
        if self.start_ns is None or self.end_ns is None or self.end_ns < self.start_ns:
            return None
        return (self.end_ns - self.start_ns) / 1e6


def _hex_id(value: Any, size: int, what: str, *, file: str, line: int) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(f"{what} is missing or not a string", file=file, line=line, field=what)
    text = value[2:] if value.startswith("0x") else value
    if len(text) != size or not _HEX.fullmatch(text):
        raise InputError(
            f"{what} must be {size} hex digits (OTLP/JSON ids are hex, not base64),"
            f" got {value[:40]!r}",
            file=file,
            line=line,
            field=what,
        )
    return text.lower()


def _int64(value: Any, what: str, *, file: str, line: int) -> int | None:
    if value is None or value == "" or value == 0 or value == "0":
        return None
    if isinstance(value, bool):
        raise InputError(f"{what} must be an integer", file=file, line=line, field=what)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise InputError(
        f"{what} must be an int64 (a decimal string), got {str(value)[:40]!r}",
        file=file,
        line=line,
        field=what,
    )


def any_value(value: Any) -> Any:
    """Python value of an OTLP ``AnyValue`` object."""
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "intValue" in value:
        raw = value["intValue"]
        try:
            return int(raw)
        except (TypeError, ValueError):
            return None
    if "doubleValue" in value:
        raw = value["doubleValue"]
        try:
            return float(raw)
        except (TypeError, ValueError):
            return None
    if "arrayValue" in value:
        items = (value["arrayValue"] or {}).get("values") or []
        return [any_value(v) for v in items] if isinstance(items, list) else None
    if "kvlistValue" in value:
        return key_values((value["kvlistValue"] or {}).get("values"))
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def key_values(items: Any) -> dict[str, Any]:
    """An OTLP ``KeyValue`` list as a dict (entries without a string key are dropped)."""
    out: dict[str, Any] = {}
    if not isinstance(items, list):
        return out
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = any_value(item.get("value"))
    return out


def _status_error(status: Any, attributes: Mapping[str, Any]) -> str | None:
    if not isinstance(status, dict):
        return None
    code = status.get("code", status.get("status_code"))
    if code in (2, "2", "STATUS_CODE_ERROR", "ERROR"):
        message = status.get("message") or status.get("description")
        kind = attributes.get("error.type") or attributes.get("exception.message")
        return str(message or kind or "error")
    return None


def otlp_spans(path: str | Path, options: IngestOptions) -> Iterator[Span]:
    """Every span of an OTLP/JSON Lines file, with its line; bad lines go to ``options``."""
    name = str(path)
    order = 0
    for line, record in json_lines(path, options):
        try:
            spans = list(_otlp_record(record, name, line, order))
        except InputError as error:
            options.fail(error)
            continue
        order += len(spans)
        yield from spans


def _otlp_record(record: Any, file: str, line: int, order: int) -> Iterator[Span]:
    if not isinstance(record, dict) or not isinstance(record.get("resourceSpans"), list):
        raise InputError(
            "expected an OTLP TracesData object with 'resourceSpans'", file=file, line=line
        )
    for resource_spans in record["resourceSpans"]:
        if not isinstance(resource_spans, dict):
            raise InputError("resourceSpans entries must be objects", file=file, line=line)
        resource = key_values((resource_spans.get("resource") or {}).get("attributes"))
        for scope in resource_spans.get("scopeSpans") or []:
            spans = scope.get("spans") if isinstance(scope, dict) else None
            if not isinstance(spans, list):
                raise InputError("scopeSpans entries need a 'spans' list", file=file, line=line)
            for raw in spans:
                if not isinstance(raw, dict):
                    raise InputError("spans must be objects", file=file, line=line)
                attributes = key_values(raw.get("attributes"))
                parent = raw.get("parentSpanId")
                yield Span(
                    trace_id=_hex_id(raw.get("traceId"), 32, "traceId", file=file, line=line),
                    span_id=_hex_id(raw.get("spanId"), 16, "spanId", file=file, line=line),
                    parent_id=_hex_id(parent, 16, "parentSpanId", file=file, line=line)
                    if parent
                    else None,
                    name=str(raw.get("name") or ""),
                    start_ns=_int64(
                        raw.get("startTimeUnixNano"), "startTimeUnixNano", file=file, line=line
                    ),
                    end_ns=_int64(
                        raw.get("endTimeUnixNano"), "endTimeUnixNano", file=file, line=line
                    ),
                    attributes=attributes,
                    error=_status_error(raw.get("status"), attributes),
                    line=line,
                    order=order,
                    resource=resource,
                )
                order += 1


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), item, out)
    else:
        out[prefix] = value


def time_ns(value: Any, what: str, *, file: str, line: int) -> int | None:
    if isinstance(value, str) and not value.isdigit():
        try:
            stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise InputError(
                f"{what} is not an ISO-8601 time: {value[:40]!r}", file=file, line=line, field=what
            ) from None
        return round(stamp.timestamp() * 1e9)
    return _int64(value, what, file=file, line=line)


def flat_spans(path: str | Path, options: IngestOptions) -> Iterator[Span]:
    """Every span of a file of flat span JSON objects (one per line, or one JSON array)."""
    name = str(path)
    order = 0
    for line, record in json_lines(path, options):
        items = record if isinstance(record, list) else [record]
        for item in items:
            try:
                span = _flat_span(item, name, line, order)
            except InputError as error:
                options.fail(error)
                continue
            order += 1
            yield span


def _flat_span(raw: Any, file: str, line: int, order: int) -> Span:
    if not isinstance(raw, dict):
        raise InputError("expected a span object", file=file, line=line)
    context = obj(raw.get("context")) or raw
    attributes: dict[str, Any] = {}
    if isinstance(raw.get("attributes"), dict):
        _flatten("", raw["attributes"], attributes)
    parent = raw.get("parent_id")
    status = raw.get("status")
    if status is None and "status_code" in raw:
        status = {"status_code": raw["status_code"], "message": raw.get("status_message")}
    return Span(
        trace_id=_hex_id(context.get("trace_id"), 32, "trace_id", file=file, line=line),
        span_id=_hex_id(context.get("span_id"), 16, "span_id", file=file, line=line),
        parent_id=_hex_id(parent, 16, "parent_id", file=file, line=line) if parent else None,
        name=str(raw.get("name") or ""),
        start_ns=time_ns(raw.get("start_time"), "start_time", file=file, line=line),
        end_ns=time_ns(raw.get("end_time"), "end_time", file=file, line=line),
        attributes=attributes,
        error=_status_error(status, attributes),
        line=line,
        order=order,
        resource=dict(raw["resource"]["attributes"])
        if isinstance(raw.get("resource"), dict)
        and isinstance(raw["resource"].get("attributes"), dict)
        else {},
    )


def by_trace(spans: Iterator[Span]) -> dict[str, list[Span]]:
    """Spans grouped by trace id, in first-seen order of the traces."""
    out: dict[str, list[Span]] = {}
    for span in spans:
        out.setdefault(span.trace_id, []).append(span)
    return out


def time_order(spans: list[Span]) -> list[Span]:
    """Spans by start time, then file order (spans without a start time last)."""
    return sorted(spans, key=lambda s: (s.start_ns is None, s.start_ns or 0, s.order))


def ancestors(span: Span, index: Mapping[str, Span]) -> Iterator[Span]:
    """The span's ancestors, nearest first (cycles are cut)."""
    seen = {span.span_id}
    current = span
    while current.parent_id and current.parent_id in index and current.parent_id not in seen:
        current = index[current.parent_id]
        seen.add(current.span_id)
        yield current
