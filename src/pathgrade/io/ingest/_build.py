"""Turn the spans of one trace into a run, given a per-format span classifier.

A format reader says, for each span, what it is (:class:`SpanInfo`): a tool call, a model
call, a retrieval, an agent, or nothing of interest. The rest is shared:

1. steps are the calls: tool spans, retrieval spans (a step when
   ``IngestOptions.retrieval_steps``, the default: tool = the retriever's name, arguments =
   its query and parameters, output = the document ids, ``metadata["retrieval"] = True``),
   and the tool calls model spans emitted that no span records;
2. one call, one step: spans with the same call id, or a tool span wrapping exactly one other
   call span, are one step (:mod:`._calls`);
3. an emitted call gives its name, arguments and call id to the step matched to it, or is a
   step of its own; the calls of one model response share a turn and keep the order the model
   wrote them in; a call no model emitted shares the turn of the latest model call of its
   agent (unknown without model spans); steps are in time order (:mod:`._steps`);
4. the tool results later model spans were shown give a step's output and error when it has
   none;
5. ``SpanInfo.error`` marks a step failed when the span status does not;
6. a step's ``parent`` is the span id of its nearest agent ancestor, ``metadata["agent"]``
   that agent's name;
7. ``answer`` is the root agent's output text, else the last model output text.

``usage`` sums the model spans' and steps' tokens and cost, and the model spans' input and
output tokens (:mod:`._usage`: a span without the field contributes nothing, none with it:
unknown); latency is the root span's duration. ``metadata["model"]`` is the model the model
spans name when they name one (``models`` for several). ``retrieved`` concatenates the
retrieval spans' documents in time order (first occurrence of an id kept); each retrieval's
ranked list is kept in ``metadata["retrievals"]`` with the name and call id of the step it
is part of. The steps of ``IngestOptions.retrieval_tools`` (a framework without retrieval
spans) are retrievals too: their results' documents follow, in step order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.types import RetrievedItem, Run, Step, Usage
from pathgrade.io.ingest import call_values
from pathgrade.io.ingest._calls import Trace, group_calls, match, nearest
from pathgrade.io.ingest._common import TRIAL_LIMIT, At, IngestOptions, SpanFate, number
from pathgrade.io.ingest._info import Classifier, EmittedCall, SpanInfo, SpanKind, ToolResult
from pathgrade.io.ingest._steps import steps_of
from pathgrade.io.ingest._usage import model_metadata, split_sum, with_split
from pathgrade.io.ingest.spans import Span, time_order

__all__ = [
    "Classifier",
    "EmittedCall",
    "SpanInfo",
    "SpanKind",
    "ToolResult",
    "build_run",
    "runs_from_traces",
    "sum_numbers",
    "trial_number",
]

_TRIAL = "pathgrade.trial"
#: A UUID or long hex id inside a span name (``publish topic_3a7641d8-...``), counted as one.
_ID_IN_NAME = re.compile(r"[0-9a-fA-F]{8}(?:-?[0-9a-fA-F]{4}){3}-?[0-9a-fA-F]{12}|[0-9a-fA-F]{16,}")


def trial_number(value: Any, at: At) -> int:
    """A trial attribute as an int: a non-negative integer or digit string; else 0.

    A trial of 2**63 or more is an error (it would not survive being written back).
    """
    if isinstance(value, bool):
        return 0
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value) if len(value) <= 20 else TRIAL_LIMIT
    if not isinstance(value, int) or value < 0:
        return 0
    if value >= TRIAL_LIMIT:
        raise at.error("a trial number must be below 2**63")
    return value


def _find_attribute(spans: Sequence[Span], roots: Sequence[Span], key: str) -> Any:
    for span in [*roots, *spans]:
        if key in span.attributes:
            return span.attributes[key]
    for span in spans:
        if key in span.resource:
            return span.resource[key]
    return None


def build_run(
    trace_id: str,
    spans: Sequence[Span],
    classify: Classifier,
    options: IngestOptions,
    *,
    file: str,
    source: str,
) -> Run:
    """The run of one trace (raises :class:`InputError` naming the first span's line)."""
    ordered = time_order(list(spans))
    index = {s.span_id: s for s in ordered}
    infos = {s.span_id: classify(s) for s in ordered}
    trace = Trace(
        ordered=ordered,
        index=index,
        infos=infos,
        agent=nearest(ordered, index, lambda s: infos[s.span_id].kind == "agent"),
        position={s.span_id: i for i, s in enumerate(ordered)},
    )
    roots = [s for s in ordered if s.parent_id is None or s.parent_id not in index]
    line = min(s.line for s in spans)
    options.line = line
    tokens = [i.tokens for i in infos.values() if i.kind == "llm" and i.tokens is not None]
    costs = [i.cost for i in infos.values() if i.kind == "llm" and i.cost is not None]
    outputs = [infos[s.span_id].output_text for s in ordered if infos[s.span_id].kind == "llm"]
    last_output = next((text for text in reversed(outputs) if text), None)
    try:
        calls = match(trace, group_calls(trace))
        steps, step_of = steps_of(trace, calls, retrieval_steps=options.retrieval_steps, file=file)
        retrieved: dict[str, float | None] = {}
        retrievals: list[dict[str, Any]] = []
        for span in ordered:
            info = infos[span.span_id]
            if info.kind != "retrieval":
                continue
            docs = []
            for rank, (doc_id, score) in enumerate(info.documents, start=1):
                docs.append({"id": doc_id, "score": score, "rank": rank})
                retrieved.setdefault(doc_id, score)
            entry: dict[str, Any] = {"span_id": span.span_id, "documents": docs}
            step = step_of.get(span.span_id)
            if step is not None:
                entry["tool"], entry["call_id"] = step.tool, step.call_id
            retrievals.append(entry)
        retrievals.extend(_tool_retrievals(steps, options.retrieval_tools, retrieved))
        for span in ordered:
            if infos[span.span_id].unmapped:
                options.unmapped[_ID_IN_NAME.sub("<id>", span.name) or "(unnamed)"] += 1
        if options.explain is not None:
            options.explain.extend(_fates(trace_id, ordered, infos, steps, step_of))
        tool_tokens = [s.tokens for s in steps if s.tokens is not None]
        models = [infos[s.span_id] for s in ordered if infos[s.span_id].kind == "llm"]
        split = split_sum((i.input_tokens, i.output_tokens) for i in models)
        usage = with_split(_usage(roots, ordered, tokens + tool_tokens, costs), split)
        root_info = [infos[r.span_id] for r in roots]
        answer = next((i.output_text for i in root_info if i.output_text), None) or last_output
        trial = trial_number(_find_attribute(ordered, roots, _TRIAL), At(file, line, _TRIAL))
        success = _find_attribute(ordered, roots, "pathgrade.success")
        metadata: dict[str, Any] = {"source": source, "trace_id": trace_id}
        metadata.update(model_metadata(i.model for i in models))
        if retrievals:
            metadata["retrievals"] = retrievals
        return Run(
            case_id=options.case_id(
                trace_id, _find_attribute(ordered, roots, options.case_id_attribute)
            ),
            run_id=trace_id,
            trial=trial,
            steps=tuple(steps),
            answer=answer,
            success=success if isinstance(success, bool) else None,
            usage=usage,
            retrieved=tuple(RetrievedItem(id=k, score=v) for k, v in retrieved.items())
            if retrievals
            else None,
            metadata=metadata,
        )
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError(f"trace {trace_id}: {first['msg']}", file=file, line=line) from None


def _fates(
    trace_id: str,
    ordered: Sequence[Span],
    infos: Mapping[str, SpanInfo],
    steps: Sequence[Step],
    step_of: Mapping[str, Step],
) -> Iterator[SpanFate]:
    """What each span of a run became (``ingest --explain``)."""
    position = {id(step): i for i, step in enumerate(steps, start=1)}
    for span in ordered:
        info = infos[span.span_id]
        step = step_of.get(span.span_id)
        if step is not None:
            what = f"step {position[id(step)]} {step.tool}"
        elif info.kind == "agent":
            what = f"agent {info.agent_name or '?'}"
        elif info.kind == "llm":
            calls = len(info.emitted_calls)
            what = "model call" + (f" ({calls} tool call(s) emitted)" if calls else "")
        elif info.kind is not None:
            what = f"{info.kind} (not a step)"
        else:
            what = "not mapped" if info.unmapped else "structure"
        yield SpanFate(trace_id, span.span_id, span.parent_id, span.name, what)


def _tool_retrievals(
    steps: Sequence[Step], tools: frozenset[str], retrieved: dict[str, float | None]
) -> Iterator[dict[str, Any]]:
    """The retrievals of the steps of ``IngestOptions.retrieval_tools``: their results' documents
    (each id's first score kept in ``retrieved``)."""
    for step in steps if tools else ():
        if step.tool not in tools or step.error is not None:
            continue
        docs = []
        for rank, (doc_id, score) in enumerate(call_values.documents(step.output), start=1):
            docs.append({"id": doc_id, "score": score, "rank": rank})
            retrieved.setdefault(doc_id, score)
        yield {"documents": docs, "tool": step.tool, "call_id": step.call_id}


def _usage(
    roots: Sequence[Span], spans: Sequence[Span], tokens: list[float], costs: list[float]
) -> Usage | None:
    latency: float | None = None
    durations = [r.latency_ms for r in roots if r.latency_ms is not None]
    if len(roots) == 1 and durations:
        latency = durations[0]
    else:
        starts = [s.start_ns for s in spans if s.start_ns is not None]
        ends = [s.end_ns for s in spans if s.end_ns is not None]
        if starts and ends and max(ends) >= min(starts):
            latency = (max(ends) - min(starts)) / 1e6
    if not tokens and not costs and latency is None:
        return None
    return Usage(
        tokens=sum(tokens) if tokens else None,
        cost=sum(costs) if costs else None,
        latency_ms=latency,
    )


def sum_numbers(*values: Any) -> float | None:
    """The sum of the values that are numbers (``None`` when none is)."""
    found = [n for n in (number(v) for v in values) if n is not None]
    return sum(found) if found else None


def runs_from_traces(
    traces: Mapping[str, list[Span]],
    classify: Classifier,
    options: IngestOptions,
    *,
    file: str,
    source: str,
) -> Iterator[Run]:
    """One run per trace; a bad trace goes to ``options`` (raised or skipped)."""
    for trace_id, spans in traces.items():
        try:
            run = build_run(trace_id, spans, classify, options, file=file, source=source)
        except InputError as error:
            options.fail(error)
            continue
        yield run
