"""A model call's recorded input and output messages, OpenAI-shaped: calls, results and text.

Several span formats store a model call's messages as OpenAI chat-completions messages or
Responses API items (the OpenAI Agents SDK's generation spans, Langfuse generations). Read:

- **emitted calls** (:func:`emitted_calls`): an assistant message's ``tool_calls``, each
  ``{"id", "function": {"name", "arguments"}}`` (OpenAI) or ``{"id", "name", "args"}``
  (LangChain), its legacy ``function_call``, and Responses items ``{"type": "function_call",
  "name", "arguments", "call_id"}``; numbered in the order written (``index`` 0, 1, ...);
- **tool results** (:func:`tool_results`): ``role: "tool"`` messages (``tool_call_id``,
  ``content``, ``name``; LangChain ``status: "error"`` marks a failure) and Responses
  ``function_call_output`` items (``call_id``, ``output``);
- **output text** (:func:`assistant_text`): the text of the last assistant message: a string
  ``content``, or the ``text`` of its ``text``/``output_text`` parts.

A value that is not a list of messages (a prompt string, a vector) has none of these. In a
message, the fields read are type-checked (a ``tool_calls`` that is not a list is an error
naming its path).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pathgrade.io.ingest._common import At, arr, obj, text
from pathgrade.io.ingest._info import EmittedCall, ToolResult


def messages(value: Any, at: At) -> Iterator[tuple[Mapping[str, Any], At]]:
    """The message objects of ``value``: one object, or the objects of a list (other items,
    and values of other types, hold no messages)."""
    if isinstance(value, dict):
        yield value, at
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict):
                yield item, at.item(i)


def _is_assistant(message: Mapping[str, Any], at: At) -> bool:
    role = text(message.get("role"), at.key("role"))
    return role in (None, "assistant", "ai", "model")


def _call(raw: Any, at: At, index: int) -> EmittedCall:
    call = obj(raw, at, optional=False)
    function = obj(call.get("function"), at.key("function"))
    if function:
        return EmittedCall(
            name=text(function.get("name"), at.key("function").key("name")),
            arguments=function.get("arguments"),
            call_id=text(call.get("id"), at.key("id")),
            index=index,
        )
    return EmittedCall(
        name=text(call.get("name"), at.key("name")),
        arguments=call.get("args", call.get("arguments")),
        call_id=text(call.get("id"), at.key("id")),
        index=index,
    )


def emitted_calls(value: Any, at: At) -> list[EmittedCall]:
    """The tool calls a model output asked for, in the order written (see module doc)."""
    out: list[EmittedCall] = []
    for message, where in messages(value, at):
        if message.get("type") == "function_call":
            out.append(
                EmittedCall(
                    name=text(message.get("name"), where.key("name")),
                    arguments=message.get("arguments"),
                    call_id=text(message.get("call_id"), where.key("call_id"))
                    or text(message.get("id"), where.key("id")),
                    index=len(out),
                )
            )
            continue
        if not _is_assistant(message, where):
            continue
        calls_at = where.key("tool_calls")
        for i, raw in enumerate(arr(message.get("tool_calls"), calls_at)):
            out.append(_call(raw, calls_at.item(i), len(out)))
        legacy = message.get("function_call")
        if legacy is not None:
            out.append(_call({"function": legacy}, where.key("function_call"), len(out)))
    return out


def tool_results(value: Any, at: At) -> list[ToolResult]:
    """The tool results a model input showed it, in order (see module doc)."""
    out: list[ToolResult] = []
    for message, where in messages(value, at):
        if message.get("type") == "function_call_output":
            out.append(
                ToolResult(
                    call_id=text(message.get("call_id"), where.key("call_id")),
                    content=message.get("output"),
                )
            )
        elif message.get("role") == "tool":
            status = text(message.get("status"), where.key("status"))
            content = message.get("content")
            error = None
            if status == "error":
                error = content if isinstance(content, str) and content else "error"
            out.append(
                ToolResult(
                    call_id=text(message.get("tool_call_id"), where.key("tool_call_id")),
                    content=content,
                    error=error,
                    name=text(message.get("name"), where.key("name")),
                )
            )
    return out


def content_text(content: Any) -> str | None:
    """A message content as text: a string, or the joined ``text`` of its text parts."""
    if isinstance(content, str):
        return content or None
    if not isinstance(content, list):
        return None
    parts = [
        part["text"]
        for part in content
        if isinstance(part, dict)
        and part.get("type") in ("text", "output_text")
        and isinstance(part.get("text"), str)
    ]
    return "".join(parts) or None


def assistant_text(value: Any, at: At) -> str | None:
    """The text of the last assistant message of a model output (``None`` when none)."""
    if isinstance(value, str):
        return value or None
    found: str | None = None
    for message, where in messages(value, at):
        if message.get("type") not in (None, "message") or not _is_assistant(message, where):
            continue
        found = content_text(message.get("content")) or found
    return found
