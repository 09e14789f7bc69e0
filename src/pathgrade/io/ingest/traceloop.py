"""Traceloop / OpenLLMetry spans, read inside ``otel-genai`` (the files are OTLP/JSON).

``traceloop.span.kind`` gives the role of the spans that the Traceloop SDK's decorators
(``@workflow``, ``@agent``, ``@task``, ``@tool``) and the OpenLLMetry MCP instrumentation write:

============  ==========================================================================
``tool``      a step: ``traceloop.entity.name`` (else ``gen_ai.tool.name``, else the span
              name without ``.tool``). Arguments from ``traceloop.entity.input``, result
              from ``traceloop.entity.output``, unwrapped by :mod:`.call_values` (the MCP
              instrumentation's ``{"tool_name", "arguments"}`` and ``{"result",
              "is_error"}``, the decorator's ``{"args", "kwargs"}``, the LangChain
              instrumentation's ``{"input_str", "inputs", ...}`` and ``{"output":
              ToolMessage}``); a wrapper that says the call failed fails the step
``agent``     an agent: ``traceloop.entity.name``; its output text is its answer
``workflow``  structure; at the root, its ``traceloop.entity.output`` text is the answer
``task``      structure (a unit of the application's work, not a tool the model called),
              except a retrieval: ``gen_ai.operation.name = "vector_db_retrieve"`` or an
              entity output holding documents (``{"documents": [...]}``, ids by
              :func:`.call_values.documents`) is a retrieval step, its query the entity
              input without LangChain's ``tags``, ``metadata`` and ``kwargs``
============  ==========================================================================

An entity output is the JSON of the function's return value: a string, or an object whose
single text field (``answer``, ``output``, ``text``, ``content``, ``result``) is the text.

Model spans of OpenLLMetry before the current conventions carry no
``gen_ai.operation.name`` but ``llm.request.type`` (``chat``, ``completion``) and flattened
messages: ``gen_ai.prompt.<i>.{role, content, tool_call_id}`` and
``gen_ai.completion.<i>.{role, content, tool_calls.<j>.{id, name, arguments}}``
(:func:`flat_messages`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import orjson

from pathgrade.io.ingest import call_values
from pathgrade.io.ingest._common import maybe_json, text_of
from pathgrade.io.ingest._info import SpanInfo
from pathgrade.io.ingest.mcp import result_error
from pathgrade.io.ingest.spans import Span

KIND = "traceloop.span.kind"
_FLAT = re.compile(r"gen_ai\.(prompt|completion)\.([0-9]{1,9})\.(.+)")
_CALL = re.compile(r"tool_calls\.([0-9]{1,9})\.(id|name|arguments)")
_MESSAGE_FIELDS = frozenset({"role", "content", "tool_call_id", "name"})
_TEXT_KEYS = ("answer", "output", "text", "content", "result")


def flat_messages(attributes: Mapping[str, Any], which: str) -> list[dict[str, Any]]:
    """The OpenAI-shaped messages of the flattened ``gen_ai.<which>.<i>.*`` attributes
    (``which`` is ``prompt`` or ``completion``), in index order."""
    found: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[int, dict[str, Any]]] = {}
    for key, value in attributes.items():
        match = _FLAT.fullmatch(key)
        if not match or match.group(1) != which:
            continue
        position, rest = int(match.group(2)), match.group(3)
        message = found.setdefault(position, {})
        call = _CALL.fullmatch(rest)
        if call:
            entry = calls.setdefault(position, {}).setdefault(int(call.group(1)), {})
            entry[call.group(2)] = value
        elif rest in _MESSAGE_FIELDS:
            message[rest] = value
    out: list[dict[str, Any]] = []
    for position in sorted(found):
        message = dict(found[position])
        listed = calls.get(position, {})
        if listed:
            message["tool_calls"] = [
                {
                    "id": c.get("id"),
                    "function": {"name": c.get("name"), "arguments": c.get("arguments")},
                }
                for _, c in sorted(listed.items())
            ]
        if which == "completion":
            message.setdefault("role", "assistant")
        out.append(message)
    return out


def _decoded(value: Any) -> Any:
    """A JSON text decoded (strings too), anything else unchanged."""
    if isinstance(value, str) and value[:1] in ('"', "{", "["):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def answer_text(value: Any) -> str | None:
    """The text of an entity output (see module docstring), ``None`` when it has none."""
    value = _decoded(value)
    if isinstance(value, dict):
        texts = [value[k] for k in _TEXT_KEYS if isinstance(value.get(k), str)]
        value = texts[0] if len(texts) == 1 else None
    return value if isinstance(value, str) and value else None


def classify(span: Span, attributes: Mapping[str, Any]) -> SpanInfo | None:
    """The role of a span with ``traceloop.span.kind`` (``None`` for a span without one)."""
    kind = text_of(attributes.get(KIND))
    if kind is None:
        return None
    name = text_of(attributes.get("traceloop.entity.name"))
    output = attributes.get("traceloop.entity.output")
    if kind == "tool":
        result, error, _ = call_values.result(output)
        return SpanInfo(
            "tool",
            tool=name
            or text_of(attributes.get("gen_ai.tool.name"))
            or span.name.removesuffix(".tool")
            or None,
            call_id=text_of(attributes.get("gen_ai.tool.call.id")),
            arguments=call_values.arguments(attributes.get("traceloop.entity.input")),
            result=result,
            error=error or result_error(output),
        )
    if kind == "agent":
        return SpanInfo(
            "agent",
            agent_name=name
            or text_of(attributes.get("gen_ai.agent.name"))
            or span.name.removesuffix(".agent")
            or None,
            output_text=answer_text(output),
        )
    if kind == "workflow":
        return SpanInfo(None, output_text=answer_text(output))
    docs = call_values.documents(output) if kind == "task" else []
    if docs or text_of(attributes.get("gen_ai.operation.name")) == "vector_db_retrieve":
        query = call_values.arguments(attributes.get("traceloop.entity.input"))
        query = maybe_json(query)
        if isinstance(query, dict):
            query = {k: v for k, v in query.items() if k not in ("tags", "metadata", "kwargs")}
        return SpanInfo(
            "retrieval",
            tool=name or span.name or None,
            arguments=query if isinstance(query, dict) else None,
            documents=tuple(docs),
        )
    return SpanInfo(None)
