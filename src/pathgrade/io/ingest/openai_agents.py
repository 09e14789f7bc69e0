"""OpenAI Agents SDK trace export: ``trace.export()`` / ``span.export()`` JSON objects.

What a ``TracingProcessor`` gets from the SDK (``openai-agents``) and what its backend
exporter posts: ``{"object": "trace", "id", "workflow_name", "group_id", "metadata"}`` and
``{"object": "trace.span", "id", "trace_id", "parent_id", "started_at", "ended_at",
"span_data": {"type", ...}, "error": {"message", "data"}}`` (ISO-8601 times), one object per
line, a JSON array of them, or the exporter's ``{"data": [...]}`` payloads. Spans of a trace
may come in any order and before their trace object.

``span_data.type`` gives the role:

==============  ==========================================================================
``function``    a step: ``name``, ``input`` (the JSON arguments text), ``output``; the span's
                ``error`` (``data.error``, else ``message``) fails it; ``mcp_data.server``
                names the MCP server (``server/tool`` with ``mcp_namespace``); approvals
                (``needs_approval``): an interrupted call approved on resume is one step
                with ``approval: "granted"``, one rejected (on resume, or by a rejection
                span) a failed step with ``"denied"``, one never resumed no step (nor
                is its emission) (:mod:`._agents_approvals`)
``generation``  a model call: ``usage.total_tokens`` (else input + output; the run's split:
                ``usage.input_tokens``/``output_tokens``, also ``prompt_``/``completion_``),
                model ``model``; tool calls of its ``output`` messages are emitted calls;
                ``role: "tool"`` messages of its ``input`` are tool results; the last
                assistant text is the output text
``response``    a model call (Responses API): ``usage`` and ``response.model`` (the export
                has no messages; a ``response`` object written by a custom processor is read
                like an output)
``agent``       an agent scope (``name``); a handoff makes the receiving agent's span the
                scope of the later steps
``handoff``     ``metadata["handoffs"]``: ``{"from", "to"}``; the model's call of the handoff
                tool (``transfer_to_<agent>``) is not a step
``guardrail``   ``metadata["guardrails"]``: ``{"name", "triggered"}``; triggered ones are
                listed in ``metadata["guardrails_triggered"]``
others          ``custom`` (the runner's ``task``/``turn`` spans), ``mcp_tools``,
                ``transcription`` ...: structure only
==============  ==========================================================================

The case id, ``pathgrade.trial`` and ``pathgrade.success`` are read from the trace's
``metadata`` (and the spans' ``metadata``); ``workflow_name`` and ``group_id`` are kept in
the run's metadata. The answer is the last model output text: the final output of the last
agent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest import _model_io
from pathgrade.io.ingest._agents_approvals import (
    DATA,
    REJECTED,
    REJECTED_ON_RESUME,
    Approvals,
    Mark,
    agent_time,
    approval_marks,
    rejected_call_id,
)
from pathgrade.io.ingest._build import build_run, sum_numbers
from pathgrade.io.ingest._common import (
    At,
    IngestOptions,
    arr,
    bounded,
    head_text,
    json_lines,
    kind,
    number,
    obj,
    text,
    text_of,
)
from pathgrade.io.ingest._info import EmittedCall, SpanInfo
from pathgrade.io.ingest.spans import Span, ancestors, time_ns, time_order

NAME = "openai-agents"
_SNIFF = re.compile(r'"object"\s*:\s*"trace(\.span)?"')
_NOT_NAME = re.compile(r"[^a-zA-Z0-9_]")


def handoff_tool_name(agent: str) -> str:
    """The SDK's default tool name of a handoff to ``agent``: ``transfer_to_<agent>`` with
    every character other than a letter, digit or ``_`` replaced by ``_``, lowercased."""
    return _NOT_NAME.sub("_", f"transfer_to_{agent}").lower()


@dataclass
class _Trace:
    """What the file says about one trace: its trace object and its spans."""

    spans: list[Span] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


def _error_text(value: Any, at: At) -> str | None:
    """A span's ``error``: ``data.error`` when a non-empty string, else ``message``."""
    if isinstance(value, str):
        return value or "error"
    error = obj(value, at)
    if not error:
        return None
    detail = obj(error.get("data"), at.key("data")).get("error")
    if isinstance(detail, str) and detail:
        return detail
    return text(error.get("message"), at.key("message")) or "error"


def _span(raw: Mapping[str, Any], at: At, order: int) -> Span:
    span_id = text(raw.get("id"), at.key("id"), optional=False)
    trace_id = text(raw.get("trace_id"), at.key("trace_id"), optional=False)
    if not span_id or not trace_id:
        raise at.error("a span needs a non-empty id and trace_id")
    data = bounded(obj(raw.get("span_data"), at.key("span_data")), at.key("span_data"))
    metadata = obj(raw.get("metadata"), at.key("metadata"))
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=text(raw.get("parent_id"), at.key("parent_id")) or None,
        name=text(data.get("name"), at.key("span_data").key("name"))
        or text(data.get("type"), at.key("span_data").key("type"))
        or "",
        start_ns=time_ns(raw.get("started_at"), at.key("started_at")),
        end_ns=time_ns(raw.get("ended_at"), at.key("ended_at")),
        attributes={**metadata, DATA: data, REJECTED: rejected_call_id(raw.get("error"))},
        error=_error_text(raw.get("error"), at.key("error")),
        line=at.line,
        order=order,
    )


def _items(value: Any, at: At) -> Iterator[tuple[Any, At]]:
    """The trace and span objects of one JSON value: itself, the items of a list, or the
    ``data`` of an exporter payload (one level of each)."""
    if isinstance(value, dict) and "data" in value and "object" not in value:
        value = arr(value["data"], at.key("data"), optional=False)
        at = at.key("data")
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield item, at.item(i)
    else:
        yield value, at


def _read_traces(path: str | Path, options: IngestOptions) -> dict[str, _Trace]:
    name = str(path)
    traces: dict[str, _Trace] = {}
    order = 0
    for line, record in json_lines(path, options):
        try:
            found = list(_items(record, At(name, line)))
        except InputError as error:
            options.fail(error)
            continue
        for item, at in found:
            try:
                if not isinstance(item, dict):
                    raise at.error(f"expected a trace or trace.span object, got {kind(item)}")
                if item.get("object") == "trace":
                    trace_id = text(item.get("id"), at.key("id"), optional=False)
                    if not trace_id:
                        raise at.key("id").error("a trace needs a non-empty id")
                    entry = traces.setdefault(trace_id, _Trace())
                    entry.metadata = dict(obj(item.get("metadata"), at.key("metadata")))
                    entry.info = {
                        key: value
                        for key in ("workflow_name", "group_id")
                        if (value := text(item.get(key), at.key(key)))
                    }
                    continue
                if item.get("object", "trace.span") != "trace.span":
                    raise at.error("expected an object of type trace or trace.span")
                span = _span(item, at, order)
            except InputError as error:
                options.fail(error)
                continue
            order += 1
            traces.setdefault(span.trace_id, _Trace()).spans.append(span)
    return traces


@dataclass(frozen=True)
class _Classifier:
    """Classifies the spans of one trace (knows its handoff tool names and the options)."""

    file: str
    handoff_tools: frozenset[str]
    mcp_namespace: bool
    approvals: Approvals = field(default_factory=lambda: Approvals({}, {}))

    def __call__(self, span: Span) -> SpanInfo:
        data: Mapping[str, Any] = span.attributes.get(DATA) or {}
        at = At(self.file, span.line, f"span {span.span_id}.span_data")
        type_ = data.get("type")
        if type_ == "function":
            mark = self.approvals.marks.get(span.span_id)
            found = self._function(data, at)
            if mark is None:
                return found
            if mark.approval is None:
                return SpanInfo(None)  # not attempted yet, or the decided call of a step
            return _decided(found, mark, span, span.span_id in self.approvals.resume_points)
        if type_ == "generation":
            calls = _model_io.emitted_calls(data.get("output"), at.key("output"))
            return SpanInfo(
                "llm",
                tokens=_tokens(data.get("usage"), at.key("usage")),
                input_tokens=_side(data.get("usage"), "input"),
                output_tokens=_side(data.get("usage"), "output"),
                model=text_of(data.get("model")),
                output_text=_model_io.assistant_text(data.get("output"), at.key("output")),
                emitted_calls=self._emitted(span, calls),
                tool_results=_model_io.tool_results(data.get("input"), at.key("input")),
            )
        if type_ == "response":
            response = obj(data.get("response"), at.key("response"))
            output = response.get("output")
            out_at = at.key("response").key("output")
            calls = _model_io.emitted_calls(output, out_at)
            return SpanInfo(
                "llm",
                tokens=_tokens(data.get("usage") or response.get("usage"), at.key("usage")),
                input_tokens=_side(data.get("usage") or response.get("usage"), "input"),
                output_tokens=_side(data.get("usage") or response.get("usage"), "output"),
                model=text_of(response.get("model")),
                output_text=_model_io.assistant_text(output, out_at),
                emitted_calls=self._emitted(span, calls),
                tool_results=_model_io.tool_results(data.get("input"), at.key("input")),
            )
        if type_ == "agent":
            return SpanInfo("agent", agent_name=text(data.get("name"), at.key("name")))
        return SpanInfo(None)

    def _emitted(self, span: Span, calls: list[EmittedCall]) -> list[EmittedCall]:
        """A model span's emitted calls, without the handoffs and the calls that were never
        attempted (still waiting for approval at the end of the trace)."""
        return [
            c
            for c in calls
            if c.name not in self.handoff_tools
            and not self.approvals.emitted_and_unattempted(span.span_id, c.name, c.arguments)
        ]

    def _function(self, data: Mapping[str, Any], at: At) -> SpanInfo:
        tool = text(data.get("name"), at.key("name"))
        mcp = obj(data.get("mcp_data"), at.key("mcp_data"))
        server = text(mcp.get("server"), at.key("mcp_data").key("server"))
        extra: dict[str, Any] = {"mcp_server": server} if server else {}
        if server and tool and self.mcp_namespace:
            tool = f"{server}/{tool}"
        return SpanInfo(
            "tool",
            tool=tool,
            arguments=data.get("input"),
            result=data.get("output"),
            extra=extra,
        )


def _decided(found: SpanInfo, mark: Mark, span: Span, resumed: bool) -> SpanInfo:
    """The step of a call an approval decided (:class:`._agents_approvals.Mark`): the
    output, error and rejection call id of the decided span, else of ``span`` itself;
    ``resumed``: it is the first call of a resumed run (``Step.resumed``)."""
    result = mark.result or span
    data: Mapping[str, Any] = result.attributes.get(DATA) or {}
    error = result.error
    if error is None and mark.approval == "denied":
        error = REJECTED_ON_RESUME
    return replace(
        found,
        approval=mark.approval,
        resumed=resumed,
        call_id=result.attributes.get(REJECTED) or found.call_id,
        result=data.get("output") if mark.result else found.result,
        error=error,
    )


def _tokens(value: Any, at: At) -> float | None:
    usage = obj(value, at)
    total = number(usage.get("total_tokens"))
    if total is not None:
        return total
    return sum_numbers(usage.get("input_tokens"), usage.get("output_tokens"))


_SIDES = {
    "input": ("input_tokens", "prompt_tokens"),
    "output": ("output_tokens", "completion_tokens"),
}


def _side(value: Any, side: str) -> float | None:
    """A usage object's ``input_tokens`` (``output_tokens``), else ``prompt_tokens``
    (``completion_tokens``) as the chat-completions usage names them (a usage that is not
    an object already failed in ``_tokens``)."""
    if not isinstance(value, Mapping):
        return None
    current, legacy = _SIDES[side]
    found = number(value.get(current))
    return found if found is not None else number(value.get(legacy))


def _handoff_tools(spans: list[Span]) -> frozenset[str]:
    """The default tool names of the handoffs the trace's agents could make or made."""
    agents: set[str] = set()
    for span in spans:
        data = span.attributes.get(DATA) or {}
        if data.get("type") == "agent" and isinstance(data.get("handoffs"), list):
            agents.update(h for h in data["handoffs"] if isinstance(h, str))
        if data.get("type") == "handoff" and isinstance(data.get("to_agent"), str):
            agents.add(data["to_agent"])
    return frozenset(handoff_tool_name(agent) for agent in agents)


def _agent_name(span: Span, index: Mapping[str, Span]) -> str | None:
    for parent in ancestors(span, index):
        data = parent.attributes.get(DATA) or {}
        if data.get("type") == "agent" and isinstance(data.get("name"), str):
            return str(data["name"])
    return None


def _run_metadata(spans: list[Span], file: str) -> dict[str, Any]:
    """Handoffs and guardrails of a trace, in time order, for the run's metadata."""
    index = {s.span_id: s for s in spans}
    handoffs: list[dict[str, Any]] = []
    guardrails: list[dict[str, Any]] = []
    for span in sorted(spans, key=lambda s: (s.start_ns is None, s.start_ns or 0, s.order)):
        data = span.attributes.get(DATA) or {}
        at = At(file, span.line, f"span {span.span_id}.span_data")
        if data.get("type") == "handoff":
            entry: dict[str, Any] = {
                "from": text(data.get("from_agent"), at.key("from_agent")),
                "to": text(data.get("to_agent"), at.key("to_agent")),
                "span_id": span.span_id,
            }
            if span.error:
                entry["error"] = span.error
            handoffs.append(entry)
        elif data.get("type") == "guardrail":
            triggered = data.get("triggered")
            if triggered is not None and not isinstance(triggered, bool):
                raise at.key("triggered").error(f"expected a boolean, got {kind(triggered)}")
            guardrails.append(
                {
                    "name": text(data.get("name"), at.key("name")),
                    "triggered": bool(triggered),
                    "agent": _agent_name(span, index),
                }
            )
    out: dict[str, Any] = {}
    if handoffs:
        out["handoffs"] = handoffs
    if guardrails:
        out["guardrails"] = guardrails
        out["guardrails_triggered"] = [
            g["name"] for g in guardrails if g["triggered"] and g["name"]
        ]
    return out


def sniff(head: bytes | str) -> bool:
    """Objects with ``"object": "trace"`` or ``"object": "trace.span"``."""
    return _SNIFF.search(head_text(head)) is not None


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """The runs of an OpenAI Agents SDK trace export, one per trace that has spans."""
    options = options or IngestOptions()
    file = str(path)
    for trace_id, trace in _read_traces(path, options).items():
        if not trace.spans:
            continue
        spans = [replace(s, resource=trace.metadata) for s in trace.spans]
        approvals = approval_marks(time_order(spans))
        classify = _Classifier(file, _handoff_tools(spans), options.mcp_namespace, approvals)
        try:
            run = build_run(trace_id, spans, classify, options, file=file, source=NAME)
            extra = {**trace.info, **_run_metadata(spans, file)}
        except InputError as error:
            options.fail(error)
            continue
        if approvals.resumed:
            run = agent_time(run, spans)
        yield run.model_copy(update={"metadata": {**run.metadata, **extra}}) if extra else run
