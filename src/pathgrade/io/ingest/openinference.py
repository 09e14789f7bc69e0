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
from pathgrade.io.ingest import call_values
from pathgrade.io.ingest import openinference_messages as messages
from pathgrade.io.ingest._build import SpanInfo, runs_from_traces, sum_numbers
from pathgrade.io.ingest._common import (
    IngestOptions,
    head_text,
    maybe_json,
    number,
    read_head,
    score_of,
    text_of,
)
from pathgrade.io.ingest.openinference_trace import (
    KIND,
    NO_FACTS,
    TraceFacts,
    agent_name,
    handoff_tool_names,
    is_handoff_span,
    kind_of,
    repeated_langgraph_nodes,
    trace_facts,
)
from pathgrade.io.ingest.producers import Producer, producer_of
from pathgrade.io.ingest.span_json import flat_attributes, flat_spans
from pathgrade.io.ingest.spans import Span, by_trace, otlp_spans

__all__ = [
    "KIND",
    "NAME",
    "classifier",
    "classify",
    "documents",
    "flat_attributes",
    "handoff_tool_names",
    "read",
    "repeated_langgraph_nodes",
    "runs_of_spans",
    "sniff",
    "tool_arguments",
]

NAME = "openinference"
#: The OpenInference span kinds: a span with another kind, or none, is counted as unmapped.
KNOWN_KINDS = frozenset(
    {"TOOL", "LLM", "RETRIEVER", "AGENT", "CHAIN", "EMBEDDING", "RERANKER", "GUARDRAIL",
     "EVALUATOR", "PROMPT"}
)  # fmt: skip
_DOC = re.compile(r"retrieval\.documents\.([0-9]{1,9})\.document\.(id|score|metadata)(?:\.(.+))?")
_SCHEMA_KEYS = frozenset({"$schema", "properties", "required", "additionalProperties"})
_NESTED_KIND = re.compile(r'"openinference"\s*:\s*\{\s*"span"\s*:\s*\{\s*"kind"')
_PHOENIX_ROW = re.compile(r'"span_kind"\s*:\s*"[A-Z]+"')


def _is_json_schema(value: Any) -> bool:
    """A JSON Schema, or a map of parameter schemas (smolagents' ``tool.inputs``:
    ``{"order_id": {"type": ..., "description": ...}}``)."""
    if not isinstance(value, dict):
        return False
    if _SCHEMA_KEYS & value.keys() or value.get("type") == "object":
        return True
    return bool(value) and all(isinstance(v, dict) and "type" in v for v in value.values())


def tool_arguments(attrs: Mapping[str, Any]) -> Any:
    """``input.value`` unwrapped (:func:`.call_values.arguments`: a Python call binding
    ``{"args", "kwargs"}``, whatever its mime type), else ``input.value`` when its mime type
    is JSON, else a ``tool.parameters`` that is not a JSON Schema, else ``None`` (not
    recorded)."""
    value = attrs.get("input.value")
    decoded = maybe_json(value)
    if isinstance(decoded, dict):
        unwrapped = call_values.arguments(decoded)
        if unwrapped is not decoded:
            return unwrapped
    mime = text_of(attrs.get("input.mime_type")) or ""
    if "json" in mime.lower() and value is not None:
        return value
    params = attrs.get("tool.parameters")
    if params is not None and not _is_json_schema(maybe_json(params)):
        return params
    return None


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
        doc_id = call_values.document_id({"id": entry.get("id"), "metadata": entry.get("metadata")})
        if doc_id is None:
            doc_id = call_values.document_id({"metadata": entry.get("metadata_fields")})
        if doc_id is not None:
            out.append((doc_id, score_of(entry.get("score"))))
    return out


def _retrieval_arguments(attrs: Mapping[str, Any]) -> Any:
    value = attrs.get("input.value")
    decoded = maybe_json(value)
    if isinstance(decoded, dict):
        return decoded
    if isinstance(value, str) and value:
        return {"query": value}
    return None


def _tool_name(span: Span, attrs: Mapping[str, Any], producer: Producer) -> str | None:
    name = text_of(attrs.get("tool.name"))
    if name:
        return name
    for suffix in producer.name_suffixes:
        if span.name.endswith(suffix) and len(span.name) > len(suffix):
            return span.name[: -len(suffix)]
    return span.name or None


def _tool(span: Span, attrs: Mapping[str, Any], facts: TraceFacts) -> SpanInfo:
    name = _tool_name(span, attrs, producer_of(span.scope))
    if is_handoff_span(span, attrs) or name in facts.not_steps:
        return SpanInfo(None)  # a hand-off or an answer tool: structure, not a step
    call_id = text_of(attrs.get("tool.id")) or text_of(attrs.get("tool_call.id"))
    output = attrs.get("output.value")
    decoded = maybe_json(output)  # once: the ToolMessage and the wrappers read the same
    message = call_values.tool_message(decoded)
    if message is not None:
        call_id = call_id or text_of(message.get("tool_call_id"))
    result, error, unwrapped = call_values.result(decoded)
    result = result if unwrapped else output
    return SpanInfo(
        "tool",
        tool=name,
        call_id=call_id or None,
        arguments=tool_arguments(attrs),
        result=result,
        error=error,
    )


def _llm(attrs: Mapping[str, Any], not_steps: frozenset[str]) -> SpanInfo:
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
        emitted_calls=tuple(c for c in messages.emitted_calls(attrs) if c.name not in not_steps),
        tool_results=messages.tool_results(attrs),
    )


def classify(span: Span, facts: TraceFacts = NO_FACTS) -> SpanInfo:
    """The role of one OpenInference span (see module docstring), given what its trace says
    (:class:`~pathgrade.io.ingest.openinference_trace.TraceFacts`)."""
    attrs = flat_attributes(span.attributes)
    kind = kind_of(attrs)
    if kind == "TOOL":
        return _tool(span, attrs, facts)
    if kind == "LLM":
        return _llm(attrs, facts.not_steps)
    if kind == "RETRIEVER" and span.span_id not in facts.nested:
        return SpanInfo(
            "retrieval",
            tool=text_of(attrs.get("tool.name")) or span.name or None,
            call_id=text_of(attrs.get("tool.id")) or text_of(attrs.get("tool_call.id")) or None,
            arguments=_retrieval_arguments(attrs),
            documents=tuple(documents(attrs)),
        )
    text = messages.output_text(attrs.get("output.value"))
    if kind == "AGENT" and span.span_id not in facts.repeated_nodes:
        return SpanInfo("agent", agent_name=agent_name(span, attrs), output_text=text)
    if kind == "CHAIN" and not producer_of(span.scope).chain_answers:
        return SpanInfo(None)
    return SpanInfo(None, output_text=text, unmapped=kind not in KNOWN_KINDS)


def classifier(traces: Mapping[str, Sequence[Span]]) -> Callable[[Span], SpanInfo]:
    """:func:`classify` with what it needs to know of each span's trace."""
    facts = {trace: trace_facts(spans) for trace, spans in traces.items()}
    return lambda span: classify(span, facts.get(span.trace_id, NO_FACTS))


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
