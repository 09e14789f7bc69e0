"""Free-form Langfuse ``input``/``output`` values read as an answer, tool arguments or a query.

Langfuse stores whatever the instrumented code passed (a string, a message, a dict, the
``@observe`` decorator's ``{"args": [...], "kwargs": {...}}``). These readers never fail on
an unexpected shape: it is simply not an answer, and arguments are kept as recorded.
"""

from __future__ import annotations

from typing import Any

from pathgrade.io.ingest._model_io import content_text
from pathgrade.io.ingest.call_values import arguments as tool_arguments

#: Keys of an output object that hold the answer text, in the order tried.
ANSWER_KEYS = ("answer", "output", "final_output", "text", "content", "result", "response")
_ASSISTANT = ("assistant", "ai", "model")


def _message_text(value: dict[str, Any]) -> str | None:
    if value.get("role") in _ASSISTANT:
        return content_text(value.get("content"))
    return None


def answer_text(value: Any, depth: int = 0) -> str | None:
    """The answer an output value holds (``None`` when it holds none).

    A non-empty string; an assistant message's text; the last assistant message of a list;
    an object's only field when it is a string, else its first string field among
    :data:`ANSWER_KEYS` (an object or list under one of those keys is looked into, two
    levels at most).
    """
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, list):
        for item in reversed(value):
            if isinstance(item, dict) and (found := _message_text(item)):
                return found
        return None
    if not isinstance(value, dict):
        return None
    if "role" in value:
        return _message_text(value)
    if len(value) == 1:
        (only,) = value.values()
        if isinstance(only, str) and only.strip():
            return only
    for key in ANSWER_KEYS:
        inner = value.get(key)
        if isinstance(inner, str) and inner.strip():
            return inner
        if (
            isinstance(inner, dict | list)
            and depth < 2
            and (found := answer_text(inner, depth + 1))
        ):
            return found
    return None


def query_arguments(value: Any) -> Any:
    """A retriever observation's input as arguments: a query string as ``{"query": ...}``
    (also a decorator call with one string argument), an object as recorded."""
    value = tool_arguments(value)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        value = value[0]
    if isinstance(value, str):
        return {"query": value}
    return value
