"""LangChain message lists (``messages_to_dict`` output) and LangSmith runs.

A record holding runs (``run_type``) is read by :mod:`pathgrade.io.ingest.langsmith`, one run
per trace, after the conversations of the file. Any other record is one conversation: a list
of messages, or ``{"messages": [...], "case_id"?, ...}``, each message in any shape of
:mod:`pathgrade.io.ingest.langchain_message` (``messages_to_dict``'s ``{"type", "data"}``,
``model_dump``, ``dumpd``). Assistant messages' ``tool_calls`` (``{"name", "args", "id"}``,
``args`` already an object) are steps, one turn per message; ``tool`` messages are results
(``status: "error"`` makes the step an error). A tool message whose ``artifact`` (else its
``content``) is a list of documents is a retrieval: the step keeps
``metadata["retrieval"] = True`` and its documents go to ``retrieved``.
``usage_metadata.total_tokens`` is summed, its ``input_tokens``/``output_tokens`` are the
run's split (:mod:`._usage`: summed over the messages recording them), an AI message's
``response_metadata.model_name`` its model. The mapping is then that of
:mod:`pathgrade.io.ingest.openai_messages` (pairing of results with calls included; a
``human`` message opens a conversation turn as a ``user`` message does there).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest._common import (
    At,
    IngestOptions,
    arr,
    head_text,
    json_lines,
    number,
    obj,
    text,
    text_of,
)
from pathgrade.io.ingest._usage import model_metadata, split_sum
from pathgrade.io.ingest.langchain_message import message, tool_documents
from pathgrade.io.ingest.langsmith import RunTrees, run_items
from pathgrade.io.ingest.openai_messages import conversation_run

NAME = "langchain"
_TYPES = ("ai", "human", "tool")
_CLASSES = ("AIMessage", "HumanMessage", "ToolMessage")


def _fields_at(value: dict[str, Any], at: At) -> At:
    if value.get("lc") == 1:
        return at.key("kwargs")
    return at.key("data") if "data" in value and "content" not in value else at


def _to_openai(value: Any, at: At) -> Any:
    """A LangChain message as an OpenAI-style message (anything else unchanged)."""
    if isinstance(value, dict) and "data" in value and "content" not in value:
        obj(value["data"], at.key("data"), optional=False)
    found = message(value)
    if found is None or not isinstance(value, dict):
        return value
    fields, where = found.fields, _fields_at(value, at)
    out: dict[str, Any] = {"role": found.role, "content": fields.get("content")}
    calls_at = where.key("tool_calls")
    calls = arr(fields.get("tool_calls"), calls_at)
    if found.role == "assistant" and calls:
        converted = []
        for k, raw in enumerate(calls):
            call = obj(raw, calls_at.item(k), optional=False)
            if "function" in call:  # already OpenAI-shaped
                converted.append(call)
                continue
            text(call.get("name"), calls_at.item(k).key("name"), optional=False)
            converted.append(
                {
                    "id": call.get("id"),
                    "function": {"name": call["name"], "arguments": call.get("args")},
                }
            )
        out["tool_calls"] = converted
    elif found.role == "assistant":
        extra = obj(fields.get("additional_kwargs"), where.key("additional_kwargs"))
        legacy = arr(extra.get("tool_calls"), where.key("additional_kwargs").key("tool_calls"))
        if legacy:
            out["tool_calls"] = legacy
    if found.role == "tool":
        for key in ("tool_call_id", "status", "artifact", "name"):
            out[key] = fields.get(key)
    if found.role == "function":
        out["name"] = fields.get("name")
    return out


def _message_conversation(record: Any, at: At) -> dict[str, Any]:
    header = dict(record) if isinstance(record, dict) else {"messages": record}
    messages = header.get("messages")
    if isinstance(messages, list):
        where = at.key("messages") if isinstance(record, dict) else at
        tokens: list[float] = []
        splits: list[tuple[float | None, float | None]] = []
        models: list[str | None] = []
        converted = []
        for i, raw in enumerate(messages):
            converted.append(_to_openai(raw, where.item(i)))
            found = message(raw)
            usage = found.fields.get("usage_metadata") if found is not None else None
            total = number(usage.get("total_tokens")) if isinstance(usage, dict) else None
            if total is not None:
                tokens.append(total)
            if isinstance(usage, dict):
                splits.append(
                    (number(usage.get("input_tokens")), number(usage.get("output_tokens")))
                )
            response = found.fields.get("response_metadata") if found is not None else None
            if isinstance(response, dict):
                models.append(text_of(response.get("model_name")))
        header["messages"] = converted
        inputs, outputs = split_sum(splits)
        if (tokens or inputs is not None or outputs is not None) and "usage" not in header:
            header["usage"] = {
                "total_tokens": sum(tokens) if tokens else None,
                "prompt_tokens": inputs,
                "completion_tokens": outputs,
            }
        named = model_metadata(models)
        if "model" in named and "model" not in header:
            header["model"] = named["model"]
    return header


def sniff(head: bytes | str) -> bool:
    """LangSmith runs (``run_type``), or LangChain messages: ``dumpd``'s (``"lc"`` and a
    message class name), or ``"type": "ai"`` and the like with ``data`` (``messages_to_dict``)
    or with ``content`` and no OpenAI ``role`` (``model_dump``)."""
    start = head_text(head)
    if '"run_type"' in start:
        return True
    if '"lc"' in start and any(f'"{name}"' in start for name in _CLASSES):
        return True
    typed = any(f'"type": "{t}"' in start or f'"type":"{t}"' in start for t in _TYPES)
    return typed and ('"data"' in start or ('"content"' in start and '"role"' not in start))


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """One run per conversation, then one per trace of LangSmith runs."""
    options = options or IngestOptions()
    name = str(path)
    trees = RunTrees(name)
    for line, record in json_lines(path, options):
        at = At(name, line)
        runs = run_items(record, at)
        if runs is not None:
            for item, where in runs:
                try:
                    trees.add(item, where)
                except InputError as error:
                    options.fail(error)
            continue
        try:
            yield conversation_run(
                _message_conversation(record, at),
                options,
                file=name,
                line=line,
                position=0,
                documents_of=tool_documents,
                source=NAME,
            )
        except InputError as error:
            options.fail(error)
    yield from trees.runs(options)
