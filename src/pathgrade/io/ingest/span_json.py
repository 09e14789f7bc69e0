"""Flat span JSON: one span object per line (or one JSON array), and attribute flattening.

The OpenTelemetry SDK's ``span.to_json()`` and Phoenix's exports write one span per line:
``{"name", "context": {"trace_id", "span_id"}, "parent_id", "start_time", "end_time",
"status": {"status_code"}, "attributes": {...}, "events": [...]}`` with ``0x``-prefixed hex
ids and ISO-8601 or nanosecond times; nested attribute objects are flattened to dotted keys
(:func:`flat_attributes`), so that every reader sees attributes as OTLP carries them. The
span model itself is :class:`pathgrade.io.ingest.spans.Span`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.io.ingest._common import MAX_NESTING, At, IngestOptions, json_lines, kind, obj, text
from pathgrade.io.ingest.spans import Span, events_of, hex_id, span_kind, status_error, time_ns


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
    events = events_of(raw.get("events"), flat=True)
    return Span(
        trace_id=hex_id(context.get("trace_id"), 32, ids.key("trace_id")),
        span_id=hex_id(context.get("span_id"), 16, ids.key("span_id")),
        parent_id=hex_id(parent, 16, ids.key("parent_id")) if parent else None,
        name=text(raw.get("name"), at.key("name")) or "",
        start_ns=time_ns(raw.get("start_time"), ids.key("start_time")),
        end_ns=time_ns(raw.get("end_time"), ids.key("end_time")),
        attributes=attributes,
        error=status_error(status, attributes, events),
        line=at.line,
        order=order,
        resource=dict(resource) if isinstance(resource, dict) else {},
        kind=span_kind(raw.get("kind")),
        events=events,
    )


def flat_attributes(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """Attributes with nested objects and lists of objects flattened to dotted keys.

    ``{"llm": {"output_messages": [{"message": {"role": "assistant"}}]}}`` and
    ``{"llm.output_messages": [{"message.role": "assistant"}]}`` both give
    ``{"llm.output_messages.0.message.role": "assistant"}``. Lists of scalars stay lists;
    ``None`` values (Parquet's padding of absent struct fields) are dropped; a key already
    present wins; nesting deeper than :data:`MAX_NESTING` is cut.
    """
    out: dict[str, Any] = {}
    stack: list[tuple[str, Any, int]] = [(str(k), v, 0) for k, v in reversed(list(attrs.items()))]
    while stack:
        key, value, depth = stack.pop()
        if value is None or depth > MAX_NESTING:
            continue
        if isinstance(value, dict):
            stack.extend((f"{key}.{k}", v, depth + 1) for k, v in reversed(value.items()))
        elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
            stack.extend((f"{key}.{i}", v, depth + 1) for i, v in reversed(list(enumerate(value))))
        else:
            out.setdefault(key, value)
    return out
