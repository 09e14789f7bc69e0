"""OpenTelemetry GenAI semantic conventions, OTLP/JSON file export (JSON Lines of TracesData).

Span roles come from ``gen_ai.operation.name`` (or, when it is absent, the first word of the
span name, which the conventions set to ``"{operation} {target}"``):

============================  ==========================================================
``execute_tool``              a step: ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
                              ``gen_ai.tool.call.arguments`` (opt-in), ``...call.result``
``chat``, ``text_completion``, a model call: ``gen_ai.usage.input_tokens`` +
``generate_content``          ``output_tokens``; output text from ``gen_ai.output.messages``
``retrieval``                 ``gen_ai.retrieval.documents`` (``[{"id", "score"}]``)
``invoke_agent``              an agent (parent of the steps under it); ``gen_ai.agent.name``
============================  ==========================================================

Content attributes are opt-in in the conventions, so a trace with tool names and timings
only loads: its steps have no arguments (``metadata["arguments_recorded"] = False``).
Older attribute names are read through :data:`ALIASES`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pathgrade.core.types import Run
from pathgrade.io.ingest._build import SpanInfo, SpanKind, runs_from_traces, sum_numbers
from pathgrade.io.ingest._common import (
    IngestOptions,
    head_text,
    maybe_json,
    number,
    score_of,
    text_of,
)
from pathgrade.io.ingest.spans import Span, by_trace, otlp_spans

NAME = "otel-genai"

#: Old attribute name -> current name (the current name wins when both are present).
ALIASES: Mapping[str, str] = {
    "gen_ai.usage.prompt_tokens": "gen_ai.usage.input_tokens",
    "gen_ai.usage.completion_tokens": "gen_ai.usage.output_tokens",
    "gen_ai.system": "gen_ai.provider.name",
    "gen_ai.completion": "gen_ai.output.messages",
}

#: ``gen_ai.operation.name`` value -> span role.
OPERATIONS: Mapping[str, SpanKind] = {
    "execute_tool": "tool",
    "chat": "llm",
    "text_completion": "llm",
    "generate_content": "llm",
    "retrieval": "retrieval",
    "invoke_agent": "agent",
}


def canonical(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """Attributes with old names renamed through :data:`ALIASES`."""
    out = dict(attributes)
    for old, new in ALIASES.items():
        if old in out and new not in out:
            out[new] = out[old]
    return out


def output_text(value: Any) -> str | None:
    """The text parts of the last assistant message of ``gen_ai.output.messages``."""
    value = maybe_json(value)
    if isinstance(value, str):
        return value or None
    if not isinstance(value, list):
        return None
    for message in reversed(value):
        if not isinstance(message, dict) or message.get("role", "assistant") != "assistant":
            continue
        parts = message.get("parts")
        if isinstance(parts, list):
            texts = [
                p["content"]
                for p in parts
                if isinstance(p, dict)
                and p.get("type") == "text"
                and isinstance(p.get("content"), str)
            ]
            if texts:
                return "".join(texts)
        if isinstance(message.get("content"), str) and message["content"]:
            return str(message["content"])
    return None


def documents(value: Any) -> list[tuple[str, float | None]]:
    """``(id, score)`` of each entry of ``gen_ai.retrieval.documents``, in rank order."""
    value = maybe_json(value)
    out: list[tuple[str, float | None]] = []
    if not isinstance(value, list):
        return out
    for doc in value:
        if isinstance(doc, dict) and isinstance(doc.get("id"), str | int) and str(doc["id"]):
            out.append((str(doc["id"]), score_of(doc.get("score"))))
    return out


def classify(span: Span) -> SpanInfo:
    """The role of one GenAI span (see module docstring)."""
    attrs = canonical(span.attributes)
    operation = text_of(attrs.get("gen_ai.operation.name"))
    target: str | None = None
    if operation is None and span.name:
        operation, _, rest = span.name.partition(" ")
        target = rest.strip() or None
    kind = OPERATIONS.get(operation or "")
    if kind == "tool":
        return SpanInfo(
            "tool",
            tool=text_of(attrs.get("gen_ai.tool.name")) or target,
            call_id=text_of(attrs.get("gen_ai.tool.call.id")),
            arguments=attrs.get("gen_ai.tool.call.arguments"),
            result=attrs.get("gen_ai.tool.call.result"),
        )
    if kind == "llm":
        return SpanInfo(
            "llm",
            tokens=sum_numbers(
                attrs.get("gen_ai.usage.input_tokens"), attrs.get("gen_ai.usage.output_tokens")
            ),
            cost=number(attrs.get("gen_ai.usage.cost")),
            output_text=output_text(attrs.get("gen_ai.output.messages")),
        )
    if kind == "retrieval":
        return SpanInfo("retrieval", documents=documents(attrs.get("gen_ai.retrieval.documents")))
    if kind == "agent":
        return SpanInfo(
            "agent",
            agent_name=text_of(attrs.get("gen_ai.agent.name")) or target,
            output_text=output_text(attrs.get("gen_ai.output.messages")),
        )
    return SpanInfo(None)


def sniff(head: bytes | str) -> bool:
    """An OTLP/JSON file (``resourceSpans``) that is not OpenInference."""
    text = head_text(head)
    return '"resourceSpans"' in text and "openinference.span.kind" not in text


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """The runs of an OTLP/JSON Lines file, one per trace."""
    options = options or IngestOptions()
    traces = by_trace(otlp_spans(path, options))
    yield from runs_from_traces(traces, classify, options, file=str(path), source=NAME)
