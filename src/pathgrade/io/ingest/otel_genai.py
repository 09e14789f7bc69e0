"""OpenTelemetry GenAI semantic conventions, OTLP/JSON file export (JSON Lines of TracesData).

Span roles, in this order of precedence:

1. ``mcp.method.name``: an MCP request (:mod:`.mcp`; ``tools/call`` is a step);
2. ``traceloop.span.kind``: a Traceloop/OpenLLMetry entity (:mod:`.traceloop`);
3. ``gen_ai.operation.name`` (or, when it is absent, the first word of the span name, which
   the conventions set to ``"{operation} {target}"``):

============================  ==========================================================
``execute_tool``              a step: ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
                              ``gen_ai.tool.call.arguments`` (opt-in), ``...call.result``;
                              a result with MCP ``isError: true`` is a failed step
``chat``, ``text_completion``, a model call: ``gen_ai.usage.input_tokens`` +
``generate_content``          ``output_tokens`` (each also the run's split), model
                              ``gen_ai.request.model`` (else ``...response.model``);
                              its messages (below)
``retrieval``                 a retrieval step: tool ``gen_ai.data_source.id`` (else the
                              span name's target); arguments ``{"query":
                              gen_ai.retrieval.query.text, "top_k":
                              gen_ai.retrieval.top_k}`` (``gen_ai.request.top_k`` before
                              v0.1.0); ``gen_ai.retrieval.documents`` (``[{"id", "score"}]``)
``invoke_agent``,             an agent (parent of the steps under it); ``gen_ai.agent.name``
``invoke_workflow``
============================  ==========================================================

4. ``llm.request.type`` (``chat``, ``completion``): an OpenLLMetry model call of the older
   conventions (flattened ``gen_ai.prompt.<i>.*`` / ``gen_ai.completion.<i>.*``).

A model call's messages (:mod:`.otel_messages`) come from ``gen_ai.input.messages`` /
``gen_ai.output.messages``, else from its events or log records (:mod:`.otel_events`), else
from the flattened attributes: the tool calls of its output message are its emitted calls, the
tool results of its input its shown results, the last assistant text its output text.
Client-level instrumentation (model spans only) thus gives the whole path.

A trace in which no span has any of these roles (an HTTP request, an MCP handshake) is not a
run. Content attributes are opt-in in the conventions, so a trace with tool names and timings
only loads: its steps have no arguments (``metadata["arguments_recorded"] = False``). Older
attribute names are read through :data:`ALIASES`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pathgrade.core.types import Run
from pathgrade.io.ingest import call_values, mcp, traceloop
from pathgrade.io.ingest._build import runs_from_traces, sum_numbers
from pathgrade.io.ingest._common import (
    IngestOptions,
    head_text,
    maybe_json,
    number,
    score_of,
    text_of,
)
from pathgrade.io.ingest._info import Classifier, SpanInfo, SpanKind
from pathgrade.io.ingest.otel_events import Extras, event_messages, read_otlp
from pathgrade.io.ingest.otel_messages import emitted_calls, normalized, output_text, tool_results
from pathgrade.io.ingest.producers import handoff_name
from pathgrade.io.ingest.spans import Event, Span, ancestors, by_trace

NAME = "otel-genai"

#: Old attribute name -> current name (the current name wins when both are present).
ALIASES: Mapping[str, str] = {
    "gen_ai.usage.prompt_tokens": "gen_ai.usage.input_tokens",
    "gen_ai.usage.completion_tokens": "gen_ai.usage.output_tokens",
    "gen_ai.system": "gen_ai.provider.name",
    "gen_ai.completion": "gen_ai.output.messages",
}

#: ``gen_ai.operation.name`` value -> span role.
OPERATIONS: Mapping[str, SpanKind] = {
    "execute_tool": "tool",
    "chat": "llm",
    "text_completion": "llm",
    "generate_content": "llm",
    "retrieval": "retrieval",
    "invoke_agent": "agent",
    "invoke_workflow": "agent",
    "memory.search": "retrieval",  # Strands' memory tools
}
_LLM_REQUEST_TYPES = frozenset({"chat", "completion"})
#: Operations that are structure, not steps: not counted as unmapped.
STRUCTURE = frozenset({"create_agent", "embeddings", "execute_event_loop_cycle", "execute_task"})


def canonical(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """Attributes with old names renamed through :data:`ALIASES`."""
    out = dict(attributes)
    for old, new in ALIASES.items():
        if old in out and new not in out:
            out[new] = out[old]
    return out


def _text(value: Any) -> str | None:
    """``gen_ai.output.messages`` recorded as plain text (older producers): the text."""
    if isinstance(value, str) and value and maybe_json(value) is value:
        return value
    return None


def _event_content(events: Sequence[Event], name: str, key: str = "content") -> Any:
    """The ``key`` attribute (JSON decoded) of the first event called ``name``, else None."""
    found = next((e for e in events if e.name == name and key in e.attributes), None)
    return maybe_json(found.attributes[key]) if found is not None else None


def _parts_text(value: Any) -> Any:
    """A message given as content parts (``[{"text": ...}]``): its text, JSON decoded when it
    is JSON; anything else unchanged."""
    if isinstance(value, list) and value and all(isinstance(p, dict) for p in value):
        texts = [p.get("text") for p in value]
        if all(isinstance(x, str) for x in texts):
            return maybe_json("".join(texts))
    return value


def retrieval_info(
    attrs: Mapping[str, Any], target: str | None, events: Sequence[Event] = ()
) -> SpanInfo:
    """A retrieval span (see module docstring); arguments ``None`` when none is recorded."""
    arguments: dict[str, Any] = {}
    query = attrs.get("gen_ai.retrieval.query.text", attrs.get("gen_ai.retrieval.query"))
    if query is None:
        query = _event_content(events, "memory.query")
    if isinstance(query, str):
        arguments["query"] = query
    top_k = score_of(attrs.get("gen_ai.retrieval.top_k", attrs.get("gen_ai.request.top_k")))
    if top_k is not None:
        arguments["top_k"] = int(top_k) if top_k.is_integer() else top_k
    return SpanInfo(
        "retrieval",
        tool=text_of(attrs.get("gen_ai.data_source.id")) or target,
        call_id=text_of(attrs.get("gen_ai.tool.call.id")),
        arguments=arguments or None,
        documents=call_values.documents(
            attrs.get("gen_ai.retrieval.documents", _event_content(events, "memory.results"))
        ),
    )


def llm_info(attrs: Mapping[str, Any], events: Extras | None, span: Span) -> SpanInfo:
    """A model call: tokens, cost, and what its messages say (see module docstring)."""
    raw_output = attrs.get("gen_ai.output.messages")
    inputs = normalized(attrs.get("gen_ai.input.messages"))
    outputs = normalized(raw_output)
    if events is not None and not (inputs and outputs):
        event_inputs, event_outputs = event_messages(events.of(span))
        inputs, outputs = inputs or event_inputs, outputs or event_outputs
    if not inputs and not outputs:
        inputs = normalized(traceloop.flat_messages(attrs, "prompt"))
        outputs = normalized(traceloop.flat_messages(attrs, "completion"))
    input_tokens = number(attrs.get("gen_ai.usage.input_tokens"))
    output_tokens = number(attrs.get("gen_ai.usage.output_tokens"))
    tokens = sum_numbers(input_tokens, output_tokens)
    if tokens is None:
        tokens = number(attrs.get("llm.usage.total_tokens"))
    return SpanInfo(
        "llm",
        tokens=tokens,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        model=text_of(attrs.get("gen_ai.request.model"))
        or text_of(attrs.get("gen_ai.response.model")),
        cost=number(attrs.get("gen_ai.usage.cost")),
        output_text=_text(raw_output) or output_text(outputs),
        emitted_calls=emitted_calls(outputs),
        tool_results=tool_results(inputs),
    )


def handoff_names(spans: Sequence[Span]) -> dict[str, frozenset[str]]:
    """Trace id -> the hand-off tool names of its agents (``transfer_to_<agent>`` of each
    ``gen_ai.agent.name``: :func:`~pathgrade.io.ingest.producers.handoff_name`)."""
    out: dict[str, set[str]] = {}
    for span in spans:
        name = text_of(span.attributes.get("gen_ai.agent.name"))
        if name:
            out.setdefault(span.trace_id, set()).add(handoff_name(name))
    return {trace: frozenset(names) for trace, names in out.items()}


def classifier(
    extras: Extras | None = None,
    options: IngestOptions | None = None,
    servers: Mapping[str, str] | None = None,
    handoffs: Mapping[str, frozenset[str]] | None = None,
) -> Classifier:
    """The classifier of one file's spans: ``extras`` gives span kinds and events,
    ``servers`` the MCP server of the spans of a call whose server only an inner span knows
    (:func:`mcp_servers`; used when ``options.mcp_namespace``)."""
    namespace = bool(options and options.mcp_namespace)
    servers = servers or {}
    handoffs = handoffs or {}
    seen: dict[int, SpanInfo] = {}

    def classify(span: Span) -> SpanInfo:
        key = id(span)
        if key not in seen:
            seen[key] = _classify(span)
        return seen[key]

    def _classify(span: Span) -> SpanInfo:
        attrs = canonical(span.attributes)
        if mcp.method(attrs) is not None:
            kind = extras.kind(span) if extras else None
            return mcp.classify(span, kind, namespace=namespace, server=servers.get(span.span_id))
        found = traceloop.classify(span, attrs)
        if found is not None:
            return found
        operation = text_of(attrs.get("gen_ai.operation.name"))
        target: str | None = None
        if span.name:
            first, _, rest = span.name.partition(" ")
            if operation is None or operation == first:
                operation, target = first, rest.strip() or None
        role = OPERATIONS.get(operation or "")
        if role is None and text_of(attrs.get("llm.request.type")) in _LLM_REQUEST_TYPES:
            role = "llm"
        if role is None or role == "llm":
            events: Sequence[Event] = ()  # a model span reads its events in llm_info
        else:
            events = extras.of(span) if extras else span.events
        not_steps = handoffs.get(span.trace_id, frozenset())
        if role == "tool":
            result = attrs.get("gen_ai.tool.call.result")
            if result is None:  # Strands' default conventions: in the span's events
                result = _parts_text(_event_content(events, "gen_ai.choice", "message"))
            arguments = attrs.get("gen_ai.tool.call.arguments")
            if arguments is None:
                arguments = _event_content(events, "gen_ai.tool.message")
            tool = text_of(attrs.get("gen_ai.tool.name")) or target
            if tool in not_steps:
                return SpanInfo(None)  # a hand-off to another agent: structure, not a step
            if namespace and tool and span.span_id in servers:
                tool = f"{servers[span.span_id]}/{tool}"
            return SpanInfo(
                "tool",
                tool=tool,
                call_id=text_of(attrs.get("gen_ai.tool.call.id")),
                arguments=arguments,
                result=result,
                error=mcp.result_error(result),
            )
        if role == "llm":
            info = llm_info(attrs, extras, span)
            if not_steps and any(c.name in not_steps for c in info.emitted_calls):
                calls = tuple(c for c in info.emitted_calls if c.name not in not_steps)
                info = replace(info, emitted_calls=calls)
            return info
        if role == "retrieval":
            return retrieval_info(attrs, target, events)
        if role == "agent":
            outputs = normalized(attrs.get("gen_ai.output.messages"))
            choice = _parts_text(_event_content(events, "gen_ai.choice", "message"))
            return SpanInfo(
                "agent",
                agent_name=text_of(attrs.get("gen_ai.agent.name")) or target,
                output_text=_text(attrs.get("gen_ai.output.messages"))
                or output_text(outputs)
                or (choice.strip() or None if isinstance(choice, str) else None),
            )
        return SpanInfo(None, unmapped=(operation or "") not in STRUCTURE)

    return classify


def classify(span: Span) -> SpanInfo:
    """The role of one span read on its own (no events, no MCP namespaces)."""
    return classifier()(span)


def mcp_servers(spans: Sequence[Span], extras: Extras) -> dict[str, str]:
    """span id -> MCP server, given to the spans of a call whose server only an inner span
    knows: for each MCP ``tools/call`` span whose server is known, its enclosing MCP
    ``tools/call`` spans (a client span around the server span) and the nearest enclosing
    ``execute_tool`` span (first known server kept)."""
    index = {s.span_id: s for s in spans}
    out: dict[str, str] = {}
    for span in spans:
        if mcp.method(span.attributes) != mcp.TOOLS_CALL:
            continue
        server = mcp.server_name(span, extras.kind(span))
        if not server:
            continue
        for parent in ancestors(span, index):
            if mcp.method(parent.attributes) == mcp.TOOLS_CALL:
                out.setdefault(parent.span_id, server)
                continue
            if text_of(parent.attributes.get("gen_ai.operation.name")) == "execute_tool":
                out.setdefault(parent.span_id, server)
            break
    return out


def _is_run(spans: Sequence[Span], classify: Classifier) -> bool:
    for span in spans:
        info = classify(span)
        if info.kind is not None or info.output_text:
            return True
    return False


def sniff(head: bytes | str) -> bool:
    """An OTLP/JSON file (``resourceSpans``) that is not OpenInference."""
    text = head_text(head)
    return '"resourceSpans"' in text and "openinference.span.kind" not in text


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """The runs of an OTLP/JSON Lines file, one per trace that has a GenAI span."""
    options = options or IngestOptions()
    spans, extras = read_otlp(path, options)
    servers = mcp_servers(spans, extras) if options.mcp_namespace else {}
    classify = classifier(extras, options, servers, handoff_names(spans))
    traces = {k: v for k, v in by_trace(iter(spans)).items() if _is_run(v, classify)}
    yield from runs_from_traces(traces, classify, options, file=str(path), source=NAME)
