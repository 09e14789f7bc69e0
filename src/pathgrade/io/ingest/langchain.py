"""LangChain message lists (``messages_to_dict`` output) and LangSmith run trees.

``messages_to_dict``: one conversation per JSON line, a list of ``{"type", "data"}``
(or ``{"messages": [...], "case_id"?, ...}``). ``ai`` messages' ``data.tool_calls``
(``{"name", "args", "id"}``, ``args`` already an object) are steps, one turn per message;
``tool`` messages are results (``status: "error"`` makes the step an error);
``usage_metadata.total_tokens`` is summed. The mapping is then that of
:mod:`pathgrade.io.ingest.openai_messages`.

LangSmith run trees: one root run per JSON line with nested ``child_runs``.

=============  ============================================================================
``tool``       a step: ``name``; arguments from ``inputs`` (``{"input": "<json>"}`` decoded,
               else the ``inputs`` object); result ``outputs.output``; ``error``
``llm``        a model call: ``total_tokens`` (else prompt + completion), ``total_cost``
``retriever``  ``outputs.documents[i]``: id from ``id`` or ``metadata.id``; score from
               ``metadata.score``
``chain``      an agent scope (steps' ``parent`` is the nearest enclosing chain)
=============  ============================================================================
The root run's ``outputs.output`` (or last message) is the answer; ``extra.metadata`` holds
the case id attribute.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest._build import SpanInfo, runs_from_traces, sum_numbers
from pathgrade.io.ingest._common import (
    At,
    IngestOptions,
    arr,
    head_text,
    json_lines,
    kind,
    number,
    obj,
    score_of,
    text,
    text_of,
)
from pathgrade.io.ingest.openai_messages import content_text, conversation_run
from pathgrade.io.ingest.spans import Span, time_ns

NAME = "langchain"
_ROLES = {
    "human": "user",
    "ai": "assistant",
    "tool": "tool",
    "system": "system",
    "function": "function",
    "AIMessageChunk": "assistant",
}


def _to_openai(message: Any, at: At) -> Any:
    """A ``{"type", "data"}`` message as an OpenAI-style message (others unchanged)."""
    if not isinstance(message, dict) or "data" not in message:
        return message
    data = obj(message["data"], at.key("data"), optional=False)
    role = _ROLES.get(str(message.get("type")), str(message.get("type")))
    out: dict[str, Any] = {"role": role, "content": data.get("content")}
    calls_at = at.key("data").key("tool_calls")
    calls = arr(data.get("tool_calls"), calls_at)
    if role == "assistant" and calls:
        out["tool_calls"] = [
            {"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("args")}}
            for c in (obj(c, calls_at.item(k), optional=False) for k, c in enumerate(calls))
        ]
    if role == "tool":
        out["tool_call_id"] = data.get("tool_call_id")
        out["status"] = data.get("status")
    if role == "function":
        out["name"] = data.get("name")
    return out


def _message_conversation(record: Any, at: At) -> dict[str, Any]:
    header = dict(record) if isinstance(record, dict) else {"messages": record}
    messages = header.get("messages")
    if isinstance(messages, list):
        where = at.key("messages") if isinstance(record, dict) else at
        tokens: list[float] = []
        converted = []
        for i, m in enumerate(messages):
            converted.append(_to_openai(m, where.item(i)))
            data = m.get("data") if isinstance(m, dict) else None
            usage = data.get("usage_metadata") if isinstance(data, dict) else None
            if isinstance(usage, dict):
                total = number(usage.get("total_tokens"))
                if total is not None:
                    tokens.append(total)
        header["messages"] = converted
        if tokens and "usage" not in header:
            header["usage"] = {"total_tokens": sum(tokens)}
    return header


def _flatten_tree(root: Any, at: At, order: int) -> list[Span]:
    spans: list[Span] = []
    stack: list[tuple[Any, str | None, At]] = [(root, None, at)]
    trace_id: str | None = None
    ids = At(at.file, at.line)
    while stack:
        run, parent, here = stack.pop()
        if not isinstance(run, dict):
            raise here.error(f"a run (or child run) must be an object, got {kind(run)}")
        run_id = run.get("id")
        if not isinstance(run_id, str) or not run_id:
            raise ids.key("id").error("a run needs a string 'id'")
        trace_id = trace_id or text(run.get("trace_id"), here.key("trace_id")) or run_id
        extra = obj(run.get("extra"), here.key("extra"))
        meta = obj(extra.get("metadata"), here.key("extra").key("metadata"))
        spans.append(
            Span(
                trace_id=trace_id,
                span_id=run_id,
                parent_id=parent,
                name=text(run.get("name"), here.key("name")) or "",
                start_ns=time_ns(run.get("start_time"), ids.key("start_time")),
                end_ns=time_ns(run.get("end_time"), ids.key("end_time")),
                attributes={**meta, "run": run},
                error=text_of(run.get("error")) or None,
                line=at.line,
                order=order + len(spans),
            )
        )
        children_at = here.key("child_runs")
        children = arr(run.get("child_runs"), ids.key("child_runs"))
        stack.extend(
            (child, run_id, children_at.item(k)) for k, child in reversed(list(enumerate(children)))
        )
    return spans


def _tool_arguments(inputs: Any) -> Any:
    if isinstance(inputs, dict) and set(inputs) == {"input"}:
        value = inputs["input"]
        return value if isinstance(value, str | dict | list) else [value]
    return inputs


def _root_answer(outputs: Any) -> str | None:
    if not isinstance(outputs, dict):
        return None
    if isinstance(outputs.get("output"), str):
        return str(outputs["output"])
    messages = outputs.get("messages")
    if isinstance(messages, list) and messages:
        last = messages[-1]
        if isinstance(last, dict):
            data = last.get("data", last)
            return content_text(data.get("content")) if isinstance(data, dict) else None
    return None


def classify(span: Span) -> SpanInfo:
    """The role of one LangSmith run (see module docstring)."""
    run = span.attributes.get("run")
    if not isinstance(run, dict):
        return SpanInfo(None)
    kind = run.get("run_type")
    outputs = run.get("outputs")
    if kind == "tool":
        result = outputs.get("output") if isinstance(outputs, dict) else outputs
        return SpanInfo(
            "tool",
            tool=span.name or None,
            call_id=text_of(
                (run.get("extra") or {}).get("tool_call_id")
                if isinstance(run.get("extra"), dict)
                else None
            ),
            arguments=_tool_arguments(run.get("inputs")),
            result=result,
        )
    if kind == "llm":
        tokens = number(run.get("total_tokens"))
        return SpanInfo(
            "llm",
            tokens=tokens
            if tokens is not None
            else sum_numbers(run.get("prompt_tokens"), run.get("completion_tokens")),
            cost=number(run.get("total_cost")),
        )
    if kind == "retriever":
        docs = outputs.get("documents") if isinstance(outputs, dict) else None
        found: list[tuple[str, float | None]] = []
        for doc in docs if isinstance(docs, list) else []:
            if not isinstance(doc, dict):
                continue
            meta = doc.get("metadata")
            meta = meta if isinstance(meta, dict) else {}
            doc_id = doc.get("id") or meta.get("id")
            if isinstance(doc_id, str | int) and not isinstance(doc_id, bool) and str(doc_id):
                found.append((str(doc_id), score_of(meta.get("score"))))
        return SpanInfo("retrieval", documents=found)
    if kind == "chain":
        return SpanInfo("agent", agent_name=span.name or None, output_text=_root_answer(outputs))
    return SpanInfo(None)


def sniff(head: bytes | str) -> bool:
    """LangSmith runs (``run_type``) or ``messages_to_dict`` output (``type`` + ``data``)."""
    start = head_text(head)
    if '"run_type"' in start:
        return True
    return '"data"' in start and any(
        f'"type": "{t}"' in start or f'"type":"{t}"' in start for t in ("ai", "human", "tool")
    )


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """One run per conversation or per root run tree."""
    options = options or IngestOptions()
    name = str(path)
    order = 0
    for line, record in json_lines(path, options):
        at = At(name, line)
        trees = (
            isinstance(record, list)
            and record
            and isinstance(record[0], dict)
            and "run_type" in record[0]
        )
        items = [(x, at.item(i)) for i, x in enumerate(record)] if trees else [(record, at)]
        for position, (item, where) in enumerate(items):
            try:
                if isinstance(item, dict) and "run_type" in item:
                    spans = _flatten_tree(item, where, order)
                    order += len(spans)
                    yield from runs_from_traces(
                        {spans[0].trace_id: spans}, classify, options, file=name, source=NAME
                    )
                else:
                    yield conversation_run(
                        _message_conversation(item, where),
                        options,
                        file=name,
                        line=line,
                        position=position,
                    )
            except InputError as error:
                options.fail(error)
