"""Langfuse trace and observation exports (the public API's JSON).

Read as JSON lines or one JSON document, each value being:

- a trace with its observations (``GET /api/public/traces/{id}``, ``TraceWithFullDetails``):
  ``{"id", "timestamp", "name", "input", "output", "metadata", "sessionId", "userId",
  "tags", "observations": [...]}``;
- an API page ``{"data": [...], "meta": {...}}`` of traces (their ``observations`` may be ids
  only: the observations must then be in the file too) or of observations
  (``GET /api/public/observations``, ``/v2/observations``);
- one observation, or a list of any of these.

An observation is ``{"id", "traceId", "parentObservationId", "type", "name", "startTime",
"endTime", "input", "output", "metadata", "level", "statusMessage", "usage",
"usageDetails", "costDetails", "calculatedTotalCost"}``; its ``type`` gives the role:

=============  ===========================================================================
``TOOL``       a step: ``name``, arguments from ``input`` (the ``@observe`` decorator's
               ``{"args": [...], "kwargs": {...}}`` unwrapped), result ``output``
``GENERATION`` a model call: ``usageDetails.total`` (else input + output; else the same
               of ``usage``; OpenAI's ``total_tokens``/``prompt_tokens`` keys too; the
               run's split: ``input``/``output``, else ``prompt_``/``completion_tokens``),
               model ``model``,
               cost ``costDetails.total`` (else the sum of its entries), else
               ``calculatedTotalCost``/``totalCost``; tool calls of its ``output``
               messages are emitted calls, ``role: "tool"`` messages of its ``input`` tool
               results, the last assistant text its output text
``EMBEDDING``  a model call for tokens and cost only
``RETRIEVER``  a retrieval: ``name``, query from ``input``, documents from ``output`` (a
               list, or ``{"documents": [...]}``; ``id`` or ``metadata.id``, ``score`` or
               ``metadata.score``)
``AGENT``      an agent scope (``name``)
others         ``SPAN``, ``CHAIN``, ``EVENT``, ``GUARDRAIL``, ``EVALUATOR``: structure only
=============  ===========================================================================

``level: "ERROR"`` fails an observation (``statusMessage`` is the error). The answer is the
trace's ``output`` (a string, a message, or the single text field of an object such as
``{"answer": ...}``), else the root observation's, else the last model output text. The case
id, ``pathgrade.trial`` and ``pathgrade.success`` are read from the trace's ``metadata``
(and the observations'); ``sessionId``, ``userId``, ``name`` and ``tags`` are kept in the
run's metadata.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest import _model_io
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
    score_of,
    text,
    text_of,
)
from pathgrade.io.ingest._info import Classifier, SpanInfo
from pathgrade.io.ingest._langfuse_values import answer_text, query_arguments
from pathgrade.io.ingest.call_values import arguments as tool_arguments
from pathgrade.io.ingest.spans import Span, time_ns

NAME = "langfuse"
#: Key of an observation's JSON object in :attr:`Span.attributes`.
DATA = "langfuse.observation"
_TYPE = re.compile(
    r'"type"\s*:\s*"(GENERATION|SPAN|EVENT|TOOL|AGENT|CHAIN|RETRIEVER|EMBEDDING|GUARDRAIL|EVALUATOR)"'
)


@dataclass
class _Trace:
    """One trace of the file: its trace object (when present) and its observations."""

    spans: list[Span] = field(default_factory=list)
    record: Mapping[str, Any] = field(default_factory=dict)
    listed_ids: int = 0
    line: int = 0


def _is_observation(item: Mapping[str, Any]) -> bool:
    return "startTime" in item or "traceId" in item or "parentObservationId" in item


def _observation(raw: Mapping[str, Any], at: At, trace_id: str | None, order: int) -> Span:
    span_id = text(raw.get("id"), at.key("id"), optional=False)
    trace_id = text(raw.get("traceId"), at.key("traceId")) or trace_id
    if not span_id or not trace_id:
        raise at.error("an observation needs a non-empty id and traceId")
    bounded(raw, at)
    level = text(raw.get("level"), at.key("level"))
    error = None
    if level is not None and level.upper() == "ERROR":
        error = text(raw.get("statusMessage"), at.key("statusMessage")) or "error"
    metadata = raw.get("metadata")
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=text(raw.get("parentObservationId"), at.key("parentObservationId")) or None,
        name=text(raw.get("name"), at.key("name")) or text(raw.get("type"), at.key("type")) or "",
        start_ns=time_ns(raw.get("startTime"), at.key("startTime")),
        end_ns=time_ns(raw.get("endTime"), at.key("endTime")),
        attributes={**(metadata if isinstance(metadata, dict) else {}), DATA: raw},
        error=error,
        line=at.line,
        order=order,
    )


def _items(value: Any, at: At) -> Iterator[tuple[Any, At]]:
    """The trace and observation objects of one JSON value (a page's ``data`` read)."""
    if isinstance(value, dict) and "data" in value and "id" not in value:
        value = arr(value["data"], at.key("data"), optional=False)
        at = at.key("data")
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield item, at.item(i)
    else:
        yield value, at


class _Reader:
    """Collects the traces and observations of a file."""

    def __init__(self, options: IngestOptions) -> None:
        self.options = options
        self.traces: dict[str, _Trace] = {}
        self.order = 0

    def add(self, item: Any, at: At) -> None:
        if not isinstance(item, dict):
            raise at.error(f"expected a trace or an observation object, got {kind(item)}")
        if _is_observation(item):
            self._add_observation(item, at, None)
            return
        trace_id = text(item.get("id"), at.key("id"), optional=False)
        if not trace_id:
            raise at.key("id").error("a trace needs a non-empty id")
        where = at.key("observations")
        spans: list[Span] = []
        listed = 0
        for i, raw in enumerate(arr(item.get("observations"), where)):
            if isinstance(raw, str):
                listed += 1
                continue
            raw = obj(raw, where.item(i), optional=False)
            spans.append(_observation(raw, where.item(i), trace_id, self.order + len(spans)))
        self.order += len(spans)
        entry = self.traces.setdefault(trace_id, _Trace())
        entry.record, entry.line, entry.listed_ids = item, at.line, listed
        for span in spans:
            self.traces.setdefault(span.trace_id, _Trace()).spans.append(span)

    def _add_observation(self, raw: Mapping[str, Any], at: At, trace_id: str | None) -> None:
        span = _observation(raw, at, trace_id, self.order)
        self.order += 1
        self.traces.setdefault(span.trace_id, _Trace()).spans.append(span)


def classify_with(file: str) -> Classifier:
    """The classifier of the observations of ``file`` (names the file in its errors)."""

    def classify(span: Span) -> SpanInfo:
        raw: Mapping[str, Any] = span.attributes.get(DATA) or {}
        at = At(file, span.line, f"observation {span.span_id}")
        type_ = (text(raw.get("type"), at.key("type")) or "").upper()
        output = raw.get("output")
        if type_ == "TOOL":
            return SpanInfo(
                "tool",
                tool=text(raw.get("name"), at.key("name")),
                arguments=tool_arguments(raw.get("input")),
                result=output,
            )
        if type_ in ("GENERATION", "EMBEDDING"):
            model_input = raw.get("input")
            if isinstance(model_input, dict) and isinstance(model_input.get("messages"), list):
                model_input = model_input["messages"]
            generation = type_ == "GENERATION"
            return SpanInfo(
                "llm",
                tokens=_tokens(raw, at),
                input_tokens=_side(raw, ("input", "prompt_tokens")),
                output_tokens=_side(raw, ("output", "completion_tokens")),
                model=text_of(raw.get("model")),
                cost=_cost(raw, at),
                output_text=_model_io.assistant_text(output, at.key("output"))
                if generation
                else None,
                emitted_calls=_model_io.emitted_calls(output, at.key("output"))
                if generation
                else (),
                tool_results=_model_io.tool_results(model_input, at.key("input"))
                if generation
                else (),
            )
        if type_ == "RETRIEVER":
            return SpanInfo(
                "retrieval",
                tool=text(raw.get("name"), at.key("name")),
                arguments=query_arguments(raw.get("input")),
                result=output,
                documents=_documents(output, at.key("output")),
            )
        if type_ == "AGENT":
            return SpanInfo(
                "agent",
                agent_name=text(raw.get("name"), at.key("name")),
                output_text=answer_text(output),
            )
        return SpanInfo(None, output_text=answer_text(output))

    return classify


def _tokens(raw: Mapping[str, Any], at: At) -> float | None:
    for key in ("usageDetails", "usage"):
        usage = obj(raw.get(key), at.key(key))
        total = number(usage.get("total"))
        if total is not None:
            return total
        found = sum_numbers(usage.get("input"), usage.get("output"))
        if found is not None:
            return found
        total = number(usage.get("total_tokens"))  # OpenAI usage keys, as recorded
        if total is not None:
            return total
        found = sum_numbers(usage.get("prompt_tokens"), usage.get("completion_tokens"))
        if found is not None:
            return found
    return None


def _side(raw: Mapping[str, Any], keys: tuple[str, str]) -> float | None:
    """One side of the split: ``usageDetails`` then ``usage`` (already checked to be
    objects by ``_tokens``), Langfuse's key then OpenAI's."""
    for usage_key in ("usageDetails", "usage"):
        usage = raw.get(usage_key)
        if not isinstance(usage, Mapping):
            continue
        for key in keys:
            found = number(usage.get(key))
            if found is not None:
                return found
    return None


def _cost(raw: Mapping[str, Any], at: At) -> float | None:
    details = obj(raw.get("costDetails"), at.key("costDetails"))
    total = number(details.get("total"))
    if total is not None:
        return total
    found = sum_numbers(*details.values())
    if found is not None:
        return found
    usage = obj(raw.get("usage"), at.key("usage"))
    for value in (raw.get("calculatedTotalCost"), raw.get("totalCost"), usage.get("totalCost")):
        if (cost := number(value)) is not None:
            return cost
    return None


def _documents(value: Any, at: At) -> list[tuple[str, float | None]]:
    """``(id, score)`` of each retrieved document, in rank order."""
    if isinstance(value, dict):
        value = value.get("documents")
        at = at.key("documents")
    out: list[tuple[str, float | None]] = []
    if not isinstance(value, list):
        return out
    for i, doc in enumerate(value):
        if not isinstance(doc, dict):
            continue
        meta = obj(doc.get("metadata"), at.item(i).key("metadata"))
        doc_id = doc.get("id", meta.get("id"))
        if isinstance(doc_id, str | int) and not isinstance(doc_id, bool) and str(doc_id):
            out.append((str(doc_id), score_of(doc.get("score", meta.get("score")))))
    return out


def _run(trace_id: str, trace: _Trace, options: IngestOptions, file: str) -> Run:
    record = trace.record
    at = At(file, trace.line or min((s.line for s in trace.spans), default=1))
    metadata = record.get("metadata")
    resource = metadata if isinstance(metadata, dict) else {}
    if not trace.spans:
        if trace.listed_ids:
            raise at.error(
                f"trace {trace_id} lists {trace.listed_ids} observation ids but none of the"
                " observations: export the trace with its observations, or add them"
            )
        try:
            run = Run(
                case_id=options.case_id(trace_id, resource.get(options.case_id_attribute)),
                run_id=trace_id,
                metadata={"source": NAME, "trace_id": trace_id},
            )
        except ValidationError as error:
            raise at.error(f"trace {trace_id}: {error.errors()[0]['msg']}") from None
    else:
        spans = [replace(s, resource=resource) for s in trace.spans]
        run = build_run(trace_id, spans, classify_with(file), options, file=file, source=NAME)
    extra: dict[str, Any] = {}
    for key, name in (("sessionId", "session_id"), ("userId", "user_id"), ("name", "trace_name")):
        if value := text(record.get(key), at.key(key)):
            extra[name] = value
    tags = [t for t in arr(record.get("tags"), at.key("tags")) if isinstance(t, str)]
    if tags:
        extra["tags"] = tags
    answer = answer_text(record.get("output")) or run.answer
    return run.model_copy(update={"answer": answer, "metadata": {**run.metadata, **extra}})


def sniff(head: bytes | str) -> bool:
    """Langfuse observations: ``parentObservationId``, or an observation ``type`` with
    ``startTime``, or a trace's ``htmlPath``."""
    text_ = head_text(head)
    if '"parentObservationId"' in text_ or '"htmlPath"' in text_:
        return True
    return '"startTime"' in text_ and _TYPE.search(text_) is not None


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """The runs of a Langfuse export, one per trace."""
    options = options or IngestOptions()
    file = str(path)
    reader = _Reader(options)
    for line, record in json_lines(path, options):
        try:
            found = list(_items(record, At(file, line)))
        except InputError as error:
            options.fail(error)
            continue
        for item, at in found:
            try:
                reader.add(item, at)
            except InputError as error:
                options.fail(error)
    for trace_id, trace in reader.traces.items():
        try:
            run = _run(trace_id, trace, options, file)
        except InputError as error:
            options.fail(error)
            continue
        yield run
