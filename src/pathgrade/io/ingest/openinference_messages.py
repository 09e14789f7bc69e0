"""What OpenInference spans say about messages: emitted tool calls, tool results, texts.

Attributes are read in their flattened form (``llm.output_messages.0.message.role``; see
:func:`pathgrade.io.ingest.openinference.flat_attributes`). Every value is type-checked:
a value of the wrong type is treated as not recorded.

- :func:`emitted_calls`: ``llm.output_messages.<i>.message.tool_calls.<j>.tool_call.{id,
  function.name, function.arguments}``, by message then call index, numbered 0, 1, ...
- :func:`tool_results`: ``llm.input_messages.<i>.message`` with ``role`` ``tool``:
  ``tool_call_id``, ``content``, ``name``. The OpenInference LangChain instrumentation does
  not copy a ``ToolMessage``'s ``status`` into these attributes, but the model span's
  ``input.value`` holds the serialized messages: a tool message there with
  ``status: "error"`` marks the result with that call id as failed (its content is the
  error). A content that merely starts with "Error" is not taken as a failure.
- a TOOL span's ``output.value`` that is a serialized LangChain ``ToolMessage`` is read by
  :func:`pathgrade.io.ingest.call_values.tool_message` (content, call id, error).
- :func:`output_text`: the answer text of an AGENT/CHAIN span's ``output.value`` (plain
  text; or the last AI message of a LangChain/LangGraph ``{"messages": [...]}`` state; or
  the only text field of ``{"output"|"answer"|"text"|"content": ...}``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from pathgrade.io.ingest import call_values
from pathgrade.io.ingest._build import EmittedCall, ToolResult
from pathgrade.io.ingest._common import MAX_NESTING, text_of

_CALL = re.compile(
    r"llm\.output_messages\.([0-9]{1,9})\.message\.tool_calls\.([0-9]{1,9})\.tool_call\."
    r"(id|function\.name|function\.arguments)"
)
_INPUT = re.compile(r"llm\.input_messages\.([0-9]{1,9})\.message\.(role|content|tool_call_id|name)")
_OUTPUT = re.compile(r"llm\.output_messages\.([0-9]{1,9})\.message\.(role|content)")
#: AutoGen's function-result messages: ``llm.input_messages.<i>.function.<j>`` holds the JSON
#: of ``{"name", "content", "call_id", "is_error"}``.
_FUNCTION = re.compile(r"llm\.input_messages\.([0-9]{1,9})\.function\.([0-9]{1,9})")
_TEXT_FIELDS = ("output", "answer", "text", "content", "result")


def loads(value: Any) -> Any:
    """A JSON object or array held in a string, decoded; anything else ``None``."""
    if not isinstance(value, str) or value.lstrip()[:1] not in ("{", "["):
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def _indexed(attrs: Mapping[str, Any], pattern: re.Pattern[str]) -> dict[tuple[int, ...], Any]:
    found: dict[tuple[int, ...], dict[str, Any]] = {}
    for key, value in attrs.items():
        match = pattern.fullmatch(key)
        if match:
            *positions, field = match.groups()
            found.setdefault(tuple(int(p) for p in positions), {})[field] = value
    return dict(sorted(found.items()))


def emitted_calls(attrs: Mapping[str, Any]) -> tuple[EmittedCall, ...]:
    """The tool calls of the model's output messages, in the order the model wrote them."""
    out: list[EmittedCall] = []
    for fields in _indexed(attrs, _CALL).values():
        name = text_of(fields.get("function.name"))
        arguments = fields.get("function.arguments")
        out.append(
            EmittedCall(
                name=name or None,
                arguments=arguments if isinstance(arguments, str | dict | list) else None,
                call_id=text_of(fields.get("id")) or None,
                index=len(out),
            )
        )
    return tuple(out)


def _messages(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every object in a decoded JSON value, breadth first, at most :data:`MAX_NESTING` deep."""
    level: list[Any] = [value]
    for _ in range(MAX_NESTING):
        following: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                yield item
                following.extend(item.values())
            elif isinstance(item, list):
                following.extend(item)
        if not following:
            return
        level = following


def failed_calls(input_value: Any) -> dict[str, str]:
    """Call id -> content, of the tool messages with ``status: "error"`` in ``input.value``."""
    out: dict[str, str] = {}
    if not isinstance(input_value, str) or '"error"' not in input_value:
        return out
    for item in _messages(loads(input_value)):
        fields = call_values.tool_message(item)
        if fields is None or fields.get("status") != "error":
            continue
        call_id = text_of(fields.get("tool_call_id"))
        if call_id:
            content = fields.get("content")
            out[call_id] = content if isinstance(content, str) and content else "error"
    return out


def _function_result(
    position: tuple[int, ...], item: Mapping[str, Any]
) -> tuple[tuple[int, ...], ToolResult]:
    content = item.get("content")
    text = content if isinstance(content, str) else None
    result = ToolResult(
        call_id=text_of(item.get("call_id")) or None,
        content=text,
        error=(text or "error") if item.get("is_error") is True else None,
        name=text_of(item.get("name")) or None,
    )
    return position, result


def tool_results(attrs: Mapping[str, Any]) -> tuple[ToolResult, ...]:
    """The tool messages of the model's input messages, in order (see module docstring):
    ``role: "tool"`` messages, and AutoGen's function-result messages (one pass)."""
    failed = failed_calls(attrs.get("input.value"))
    messages: dict[int, dict[str, Any]] = {}
    found: list[tuple[tuple[int, ...], ToolResult]] = []
    for key, value in attrs.items():
        if not key.startswith("llm.input_messages."):
            continue
        match = _INPUT.fullmatch(key)
        if match:
            messages.setdefault(int(match.group(1)), {})[match.group(2)] = value
        elif (function := _FUNCTION.fullmatch(key)) is not None:
            at = (int(function.group(1)), int(function.group(2)))
            item = loads(value)
            if isinstance(item, dict):
                found.append(_function_result(at, item))
    for index, fields in messages.items():
        if fields.get("role") != "tool":
            continue
        call_id = text_of(fields.get("tool_call_id")) or None
        content = fields.get("content")
        result = ToolResult(
            call_id=call_id,
            content=content if isinstance(content, str) else None,
            error=failed.get(call_id) if call_id else None,
            name=text_of(fields.get("name")) or None,
        )
        found.append(((index,), result))
    return tuple(r for _, r in sorted(found, key=lambda pair: pair[0]))


def model_output_text(attrs: Mapping[str, Any]) -> str | None:
    """The content of the last assistant output message that has text."""
    for fields in reversed(_indexed(attrs, _OUTPUT).values()):
        content = fields.get("content")
        if fields.get("role", "assistant") == "assistant" and isinstance(content, str) and content:
            return content
    return None


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):  # content parts: the text ones, joined
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        joined = "".join(p for p in parts if isinstance(p, str))
        return joined or None
    return None


def _last_ai_text(messages: list[Any]) -> str | None:
    for message in reversed(messages):
        if not isinstance(message, dict):
            continue
        fields = next(
            (message[k] for k in ("data", "kwargs") if isinstance(message.get(k), dict)), message
        )
        kind = fields.get("type", message.get("type", fields.get("role")))
        if kind in ("ai", "assistant", "AIMessage"):
            text = _content_text(fields.get("content"))
            if text:
                return text
            if fields.get("tool_calls"):
                return None  # the last AI message asked for tools: no answer yet
    return None


def output_text(value: Any) -> str | None:
    """The answer text of an AGENT/CHAIN ``output.value`` (see module docstring)."""
    if not isinstance(value, str) or not value.strip():
        return None
    decoded = loads(value)
    if decoded is None:
        return value if value.lstrip()[:1] not in ("{", "[") else None
    if isinstance(decoded, dict):
        messages = decoded.get("messages")
        if isinstance(messages, list):
            return _last_ai_text(messages)
        texts = [decoded[k] for k in _TEXT_FIELDS if isinstance(decoded.get(k), str)]
        return texts[0] if len(texts) == 1 and texts[0] else None
    return None
