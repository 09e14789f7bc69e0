"""A streamed chat-completions reply (``"stream": true``, server-sent events) assembled into
the one reply object a non-streamed request gets (the OpenAI protocol).

The body is ``data: {chunk}`` lines ending with ``data: [DONE]``. Each chunk's
``choices[0].delta`` adds to the message: ``content`` pieces are joined in order; a tool call
is keyed by its ``index``, its ``id`` and ``function.name`` set once and its
``function.arguments`` pieces joined. The last ``finish_reason`` and the chunk with ``usage``
(``stream_options.include_usage``) complete it; ``id``, ``model`` and
``system_fingerprint`` are the chunks' (the last one given). Comment lines (``:``) and
``event:`` lines are skipped. Pure: bytes in, a dict out; a body that is no stream raises
:class:`ValueError`.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["assemble_stream"]


def _chunks(body: bytes) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    done = False
    for number, raw in enumerate(body.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith((b":", b"event:", b"id:", b"retry:")):
            continue
        if not line.startswith(b"data:"):
            raise ValueError(f"stream line {number} is not 'data: ...'")
        data = line[5:].strip()
        if data == b"[DONE]":
            done = True
            break
        try:
            chunk = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise ValueError(f"stream line {number} is not JSON") from None
        if not isinstance(chunk, dict):
            raise ValueError(f"stream line {number} is not a JSON object")
        chunks.append(chunk)
    if not done:
        raise ValueError("the stream ended without 'data: [DONE]'")
    return chunks


def assemble_stream(body: bytes) -> dict[str, Any]:
    """The reply object of a streamed body (module docstring)."""
    content: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish: str | None = None
    usage: Any = None
    last: dict[str, Any] = {}
    role = "assistant"
    fingerprint: Any = None
    for chunk in _chunks(body):
        last = chunk
        fingerprint = chunk.get("system_fingerprint") or fingerprint
        if chunk.get("usage") is not None:
            usage = chunk["usage"]
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            continue
        choice = choices[0]
        finish = choice.get("finish_reason") or finish
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            continue
        role = str(delta.get("role") or role)
        if isinstance(delta.get("content"), str):
            content.append(delta["content"])
        for piece in delta.get("tool_calls") or ():
            if not isinstance(piece, dict):
                continue
            index = piece.get("index", len(calls))
            call = calls.setdefault(
                int(index),
                {"id": None, "type": "function", "function": {"name": "", "arguments": ""}},
            )
            if piece.get("id"):
                call["id"] = piece["id"]
            function = piece.get("function")
            if isinstance(function, dict):
                if function.get("name"):
                    call["function"]["name"] = function["name"]
                if isinstance(function.get("arguments"), str):
                    call["function"]["arguments"] += function["arguments"]
    message: dict[str, Any] = {"role": role, "content": "".join(content) if content else None}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    reply: dict[str, Any] = {
        "id": last.get("id"),
        "object": "chat.completion",
        "model": last.get("model"),
        **({"system_fingerprint": fingerprint} if fingerprint is not None else {}),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if usage is not None:
        reply["usage"] = usage
    return reply
