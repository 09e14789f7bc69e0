"""What OTLP/JSON files say about a span besides its attributes: its kind, its events, its logs.

One pass over an OTLP/JSON Lines file (:func:`read_otlp`) gives the spans (as
:func:`pathgrade.io.ingest.spans.otlp_spans` reads them, each with its kind and events) and,
per span (trace id, span id), its **events**: the span's own, then the **log records** tied
to it by ``traceId``/``spanId`` (``{"resourceLogs": [{"scopeLogs":
  [{"logRecords": [...]}]}]}`` lines in the same file, as one collector file exporter used in
  both the traces and the logs pipelines writes them; the event name is the record's
  ``eventName``, else its ``event.name`` attribute; its ``body`` is an ``AnyValue``).

:func:`event_messages` reads the GenAI message events of a model span into the parts-form
input and output messages of :mod:`.otel_messages`:

=========================================================  ================================
``gen_ai.system.message``, ``gen_ai.user.message``,        an input message: the body
``gen_ai.assistant.message``, ``gen_ai.tool.message``      (``content``, ``tool_calls``,
                                                           ``id``), or the JSON of the
                                                           ``gen_ai.event.content`` attribute
``gen_ai.choice``                                          an output message: body
                                                           ``message`` (choice ``index`` 0)
``gen_ai.client.inference.operation.details``              ``gen_ai.input.messages`` /
                                                           ``gen_ai.output.messages``
``gen_ai.content.prompt`` / ``gen_ai.content.completion``  ``gen_ai.prompt`` /
                                                           ``gen_ai.completion`` (v1.27)
=========================================================  ================================

The OTLP structure of a ``resourceLogs`` line is checked like that of spans (a wrong JSON
type is an error naming its field); event names, attributes and bodies are free-form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.io.ingest._common import At, IngestOptions, arr, json_lines, maybe_json, obj
from pathgrade.io.ingest.otel_messages import normalized
from pathgrade.io.ingest.spans import Event, Span, any_value, key_values, otlp_record

Key = tuple[str, str]
_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


@dataclass
class Extras:
    """The log records of a file tied to spans, by (trace id, span id) in lower-case hex."""

    logs: dict[Key, list[Event]] = field(default_factory=dict)

    def kind(self, span: Span) -> str | None:
        """The span's kind (``"server"``, ``"client"``...), ``None`` when not recorded."""
        return span.kind

    def of(self, span: Span) -> list[Event]:
        """The span's own events, then the log records tied to it, in file order."""
        return [*span.events, *self.logs.get((span.trace_id, span.span_id), ())]


def _hex(value: Any, size: int) -> str | None:
    if not isinstance(value, str):
        return None
    digits = value[2:] if value.startswith("0x") else value
    if len(digits) != size or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    return digits.lower()


def _logs(record: Mapping[str, Any], at: At, extras: Extras) -> None:
    """The log records of a ``resourceLogs`` record, tied to their spans."""
    where = at.key("resourceLogs")
    for i, resource_logs in enumerate(arr(record["resourceLogs"], where, optional=False)):
        here = where.item(i)
        scopes_at = here.key("scopeLogs")
        scopes = arr(obj(resource_logs, here, optional=False).get("scopeLogs"), scopes_at)
        for j, scope in enumerate(scopes):
            scope_at = scopes_at.item(j)
            records_at = scope_at.key("logRecords")
            logs = arr(obj(scope, scope_at, optional=False).get("logRecords"), records_at)
            for k, log in enumerate(logs):
                log = obj(log, records_at.item(k), optional=False)
                trace_id, span_id = _hex(log.get("traceId"), 32), _hex(log.get("spanId"), 16)
                attributes = key_values(log.get("attributes"))
                name = log.get("eventName") or attributes.get("event.name")
                if trace_id is None or span_id is None or not isinstance(name, str):
                    continue
                event = Event(name, attributes, any_value(log.get("body")))
                extras.logs.setdefault((trace_id, span_id), []).append(event)


def read_otlp(path: str | Path, options: IngestOptions) -> tuple[list[Span], Extras]:
    """The spans of an OTLP/JSON Lines file, with their kinds and events (bad lines go to
    ``options``); lines holding ``resourceLogs`` (and no spans) give log records."""
    name = str(path)
    spans: list[Span] = []
    extras = Extras()
    for line, record in json_lines(path, options):
        at = At(name, line)
        try:
            if (
                isinstance(record, dict)
                and "resourceLogs" in record
                and "resourceSpans" not in record
            ):
                _logs(record, at, extras)
                continue
            found = list(otlp_record(record, at, len(spans)))
        except InputError as error:
            options.fail(error)
            continue
        spans.extend(found)
    return spans, extras


def _body(event: Event) -> Any:
    """The event's body: the log body, else the JSON of ``gen_ai.event.content``."""
    if event.body is not None:
        return event.body
    return maybe_json(event.attributes.get("gen_ai.event.content"))


def event_messages(events: list[Event]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The parts-form (input, output) messages that a model span's events record."""
    inputs: list[dict[str, Any]] = []
    outputs: list[dict[str, Any]] = []
    for event in events:
        attributes = event.attributes
        body = _body(event)
        if event.name in _ROLES:
            message = dict(body) if isinstance(body, dict) else {"content": body}
            message["role"] = _ROLES[event.name]
            inputs.extend(normalized(message))
        elif event.name == "gen_ai.choice" and isinstance(body, dict):
            if body.get("index", 0) not in (0, "0"):
                continue
            inner = body.get("message")
            choice = dict(inner) if isinstance(inner, dict) else dict(body)
            choice.setdefault("role", "assistant")
            outputs.extend(normalized(choice))
        elif event.name == "gen_ai.client.inference.operation.details":
            source = body if isinstance(body, dict) else attributes
            inputs.extend(normalized(source.get("gen_ai.input.messages")))
            outputs.extend(normalized(source.get("gen_ai.output.messages")))
        elif event.name == "gen_ai.content.prompt":
            inputs.extend(normalized(attributes.get("gen_ai.prompt")))
        elif event.name == "gen_ai.content.completion":
            outputs.extend(normalized(attributes.get("gen_ai.completion")))
    return inputs, outputs
