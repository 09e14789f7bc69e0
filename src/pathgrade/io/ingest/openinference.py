"""OpenInference (Arize Phoenix) spans, as OTLP/JSON Lines or flat span JSON lines.

``openinference.span.kind`` gives the role:

=============  ===========================================================================
``TOOL``       a step: ``tool.name``; ``tool.id`` (call id); arguments from ``input.value``
               when ``input.mime_type`` is ``application/json``, else ``tool.parameters``
               when it is not a JSON Schema; result from ``output.value``
``LLM``        a model call: ``llm.token_count.total`` (else prompt + completion),
               ``llm.cost.total`` (else prompt + completion); output text from
               ``llm.output_messages.<i>.message.content``
``RETRIEVER``  ``retrieval.documents.<i>.document.id`` / ``.document.score``
``AGENT``      an agent (parent of the steps under it); its ``output.value`` is the answer
``CHAIN``      glue; not a step
=============  ===========================================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pathgrade.core.types import Run
from pathgrade.io.ingest._build import SpanInfo, runs_from_traces, sum_numbers
from pathgrade.io.ingest._common import (
    IngestOptions,
    head_text,
    maybe_json,
    number,
    read_head,
    score_of,
    text_of,
)
from pathgrade.io.ingest.spans import Span, by_trace, flat_spans, otlp_spans

NAME = "openinference"
_DOC = re.compile(r"retrieval\.documents\.([0-9]{1,9})\.document\.(id|score)")
_OUT = re.compile(r"llm\.output_messages\.([0-9]{1,9})\.message\.(role|content)")
_SCHEMA_KEYS = frozenset({"$schema", "properties", "required", "additionalProperties"})


def _is_json_schema(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    return bool(_SCHEMA_KEYS & value.keys()) or value.get("type") == "object"


def tool_arguments(attrs: Mapping[str, Any]) -> Any:
    """``input.value`` when its mime type is JSON, else a ``tool.parameters`` that is not a
    JSON Schema, else ``None`` (not recorded)."""
    mime = text_of(attrs.get("input.mime_type")) or ""
    if "json" in mime.lower() and attrs.get("input.value") is not None:
        return attrs["input.value"]
    params = attrs.get("tool.parameters")
    if params is not None and not _is_json_schema(maybe_json(params)):
        return params
    return None


def documents(attrs: Mapping[str, Any]) -> list[tuple[str, float | None]]:
    """``(id, score)`` per retrieved document, in index order."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        match = _DOC.fullmatch(key)
        if match:
            found.setdefault(int(match.group(1)), {})[match.group(2)] = value
    listed = attrs.get("retrieval.documents")
    if isinstance(listed, list):
        for position, doc in enumerate(listed):
            if isinstance(doc, dict):
                entry = found.setdefault(position, {})
                entry.setdefault("id", doc.get("document.id", doc.get("id")))
                entry.setdefault("score", doc.get("document.score", doc.get("score")))
    out: list[tuple[str, float | None]] = []
    for position in sorted(found):
        doc_id = found[position].get("id")
        if isinstance(doc_id, str | int) and not isinstance(doc_id, bool) and str(doc_id):
            out.append((str(doc_id), score_of(found[position].get("score"))))
    return out


def _output_text(attrs: Mapping[str, Any]) -> str | None:
    messages: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        match = _OUT.fullmatch(key)
        if match:
            messages.setdefault(int(match.group(1)), {})[match.group(2)] = value
    for position in sorted(messages, reverse=True):
        message = messages[position]
        if (
            message.get("role", "assistant") == "assistant"
            and isinstance(message.get("content"), str)
            and message["content"]
        ):
            return str(message["content"])
    return None


def classify(span: Span) -> SpanInfo:
    """The role of one OpenInference span (see module docstring)."""
    attrs = span.attributes
    kind = str(attrs.get("openinference.span.kind") or "").upper()
    if kind == "TOOL":
        return SpanInfo(
            "tool",
            tool=text_of(attrs.get("tool.name")) or span.name or None,
            call_id=text_of(attrs.get("tool.id")) or text_of(attrs.get("tool_call.id")),
            arguments=tool_arguments(attrs),
            result=attrs.get("output.value"),
        )
    if kind == "LLM":
        tokens = number(attrs.get("llm.token_count.total"))
        cost = number(attrs.get("llm.cost.total"))
        return SpanInfo(
            "llm",
            tokens=tokens
            if tokens is not None
            else sum_numbers(
                attrs.get("llm.token_count.prompt"), attrs.get("llm.token_count.completion")
            ),
            cost=cost
            if cost is not None
            else sum_numbers(attrs.get("llm.cost.prompt"), attrs.get("llm.cost.completion")),
            output_text=_output_text(attrs),
        )
    if kind == "RETRIEVER":
        return SpanInfo("retrieval", documents=documents(attrs))
    if kind == "AGENT":
        value = attrs.get("output.value")
        return SpanInfo(
            "agent",
            agent_name=text_of(attrs.get("agent.name")) or span.name or None,
            output_text=value if isinstance(value, str) and value else None,
        )
    return SpanInfo(None)


def sniff(head: bytes | str) -> bool:
    """Spans carrying ``openinference.span.kind`` (OTLP/JSON or flat span JSON)."""
    return "openinference.span.kind" in head_text(head)


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """The runs of an OpenInference span file, one per trace."""
    options = options or IngestOptions()
    head = head_text(read_head(path, 4096))
    spans = otlp_spans(path, options) if '"resourceSpans"' in head else flat_spans(path, options)
    yield from runs_from_traces(by_trace(spans), classify, options, file=str(path), source=NAME)
