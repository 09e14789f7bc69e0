"""One chat message in any of the shapes LangChain and LangSmith write it, and its documents.

A message is recognised in four shapes (the first that fits):

=====================================================  ======================================
``{"lc": 1, "type": "constructor", "id": [...,         ``dumpd`` (LangSmith ``inputs`` of
"AIMessage"], "kwargs": {...}}``                        model runs, ``generations[].message``)
``{"type": "ai", "data": {...}}``                      ``messages_to_dict``
``{"type": "ai", "content": ..., ...}``                ``model_dump`` (LangGraph state,
                                                       ``outputs.output`` of tool runs)
``{"role": "assistant", ...}``                         OpenAI chat messages (``wrap_openai``)
=====================================================  ======================================

A retrieved document is a LangChain ``Document`` (``{"page_content", "metadata", "id"?}``, or
its ``dumpd`` form); its id is the first string (or integer) of ``id``, ``metadata.id``,
``metadata.doc_id``, ``metadata.document_id``, ``metadata.source``; its score
``metadata.score``, else ``metadata.relevance_score``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pathgrade.io.ingest._common import maybe_json, score_of
from pathgrade.io.ingest._info import EmittedCall
from pathgrade.io.ingest.openai_messages import content_text

#: Message ``type`` (or ``dumpd`` class name) -> OpenAI role.
ROLES = {
    "human": "user",
    "ai": "assistant",
    "tool": "tool",
    "system": "system",
    "function": "function",
    "developer": "system",
    "HumanMessage": "user",
    "HumanMessageChunk": "user",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "SystemMessage": "system",
    "FunctionMessage": "function",
}
_OPENAI_ROLES = frozenset({"user", "assistant", "tool", "system", "function", "developer"})
#: Where a document's id may be, in order (``metadata.`` keys are inside its metadata).
DOCUMENT_ID_KEYS = (
    "id",
    "metadata.id",
    "metadata.doc_id",
    "metadata.document_id",
    "metadata.source",
)
EMPTY: Mapping[str, Any] = {}


@dataclass(frozen=True)
class Message:
    """A message's OpenAI role (``user``, ``assistant``, ``tool``, ...) and its fields."""

    role: str
    fields: Mapping[str, Any]

    @property
    def text(self) -> str | None:
        """The content as text (a string, or the ``text`` parts of a list of parts)."""
        return content_text(self.fields.get("content"))


def unwrap(value: Any) -> Any:
    """The ``kwargs`` of a ``dumpd`` constructor (``{"lc": 1, "kwargs": ...}``), else ``value``."""
    if isinstance(value, dict) and value.get("lc") == 1 and isinstance(value.get("kwargs"), dict):
        return value["kwargs"]
    return value


def _constructor_name(value: Mapping[str, Any]) -> str | None:
    path = value.get("id")
    if isinstance(path, list) and path and isinstance(path[-1], str):
        return path[-1]
    return None


def message(value: Any) -> Message | None:
    """``value`` as a :class:`Message`, or ``None`` when it is not a message of a known role."""
    if not isinstance(value, dict):
        return None
    if value.get("lc") == 1 and isinstance(value.get("kwargs"), dict):
        role = ROLES.get(_constructor_name(value) or "") or ROLES.get(
            str(value["kwargs"].get("type"))
        )
        return Message(role, value["kwargs"]) if role else None
    kind = value.get("type")
    if isinstance(kind, str) and kind in ROLES:
        data = value.get("data")
        fields = data if isinstance(data, dict) and "content" not in value else value
        return Message(ROLES[kind], fields)
    role = value.get("role")
    if isinstance(role, str) and role in _OPENAI_ROLES:
        return Message(role, value)
    return None


def message_list(value: Any) -> list[Message]:
    """The messages of a list of messages, or of a batch (a list of such lists), skipping others.

    A model run's ``inputs.messages`` is one list per prompt of the batch: the first is read.
    """
    if isinstance(value, list) and value and isinstance(value[0], list):
        value = value[0]
    if not isinstance(value, list):
        return []
    return [m for m in (message(item) for item in value) if m is not None]


def _call(raw: Any, index: int) -> EmittedCall | None:
    if not isinstance(raw, dict):
        return None
    call_id = raw.get("id")
    call_id = call_id if isinstance(call_id, str) and call_id else None
    function = raw.get("function")
    if isinstance(function, dict):  # OpenAI: {"id", "function": {"name", "arguments": "<json>"}}
        name, arguments = function.get("name"), function.get("arguments")
    else:  # LangChain: {"name", "args": {...}, "id"}
        name, arguments = raw.get("name"), raw.get("args")
    return EmittedCall(
        name if isinstance(name, str) else None,
        arguments if isinstance(arguments, str | dict | list) else None,
        call_id,
        index,
    )


def emitted_calls(fields: Mapping[str, Any]) -> tuple[EmittedCall, ...]:
    """The tool calls an assistant message asks for, in the order written.

    ``tool_calls`` (LangChain's parsed calls, or OpenAI's), else
    ``additional_kwargs.tool_calls`` (the provider's raw calls), else the legacy
    ``function_call``. Entries that are not objects are skipped; ``index`` is the position.
    """
    calls = fields.get("tool_calls")
    if not isinstance(calls, list) or not calls:
        extra = fields.get("additional_kwargs")
        calls = extra.get("tool_calls") if isinstance(extra, dict) else None
    if not isinstance(calls, list) or not calls:
        legacy = fields.get("function_call")
        calls = [{"function": legacy}] if isinstance(legacy, dict) else []
    found = (_call(raw, index) for index, raw in enumerate(calls))
    return tuple(call for call in found if call is not None)


def _document_id(doc: Mapping[str, Any]) -> str | None:
    meta = doc.get("metadata")
    meta = meta if isinstance(meta, dict) else EMPTY
    for value in (
        doc.get("id"),
        meta.get("id"),
        meta.get("doc_id"),
        meta.get("document_id"),
        meta.get("source"),
    ):
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return None


def is_document(value: Any) -> bool:
    """A LangChain ``Document`` (``page_content`` key), plain or in its ``dumpd`` form."""
    inner = unwrap(value)
    return isinstance(inner, dict) and "page_content" in inner


def documents(value: Any, *, strict: bool = True) -> list[tuple[str, float | None]] | None:
    """The ranked ``(id, score)`` of a list of documents, or ``None`` when it is not one.

    A JSON string holding the list is decoded. ``strict``: every item must be a document
    (see :func:`is_document`), as in a tool message; otherwise (a retriever run's output)
    any object is read for an id. Documents with no id (see module docstring) are left out.
    """
    value = maybe_json(value)
    if not isinstance(value, list) or (strict and not value):
        return None
    if strict and not all(is_document(d) for d in value):
        return None
    found: list[tuple[str, float | None]] = []
    for raw in value:
        doc = unwrap(raw)
        doc_id = _document_id(doc) if isinstance(doc, dict) else None
        if doc_id is None:
            continue
        meta = doc.get("metadata")
        meta = meta if isinstance(meta, dict) else EMPTY
        score = score_of(meta.get("score"))
        found.append(
            (doc_id, score if score is not None else score_of(meta.get("relevance_score")))
        )
    return found


def tool_documents(fields: Mapping[str, Any]) -> list[tuple[str, float | None]] | None:
    """The documents a tool message carries: its ``artifact``, else its ``content``."""
    found = documents(fields.get("artifact"))
    return found if found is not None else documents(fields.get("content"))


def texts(values: Sequence[Message]) -> list[str]:
    """The non-empty texts of assistant messages, in order."""
    return [m.text for m in values if m.role == "assistant" and m.text]
