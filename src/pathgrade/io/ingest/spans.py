"""Spans from OTLP/JSON files (``TracesData`` per line) and from flat span JSON lines.

OTLP/JSON (the OpenTelemetry file exporter): each line is ``{"resourceSpans": [{"resource":
{"attributes": [...]}, "scopeSpans": [{"spans": [...]}]}]}``. Trace and span ids are hex
strings (not base64, unlike the generic protobuf JSON mapping); 64-bit integers
(``startTimeUnixNano``, ``intValue``) are decimal strings; attribute values are ``AnyValue``
objects (``stringValue``, ``intValue``, ``doubleValue``, ``boolValue``, ``arrayValue``,
``kvlistValue``, ``bytesValue``). ``status.code`` 2 (``STATUS_CODE_ERROR``) is an error.

Flat span JSON (the OpenTelemetry SDK's ``span.to_json()``, Phoenix exports) is read into the
same model by :mod:`.span_json`.

Each span carries, parsed once here, what every reader may need: its **kind** (``internal``,
``server``, ``client``, ``producer``, ``consumer``; OTLP's ``SPAN_KIND_SERVER`` or ``2``, the
SDK's ``SpanKind.SERVER``), its instrumentation **scope** name (OTLP ``scopeSpans[].scope.name``:
which instrumentation wrote it) and its **events** (``{"name", "attributes"}``, in order). A
failed span's error is the status message, else the ``exception`` event's
``exception.message``, else ``error.type``, else ``"error"``.

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


_KINDS = {"1": "internal", "2": "server", "3": "client", "4": "producer", "5": "consumer"}


@dataclass(frozen=True)
class Event:
    """A span event or a log record tied to a span: its name, attributes and body."""

    name: str
    attributes: Mapping[str, Any] = field(default_factory=dict)
    body: Any = None


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
    kind: str | None = None
    scope: str = ""
    events: tuple[Event, ...] = ()

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


def hex_id(value: Any, size: int, at: At) -> str:
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


def status_error(
    status: Any, attributes: Mapping[str, Any], events: tuple[Event, ...] = ()
) -> str | None:
    if not isinstance(status, dict):
        return None
    code = status.get("code", status.get("status_code"))
    if code in (2, "2", "STATUS_CODE_ERROR", "ERROR", "StatusCode.ERROR"):
        message = status.get("message") or status.get("description")
        raised = next(
            (
                e.attributes.get("exception.message")
                for e in events
                if e.name == "exception" and e.attributes.get("exception.message")
            ),
            None,
        )
        kind_ = attributes.get("error.type") or attributes.get("exception.message")
        return str(message or raised or kind_ or "error")
    return None


def span_kind(value: Any) -> str | None:
    """A span kind as a lower-case word (``SPAN_KIND_SERVER``, ``2``, ``SpanKind.SERVER``:
    ``"server"``); ``None`` when absent or unspecified."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _KINDS.get(str(value))
    if isinstance(value, str):
        word = value.removeprefix("SPAN_KIND_").removeprefix("SpanKind.").lower()
        return _KINDS.get(value) or (word if word and word != "unspecified" else None)
    return None


def events_of(value: Any, flat: bool = False) -> tuple[Event, ...]:
    """A span's ``events`` list; free-form: what is not a list, or an entry without a string
    name, is skipped."""
    out: list[Event] = []
    for event in value if isinstance(value, list) else ():
        if isinstance(event, dict) and isinstance(event.get("name"), str):
            raw = event.get("attributes")
            attributes = dict(raw) if flat and isinstance(raw, dict) else key_values(raw)
            out.append(Event(event["name"], attributes))
    return tuple(out)


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
            scope = obj(scope, scope_at, optional=False)
            spans = arr(scope.get("spans"), spans_at, optional=False)
            scope_name = obj(scope.get("scope"), scope_at.key("scope")).get("name")
            scope_name = scope_name if isinstance(scope_name, str) else ""
            for k, raw in enumerate(spans):
                yield _otlp_span(raw, spans_at.item(k), order, resource, scope_name)
                order += 1


def _otlp_span(raw: Any, at: At, order: int, resource: Mapping[str, Any], scope: str = "") -> Span:
    raw = obj(raw, at, optional=False)
    attributes = _attributes(raw.get("attributes"), at.key("attributes"))
    parent = raw.get("parentSpanId")
    ids = At(at.file, at.line)
    events = events_of(raw.get("events"))
    return Span(
        trace_id=hex_id(raw.get("traceId"), 32, ids.key("traceId")),
        span_id=hex_id(raw.get("spanId"), 16, ids.key("spanId")),
        parent_id=hex_id(parent, 16, ids.key("parentSpanId")) if parent else None,
        name=text(raw.get("name"), at.key("name")) or "",
        start_ns=_int64(raw.get("startTimeUnixNano"), ids.key("startTimeUnixNano")),
        end_ns=_int64(raw.get("endTimeUnixNano"), ids.key("endTimeUnixNano")),
        attributes=attributes,
        error=status_error(obj(raw.get("status"), at.key("status")), attributes, events),
        line=at.line,
        order=order,
        resource=resource,
        kind=span_kind(raw.get("kind")),
        scope=scope,
        events=events,
    )


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
