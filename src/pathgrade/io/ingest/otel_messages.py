"""A model call's messages under the OTel GenAI conventions: tool calls asked, results shown, text.

The current conventions record a model call's messages as JSON (``gen_ai.input.messages``,
``gen_ai.output.messages``): a list of ``{"role", "parts": [...]}`` where a part is ``{"type":
"text", "content"}``, ``{"type": "tool_call", "id", "name", "arguments"}`` or ``{"type":
"tool_call_response", "id", "response"}``. Older instrumentations record OpenAI-shaped
messages (``{"role", "content", "tool_calls": [{"id", "function": {"name", "arguments"}}],
"tool_call_id"}``; a ``gen_ai.tool.message`` event body ``{"content", "id"}``); those are
read as the same parts (:func:`normalized`).

- :func:`emitted_calls`: the ``tool_call`` parts of the first output message (choice 0), in
  the order written (``index`` 0, 1, ...);
- :func:`tool_results`: every ``tool_call_response`` part of the input messages (any role),
  in order; a response that is an MCP ``CallToolResult`` with ``isError: true`` is a failure
  (:func:`pathgrade.io.ingest.mcp.result_error`);
- :func:`output_text`: the text parts of the last assistant message.

These values are free-form (span attributes, event bodies): what does not have the shape
above is ignored, never an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pathgrade.io.ingest._common import maybe_json, text_of
from pathgrade.io.ingest._info import EmittedCall, ToolResult
from pathgrade.io.ingest.mcp import result_error

Message = Mapping[str, Any]


def _parts_of_openai(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The parts of an OpenAI-shaped message (content, tool calls, tool result)."""
    parts: list[dict[str, Any]] = []
    content = message.get("content")
    if message.get("role") == "tool":
        call_id = text_of(message.get("tool_call_id")) or text_of(message.get("id"))
        parts.append({"type": "tool_call_response", "id": call_id, "response": content})
        return parts
    if isinstance(content, str) and content:
        parts.append({"type": "text", "content": content})
    elif isinstance(content, list):
        parts.extend(
            {"type": "text", "content": p["text"]}
            for p in content
            if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        source = function if isinstance(function, dict) else call
        parts.append(
            {
                "type": "tool_call",
                "id": text_of(call.get("id")),
                "name": text_of(source.get("name")),
                "arguments": source.get("arguments"),
            }
        )
    return parts


def normalized(value: Any) -> list[dict[str, Any]]:
    """``value`` (a JSON string or a list, of parts-form or OpenAI-shaped messages, or one
    message object) as parts-form messages ``{"role", "parts"}``; anything else: ``[]``."""
    value = maybe_json(value)
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return []
    out: list[dict[str, Any]] = []
    for message in value:
        if not isinstance(message, dict):
            continue
        role = text_of(message.get("role"))
        parts = message.get("parts")
        if isinstance(parts, list):
            out.append({"role": role, "parts": [p for p in parts if isinstance(p, dict)]})
        else:
            out.append({"role": role, "parts": _parts_of_openai(message)})
    return out


def _parts(messages: Iterable[Message], kind: str) -> Iterable[Mapping[str, Any]]:
    for message in messages:
        for part in message["parts"]:
            if part.get("type") == kind:
                yield part


def emitted_calls(messages: list[dict[str, Any]]) -> list[EmittedCall]:
    """The tool calls of the first output message (choice 0), in the order written."""
    first = [m for m in messages if m.get("role") in (None, "assistant")][:1]
    return [
        EmittedCall(
            name=text_of(part.get("name")),
            arguments=part.get("arguments"),
            call_id=text_of(part.get("id")),
            index=index,
        )
        for index, part in enumerate(_parts(first, "tool_call"))
    ]


def tool_results(messages: list[dict[str, Any]]) -> list[ToolResult]:
    """Every tool result of the input messages, in order (an MCP ``isError`` is an error)."""
    out: list[ToolResult] = []
    for part in _parts(messages, "tool_call_response"):
        response = part.get("response", part.get("result"))
        out.append(
            ToolResult(
                call_id=text_of(part.get("id")),
                content=response,
                error=result_error(response),
                name=text_of(part.get("name")),
            )
        )
    return out


def output_text(messages: list[dict[str, Any]]) -> str | None:
    """The text parts of the last assistant message that has text (``None`` when none)."""
    for message in reversed(messages):
        if message.get("role") not in (None, "assistant"):
            continue
        texts = [
            text
            for part in message["parts"]
            if part.get("type") == "text"
            and isinstance(text := part.get("content", part.get("text")), str)
        ]
        if texts and "".join(texts):
            return "".join(texts)
    return None
