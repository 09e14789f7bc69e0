"""OpenInference spans: OTLP/JSON Lines, flat span JSON lines, Phoenix exports.

Attributes may be flattened (``llm.output_messages.0.message.role``, as OTLP carries them)
or nested (``{"llm": {"output_messages": [{"message": {...}}]}}``, as Phoenix writes its
JSONL and Parquet); :func:`flat_attributes` reads both as the flattened form.
``openinference.span.kind`` gives the role:

=============  ===========================================================================
``TOOL``       a step: ``tool.name`` (else the span name); call id ``tool.id`` /
               ``tool_call.id``; arguments ``input.value`` when ``input.mime_type`` is JSON,
               else ``tool.parameters`` when it is not a JSON Schema, else not recorded
               (filled from the model's emitted call); result ``output.value``. A
               serialized LangChain ``ToolMessage`` there gives content, call id and, with
               ``status: "error"``, the error. A handoff of the OpenAI Agents
               instrumentation (no ``tool.name``, span name ``handoff to X``) is not a step,
               nor is the model's call of its tool (``transfer_to_x``, the SDK's default
               name), as in the ``openai-agents`` reader: the handoff shows in the agent
               of the steps that follow.
``RETRIEVER``  a retrieval step: tool ``tool.name`` (else the span name); arguments the
               query ``input.value`` (a JSON object as is, text as ``{"query": text}``);
               documents ``retrieval.documents.<i>.document.{id,score}``, the id else taken
               from ``document.metadata`` (a JSON string or object): ``id``, ``doc_id``,
               ``document_id``, ``_id``, ``chunk_id``, then ``source``, first present
``LLM``        a model call: ``llm.token_count.total`` (else prompt + completion; the
               run's split: ``prompt``, ``completion``), model ``llm.model_name``,
               ``llm.cost.total`` (else prompt + completion); output text; the emitted
               tool calls and the tool results it was shown
               (:mod:`~pathgrade.io.ingest.openinference_messages`)
``AGENT``      an agent scope (``agent.name``, else the span name); its output text is the
               answer when it is the root. A LangGraph node run (``metadata.langgraph_node``)
               named like an agent (the instrumentation marks any run whose name contains
               "agent") is a scope only when no sibling run of the same node exists: the
               ``agent`` node of a ReAct graph runs once per model call and is not a nested
               agent
``CHAIN``      glue; a root chain's output text is the answer
=============  ===========================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pathgrade.core.types import Run
from pathgrade.io.ingest import openinference_messages as messages
from pathgrade.io.ingest._build import SpanInfo, runs_from_traces, sum_numbers
from pathgrade.io.ingest._common import (
    MAX_NESTING,
    IngestOptions,
    head_text,
    maybe_json,
    number,
    read_head,
    score_of,
    text_of,
)
from pathgrade.io.ingest.spans import Span, by_trace, flat_spans, otlp_spans

NAME = "openinference"
KIND = "openinference.span.kind"
_DOC = re.compile(r"retrieval\.documents\.([0-9]{1,9})\.document\.(id|score|metadata)(?:\.(.+))?")
_SCHEMA_KEYS = frozenset({"$schema", "properties", "required", "additionalProperties"})
#: Keys of ``document.metadata`` holding a document's id, in the order they are tried.
METADATA_ID_KEYS = ("id", "doc_id", "document_id", "_id", "chunk_id", "source")
_NESTED_KIND = re.compile(r'"openinference"\s*:\s*\{\s*"span"\s*:\s*\{\s*"kind"')
_PHOENIX_ROW = re.compile(r'"span_kind"\s*:\s*"[A-Z]+"')
_HANDOFF = "handoff to "
_NOT_IN_NAME = re.compile(r"[^a-zA-Z0-9_]")


def flat_attributes(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """Attributes with nested objects and lists of objects flattened to dotted keys.

    ``{"llm": {"output_messages": [{"message": {"role": "assistant"}}]}}`` and
    ``{"llm.output_messages": [{"message.role": "assistant"}]}`` both give
    ``{"llm.output_messages.0.message.role": "assistant"}``. Lists of scalars stay lists;
    ``None`` values (Parquet's padding of absent struct fields) are dropped; a key already
    present wins; nesting deeper than :data:`MAX_NESTING` is cut.
    """
    out: dict[str, Any] = {}
    stack: list[tuple[str, Any, int]] = [(str(k), v, 0) for k, v in reversed(list(attrs.items()))]
    while stack:
        key, value, depth = stack.pop()
        if value is None or depth > MAX_NESTING:
            continue
        if isinstance(value, dict):
            stack.extend((f"{key}.{k}", v, depth + 1) for k, v in reversed(value.items()))
        elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
            stack.extend((f"{key}.{i}", v, depth + 1) for i, v in reversed(list(enumerate(value))))
        else:
            out.setdefault(key, value)
    return out


def _is_json_schema(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    return bool(_SCHEMA_KEYS & value.keys()) or value.get("type") == "object"


def tool_arguments(attrs: Mapping[str, Any]) -> Any:
    """``input.value`` when its mime type is JSON, else a ``tool.parameters`` that is not a
    JSON Schema, else ``None`` (not recorded)."""
    mime = text_of(attrs.get("input.mime_type")) or ""
    if "json" in mime.lower() and attrs.get("input.value") is not None:
        return attrs["input.value"]
    params = attrs.get("tool.parameters")
    if params is not None and not _is_json_schema(maybe_json(params)):
        return params
    return None


def _metadata_id(metadata: Any) -> Any:
    metadata = maybe_json(metadata)
    if not isinstance(metadata, dict):
        return None
    return next((metadata[k] for k in METADATA_ID_KEYS if _usable_id(metadata.get(k))), None)


def _usable_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool) and bool(str(value))


def documents(attrs: Mapping[str, Any]) -> list[tuple[str, float | None]]:
    """``(id, score)`` per retrieved document, in index order (see module docstring)."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        match = _DOC.fullmatch(key)
        if not match:
            continue
        entry = found.setdefault(int(match.group(1)), {})
        if match.group(3) is None:
            entry[match.group(2)] = value
        elif match.group(2) == "metadata":  # metadata given as an object, flattened
            entry.setdefault("metadata_fields", {})[match.group(3)] = value
    out: list[tuple[str, float | None]] = []
    for position in sorted(found):
        entry = found[position]
        doc_id = entry.get("id")
        if not _usable_id(doc_id):
            doc_id = _metadata_id(entry.get("metadata")) or _metadata_id(
                entry.get("metadata_fields")
            )
        if _usable_id(doc_id):
            out.append((str(doc_id), score_of(entry.get("score"))))
    return out


def _retrieval_arguments(attrs: Mapping[str, Any]) -> Any:
    value = attrs.get("input.value")
    decoded = maybe_json(value)
    if isinstance(decoded, dict):
        return decoded
    if isinstance(value, str) and value:
        return {"query": value}
    return None


def _is_handoff(span: Span, attrs: Mapping[str, Any]) -> bool:
    return not text_of(attrs.get("tool.name")) and span.name.startswith(_HANDOFF)


def _tool(span: Span, attrs: Mapping[str, Any]) -> SpanInfo:
    if _is_handoff(span, attrs):
        return SpanInfo(None)  # an OpenAI Agents handoff: structure, not a step
    name = text_of(attrs.get("tool.name"))
    result = attrs.get("output.value")
    call_id = text_of(attrs.get("tool.id")) or text_of(attrs.get("tool_call.id"))
    error = None
    message = messages.langchain_tool_message(result)
    if message is not None:
        result = message.get("content")
        call_id = call_id or text_of(message.get("tool_call_id"))
        if message.get("status") == "error":
            error = result if isinstance(result, str) and result else "error"
    return SpanInfo(
        "tool",
        tool=name or span.name or None,
        call_id=call_id or None,
        arguments=tool_arguments(attrs),
        result=result,
        error=error,
    )


def _llm(attrs: Mapping[str, Any], handoff_tools: frozenset[str]) -> SpanInfo:
    tokens = number(attrs.get("llm.token_count.total"))
    cost = number(attrs.get("llm.cost.total"))
    return SpanInfo(
        "llm",
        tokens=tokens
        if tokens is not None
        else sum_numbers(
            attrs.get("llm.token_count.prompt"), attrs.get("llm.token_count.completion")
        ),
        cost=cost
        if cost is not None
        else sum_numbers(attrs.get("llm.cost.prompt"), attrs.get("llm.cost.completion")),
        input_tokens=number(attrs.get("llm.token_count.prompt")),
        output_tokens=number(attrs.get("llm.token_count.completion")),
        model=text_of(attrs.get("llm.model_name")),
        output_text=messages.model_output_text(attrs),
        emitted_calls=tuple(
            c for c in messages.emitted_calls(attrs) if c.name not in handoff_tools
        ),
        tool_results=messages.tool_results(attrs),
    )


def classify(
    span: Span,
    repeated_nodes: frozenset[str] = frozenset(),
    handoff_tools: frozenset[str] = frozenset(),
) -> SpanInfo:
    """The role of one OpenInference span (see module docstring).

    ``repeated_nodes``: span ids of LangGraph node runs that are not agent scopes.
    ``handoff_tools``: the names of the handoff tools of the span's trace (not steps).
    """
    attrs = flat_attributes(span.attributes)
    kind = (text_of(attrs.get(KIND)) or "").upper()
    if kind == "TOOL":
        return _tool(span, attrs)
    if kind == "LLM":
        return _llm(attrs, handoff_tools)
    if kind == "RETRIEVER":
        return SpanInfo(
            "retrieval",
            tool=text_of(attrs.get("tool.name")) or span.name or None,
            call_id=text_of(attrs.get("tool.id")) or text_of(attrs.get("tool_call.id")) or None,
            arguments=_retrieval_arguments(attrs),
            documents=tuple(documents(attrs)),
        )
    text = messages.output_text(attrs.get("output.value"))
    if kind == "AGENT" and span.span_id not in repeated_nodes:
        return SpanInfo(
            "agent",
            agent_name=text_of(attrs.get("agent.name")) or span.name or None,
            output_text=text,
        )
    return SpanInfo(None, output_text=text)


def _langgraph_node(span: Span) -> str | None:
    attrs = span.attributes
    node = attrs.get("metadata.langgraph_node")
    if node is None:
        metadata = attrs.get("metadata")
        decoded = maybe_json(metadata)
        node = decoded.get("langgraph_node") if isinstance(decoded, dict) else None
    return node if isinstance(node, str) else None


def repeated_langgraph_nodes(spans: Sequence[Span]) -> frozenset[str]:
    """Span ids of AGENT spans that are one of several runs of a LangGraph node with the same
    parent (the ``agent`` node of a ReAct graph: one run per model call)."""
    groups: dict[tuple[str | None, str, str], list[str]] = {}
    for span in spans:
        kind = span.attributes.get(KIND)
        if not isinstance(kind, str) or kind.upper() != "AGENT":
            continue
        node = _langgraph_node(span)
        if node is not None:
            groups.setdefault((span.parent_id, node, span.name), []).append(span.span_id)
    return frozenset(i for ids in groups.values() if len(ids) > 1 for i in ids)


def handoff_tool_names(spans: Sequence[Span]) -> frozenset[str]:
    """The OpenAI Agents SDK's default tool names (``transfer_to_<agent>``: the agent's name,
    lower case, characters other than letters, digits and ``_`` as ``_``) of the handoffs
    in these spans: a handoff span's ``output.value`` (the agent handed to), else its name."""
    names = set()
    for span in spans:
        attrs = flat_attributes(span.attributes)
        kind = text_of(attrs.get(KIND)) or ""
        if kind.upper() == "TOOL" and _is_handoff(span, attrs):
            target = text_of(attrs.get("output.value")) or span.name[len(_HANDOFF) :]
            names.add(_NOT_IN_NAME.sub("_", f"transfer_to_{target}").lower())
    return frozenset(names)


def classifier(traces: Mapping[str, Sequence[Span]]) -> Callable[[Span], SpanInfo]:
    """:func:`classify` with what it needs to know of these traces: the repeated LangGraph
    nodes, and each trace's handoff tools."""
    repeated = frozenset().union(*(repeated_langgraph_nodes(s) for s in traces.values()))
    handoffs = {trace: handoff_tool_names(spans) for trace, spans in traces.items()}
    return lambda span: classify(span, repeated, handoffs.get(span.trace_id, frozenset()))


def sniff(head: bytes | str) -> bool:
    """Spans carrying ``openinference.span.kind`` (flattened or nested), or Phoenix's JSONL
    (``span_kind`` next to a ``context``)."""
    text = head_text(head)
    if KIND in text or _NESTED_KIND.search(text):
        return True
    return '"context"' in text and _PHOENIX_ROW.search(text) is not None


def runs_of_spans(
    spans: Iterator[Span], options: IngestOptions, *, file: str, source: str = NAME
) -> Iterator[Run]:
    """The runs of OpenInference spans, one per trace."""
    traces = by_trace(spans)
    yield from runs_from_traces(traces, classifier(traces), options, file=file, source=source)


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """The runs of an OpenInference span file, one per trace (a Parquet file is read as a
    Phoenix spans export)."""
    options = options or IngestOptions()
    raw = read_head(path, 4096)
    if raw.startswith(b"PAR1"):
        from pathgrade.io.ingest import phoenix  # local: pyarrow is imported only for Parquet

        yield from phoenix.read(path, options)
        return
    head = head_text(raw)
    spans = otlp_spans(path, options) if '"resourceSpans"' in head else flat_spans(path, options)
    yield from runs_of_spans(spans, options, file=str(path))
