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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.io.ingest._common import (
    MAX_NESTING,
    At,
    IngestOptions,
    arr,
    json_lines,
    kind,
    obj,
    text,
)

_HEX = re.compile(r"[0-9a-fA-F]+")
_DIGITS = re.compile(r"[0-9]{1,20}")
_SIGNED = re.compile(r"-?[0-9]{1,20}")
_UINT64 = 2**64
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: An ISO-8601 time split at its fraction of a second: ``base``, ``fraction`` digits, ``zone``.
_ISO_FRACTION = re.compile(
    r"(?P<base>[0-9]{4}-?[0-9]{2}-?[0-9]{2}(?:[T ][0-9]{2}(?::?[0-9]{2}(?::?[0-9]{2})?)?)?)"
    r"(?:[.,](?P<fraction>[0-9]+))?(?P<zone>Z|[+-][0-9]{2}(?::?[0-9]{2})?)?",
    re.ASCII,
)


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


def _hex_id(value: Any, size: int, at: At) -> str:
    what = at.path
    if not isinstance(value, str) or not value:
        raise at.error(f"{what} is missing or not a string")
    digits = value[2:] if value.startswith("0x") else value
    if len(digits) != size or not _HEX.fullmatch(digits):
        raise at.error(
            f"{what} must be {size} hex digits (OTLP/JSON ids are hex, not base64),"
            f" got {value[:40]!r}"
        )
    return digits.lower()


def _int64(value: Any, at: At) -> int | None:
    if value is None or value == "" or value == 0 or value == "0":
        return None
    if isinstance(value, bool):
        raise at.error(f"{at.path} must be an integer")
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        value = int(value)
    if isinstance(value, int) and 0 <= value < _UINT64:
        return value
    raise at.error(f"{at.path} must be an int64 (a decimal string), got {str(value)[:40]!r}")


def any_value(value: Any, depth: int = 0) -> Any:
    """Python value of an OTLP ``AnyValue`` object (``None`` for what is not one).

    Arrays and key-value lists nested deeper than :data:`MAX_NESTING` levels are ``None``.
    """
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "intValue" in value:
        raw = value["intValue"]
        if isinstance(raw, str) and _SIGNED.fullmatch(raw.strip()):
            return int(raw)
        if isinstance(raw, float) and raw.is_integer():
            return int(raw)
        return raw if isinstance(raw, int) and not isinstance(raw, bool) else None
    if "doubleValue" in value:
        raw = value["doubleValue"]
        if isinstance(raw, int | float | str) and not isinstance(raw, bool):
            try:
                return float(raw)
            except ValueError:
                return None
        return None
    if depth >= MAX_NESTING:
        return None
    if "arrayValue" in value:
        inner = value["arrayValue"] or {}  # an empty array may be written as {} or null
        items = (inner.get("values") or []) if isinstance(inner, dict) else None
        return [any_value(v, depth + 1) for v in items] if isinstance(items, list) else None
    if "kvlistValue" in value:
        inner = value["kvlistValue"] or {}
        return key_values(inner.get("values"), depth + 1) if isinstance(inner, dict) else None
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def key_values(items: Any, depth: int = 0) -> dict[str, Any]:
    """An OTLP ``KeyValue`` list as a dict (entries without a string key are dropped)."""
    out: dict[str, Any] = {}
    if not isinstance(items, list):
        return out
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = any_value(item.get("value"), depth)
    return out


def _attributes(value: Any, at: At) -> dict[str, Any]:
    """The ``attributes`` KeyValue list of a resource or span (null: none)."""
    return key_values(arr(value, at))


def _status_error(status: Any, attributes: Mapping[str, Any]) -> str | None:
    if not isinstance(status, dict):
        return None
    code = status.get("code", status.get("status_code"))
    if code in (2, "2", "STATUS_CODE_ERROR", "ERROR"):
        message = status.get("message") or status.get("description")
        kind_ = attributes.get("error.type") or attributes.get("exception.message")
        return str(message or kind_ or "error")
    return None


def otlp_spans(path: str | Path, options: IngestOptions) -> Iterator[Span]:
    """Every span of an OTLP/JSON Lines file, with its line; bad lines go to ``options``."""
    name = str(path)
    order = 0
    for line, record in json_lines(path, options):
        try:
            spans = list(otlp_record(record, At(name, line), order))
        except InputError as error:
            options.fail(error)
            continue
        order += len(spans)
        yield from spans


def otlp_record(record: Any, at: At, order: int) -> Iterator[Span]:
    """The spans of one OTLP ``TracesData`` record (a line), numbered from ``order``; a value of
    the wrong JSON type is an :class:`InputError` naming its field path."""
    if not isinstance(record, dict) or "resourceSpans" not in record:
        raise at.error("expected an OTLP TracesData object with 'resourceSpans'")
    where = at.key("resourceSpans")
    for i, resource_spans in enumerate(arr(record["resourceSpans"], where, optional=False)):
        here = where.item(i)
        resource_spans = obj(resource_spans, here, optional=False)
        res_at = here.key("resource")
        resource = _attributes(
            obj(resource_spans.get("resource"), res_at).get("attributes"), res_at.key("attributes")
        )
        scopes_at = here.key("scopeSpans")
        for j, scope in enumerate(arr(resource_spans.get("scopeSpans"), scopes_at)):
            scope_at = scopes_at.item(j)
            spans_at = scope_at.key("spans")
            spans = arr(obj(scope, scope_at, optional=False).get("spans"), spans_at, optional=False)
            for k, raw in enumerate(spans):
                yield _otlp_span(raw, spans_at.item(k), order, resource)
                order += 1


def _otlp_span(raw: Any, at: At, order: int, resource: Mapping[str, Any]) -> Span:
    raw = obj(raw, at, optional=False)
    attributes = _attributes(raw.get("attributes"), at.key("attributes"))
    parent = raw.get("parentSpanId")
    ids = At(at.file, at.line)
    return Span(
        trace_id=_hex_id(raw.get("traceId"), 32, ids.key("traceId")),
        span_id=_hex_id(raw.get("spanId"), 16, ids.key("spanId")),
        parent_id=_hex_id(parent, 16, ids.key("parentSpanId")) if parent else None,
        name=text(raw.get("name"), at.key("name")) or "",
        start_ns=_int64(raw.get("startTimeUnixNano"), ids.key("startTimeUnixNano")),
        end_ns=_int64(raw.get("endTimeUnixNano"), ids.key("endTimeUnixNano")),
        attributes=attributes,
        error=_status_error(obj(raw.get("status"), at.key("status")), attributes),
        line=at.line,
        order=order,
        resource=resource,
    )


def _flatten(value: Mapping[str, Any], at: At) -> dict[str, Any]:
    """Nested attribute objects as dotted keys (``{"tool": {"name": x}}`` -> ``tool.name``)."""
    out: dict[str, Any] = {}
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack:
        prefix, item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > MAX_NESTING:
                raise at.error(f"nested deeper than {MAX_NESTING} levels")
            stack.extend(
                (f"{prefix}.{key}" if prefix else str(key), child, depth + 1)
                for key, child in reversed(item.items())
            )
        else:
            out[prefix] = item
    return out


def time_ns(value: Any, at: At) -> int | None:
    """Unix nanoseconds from an ISO-8601 time or an integer (a decimal string or a number).

    Exact: the seconds come from integer date arithmetic and the fraction's digits (up to
    nine: nanoseconds, which ``datetime`` would cut to microseconds) are read as an integer,
    so ``...:00.013875Z`` is 13,875,000 ns past the second, not a float's 13,874,944. A
    time without an offset is UTC (trace exporters write UTC).
    """
    if isinstance(value, str) and not _DIGITS.fullmatch(value):
        parts = _ISO_FRACTION.fullmatch(value.strip())
        try:
            if parts is None:
                raise ValueError(value)
            zone = (parts["zone"] or "").replace("Z", "+00:00")
            stamp = datetime.fromisoformat(parts["base"] + zone)
            if stamp.tzinfo is None:
                stamp = stamp.replace(tzinfo=UTC)
            seconds = (stamp - _EPOCH) // timedelta(seconds=1)
            fraction = (parts["fraction"] or "")[:9].ljust(9, "0")
            nanoseconds = seconds * 1_000_000_000 + int(fraction)
            if not 0 <= nanoseconds < _UINT64:  # what an OTLP time can be
                raise ValueError(value)
            return nanoseconds
        except (ValueError, OverflowError, OSError):
            raise at.error(f"{at.path} is not an ISO-8601 time: {value[:40]!r}") from None
    return _int64(value, at)


def flat_spans(path: str | Path, options: IngestOptions) -> Iterator[Span]:
    """Every span of a file of flat span JSON objects (one per line, or one JSON array)."""
    name = str(path)
    order = 0
    for line, record in json_lines(path, options):
        at = At(name, line)
        items = (
            [(item, at.item(i)) for i, item in enumerate(record)]
            if isinstance(record, list)
            else [(record, at)]
        )
        for item, where in items:
            try:
                span = _flat_span(item, where, order)
            except InputError as error:
                options.fail(error)
                continue
            order += 1
            yield span


def _flat_span(raw: Any, at: At, order: int) -> Span:
    if not isinstance(raw, dict):
        raise at.error(f"expected a span object, got {kind(raw)}")
    ids = At(at.file, at.line)
    context = obj(raw.get("context"), at.key("context")) or raw
    attributes = _flatten(obj(raw.get("attributes"), at.key("attributes")), at.key("attributes"))
    parent = raw.get("parent_id")
    status = raw.get("status")
    if status is None and "status_code" in raw:
        status = {"status_code": raw["status_code"], "message": raw.get("status_message")}
    resource = obj(raw.get("resource"), at.key("resource")).get("attributes")
    return Span(
        trace_id=_hex_id(context.get("trace_id"), 32, ids.key("trace_id")),
        span_id=_hex_id(context.get("span_id"), 16, ids.key("span_id")),
        parent_id=_hex_id(parent, 16, ids.key("parent_id")) if parent else None,
        name=text(raw.get("name"), at.key("name")) or "",
        start_ns=time_ns(raw.get("start_time"), ids.key("start_time")),
        end_ns=time_ns(raw.get("end_time"), ids.key("end_time")),
        attributes=attributes,
        error=_status_error(status, attributes),
        line=at.line,
        order=order,
        resource=dict(resource) if isinstance(resource, dict) else {},
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
