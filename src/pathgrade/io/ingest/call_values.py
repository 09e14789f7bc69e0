"""What instrumentations wrap a tool's arguments and result in, unwrapped in one place.

Instrumentations record a call's arguments and result as the framework's own objects, not as
the tool received and returned them. One table of shapes, shared by every span reader
(:func:`arguments`, :func:`result`), gives back what the tool saw:

=================================================  ==========================================
arguments recorded as                              the arguments are
=================================================  ==========================================
``{"tool_name", "arguments"}`` (MCP)               ``arguments``
``{"input_str", "inputs", "tags", "metadata",      ``inputs`` (LangChain callbacks,
"kwargs"}``                                        Traceloop's LangChain instrumentation)
``{"args": [...], "kwargs": {...}}`` (either       ``kwargs`` (Python call binding:
alone; ``+ "sanitize_inputs_outputs"``)            Traceloop decorators, smolagents, DSPy,
                                                   LlamaIndex, Langfuse); ``args`` when there
                                                   are no keyword arguments; both:
                                                   ``{"args": [...], **kwargs}``
=================================================  ==========================================

=================================================  ==========================================
result recorded as                                 the result is
=================================================  ==========================================
``{"result", "is_error"}`` (MCP)                   ``result``; ``is_error: true`` fails it
a LangChain ``ToolMessage`` (``lc`` constructor    ``content``; ``status: "error"`` fails it
or dict form), also inside ``{"output": ...,
"kwargs"}``
a LlamaIndex ``ToolOutput`` (``{"blocks",          ``raw_output``; ``is_error: true`` fails it
"tool_name", "raw_input", "raw_output",            (the text of ``blocks`` when there is no
"is_error"}``)                                     ``raw_output``; a query engine's
                                                   ``Response`` (``{"response",
                                                   "source_nodes"}``) there: its text)
=================================================  ==========================================

Any other value is returned as recorded. JSON texts are decoded first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pathgrade.io.ingest._common import maybe_json

_BINDING = frozenset({"args", "kwargs", "sanitize_inputs_outputs"})
_LANGCHAIN_INPUT = frozenset({"input_str", "inputs"})
_TOOL_OUTPUT = frozenset({"raw_output", "is_error", "tool_name"})
_RESPONSE = frozenset({"response", "source_nodes"})


def arguments(value: Any) -> Any:
    """The arguments the tool received (module docstring); ``value`` unchanged otherwise."""
    decoded = maybe_json(value)
    if not isinstance(decoded, dict):
        return value
    if "tool_name" in decoded and "arguments" in decoded:
        return decoded["arguments"]
    if decoded.keys() >= _LANGCHAIN_INPUT and isinstance(decoded["inputs"], dict):
        return decoded["inputs"]
    if decoded and decoded.keys() <= _BINDING and decoded.keys() & {"args", "kwargs"}:
        args, kwargs = decoded.get("args") or [], decoded.get("kwargs") or {}
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            return value
        if not args:
            return kwargs
        return args if not kwargs else {"args": args, **kwargs}
    return value


def tool_message(value: Any) -> Mapping[str, Any] | None:
    """The fields of a serialized LangChain ``ToolMessage`` (dict or ``lc`` form), or None."""
    if not isinstance(value, dict):
        return None
    for key in ("data", "kwargs"):
        inner = value.get(key)
        if isinstance(inner, dict) and inner.get("type") == "tool":
            return inner
    return None


def _blocks_text(blocks: Any) -> str | None:
    if not isinstance(blocks, list):
        return None
    texts = [b.get("text") for b in blocks if isinstance(b, dict)]
    joined = "".join(t for t in texts if isinstance(t, str))
    return joined or None


def result(value: Any) -> tuple[Any, str | None, bool]:
    """``(result, error, unwrapped)``: what the tool returned, the error text when the
    wrapper says the call failed (else ``None``), and whether a wrapper was recognised."""
    decoded = maybe_json(value)
    if not isinstance(decoded, dict):
        return value, None, False
    if "result" in decoded and decoded.keys() <= {"result", "is_error"}:
        out = decoded["result"]
        return out, (_text(out) if decoded.get("is_error") is True else None), True
    message = tool_message(decoded)
    if message is None and decoded.keys() <= {"output", "kwargs"}:
        message = tool_message(maybe_json(decoded.get("output")))
    if message is not None:
        content = message.get("content")
        failed = message.get("status") == "error"
        return content, (_text(content) if failed else None), True
    if decoded.keys() >= _TOOL_OUTPUT:
        raw = decoded.get("raw_output")
        if isinstance(raw, dict) and raw.keys() >= _RESPONSE:
            raw = raw["response"]  # a query engine's Response: its text
        out = raw if raw is not None else _blocks_text(decoded.get("blocks"))
        return out, (_text(out) if decoded.get("is_error") is True else None), True
    return value, None, False


def _text(value: Any) -> str:
    return value if isinstance(value, str) and value else "error"


#: Keys of a document (or of its ``metadata``) holding its id, in the order they are tried.
DOCUMENT_ID_KEYS = ("id", "doc_id", "document_id", "_id", "chunk_id", "source")


def _usable_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool) and bool(str(value))


def _score(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def document_id(document: Mapping[str, Any]) -> str | None:
    """A document's id: the first of :data:`DOCUMENT_ID_KEYS` on it, else in its
    ``metadata`` (an object or its JSON), else ``None``."""
    metadata = maybe_json(document.get("metadata"))
    for source in (document, metadata if isinstance(metadata, dict) else {}):
        found = next((source[k] for k in DOCUMENT_ID_KEYS if _usable_id(source.get(k))), None)
        if found is not None:
            return str(found)
    return None


def documents(value: Any) -> list[tuple[str, float | None]]:
    """``(id, score)`` of each document of a retrieval's output: a list of document objects
    (``{"id", "score"}``, LangChain's ``{"page_content", "metadata"}``, ...), or an object
    whose ``documents`` (else ``results``) is one; a document without an id is left out,
    the score is its ``score`` (else its metadata's)."""
    decoded = maybe_json(value)
    if isinstance(decoded, dict):
        decoded = decoded.get("documents", decoded.get("results"))
    if not isinstance(decoded, list):
        return []
    out: list[tuple[str, float | None]] = []
    for document in decoded:
        if not isinstance(document, dict):
            continue
        found = document_id(document)
        if found is None:
            continue
        metadata = maybe_json(document.get("metadata"))
        score = _score(document.get("score"))
        if score is None and isinstance(metadata, dict):
            score = _score(metadata.get("score"))
        out.append((found, score))
    return out
