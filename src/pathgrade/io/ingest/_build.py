"""Turn the spans of one trace into a run, given a per-format span classifier.

A format reader says, for each span, what it is (:class:`SpanInfo`): a tool call, a model
call, a retrieval, an agent, or nothing of interest. The rest is shared:

- steps are the tool spans, by start time then file order (the file is not ordered);
- a step's ``parent`` is the span id of its nearest agent ancestor (nested agents);
- a step's ``turn`` is shared by the calls issued after the same model call of the same
  agent (parallel calls of one model response); without model spans it is unknown;
- ``usage`` sums the model spans' tokens and cost; latency is the root span's duration;
- ``retrieved`` concatenates the retrieval spans' documents in time order (first occurrence
  of an id kept); each retrieval's ranked list is kept in ``metadata["retrievals"]``;
- ``answer`` is the root agent's output text, else the last model output text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.types import RetrievedItem, Run, Step, Usage
from pathgrade.io.ingest._common import (
    TRIAL_LIMIT,
    At,
    IngestOptions,
    bounded,
    decode_arguments,
    maybe_json,
    number,
)
from pathgrade.io.ingest.spans import Span, ancestors, time_order

SpanKind = Literal["tool", "llm", "retrieval", "agent"]


@dataclass(frozen=True)
class SpanInfo:
    """What one span says, in format-neutral terms (``None`` = not recorded)."""

    kind: SpanKind | None
    tool: str | None = None
    call_id: str | None = None
    arguments: Any = None
    result: Any = None
    tokens: float | None = None
    cost: float | None = None
    documents: Sequence[tuple[str, float | None]] = ()
    output_text: str | None = None
    agent_name: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


Classifier = Callable[[Span], SpanInfo]
_TRIAL = "pathgrade.trial"


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
    roots = [s for s in ordered if s.parent_id is None or s.parent_id not in index]
    line = min(s.line for s in spans)
    options.line = line

    def agent_of(span: Span) -> Span | None:
        return next((a for a in ancestors(span, index) if infos[a.span_id].kind == "agent"), None)

    llm_seen: dict[str | None, int] = {}
    turn_keys: dict[tuple[str | None, int], int] = {}
    steps: list[Step] = []
    tokens: list[float] = []
    costs: list[float] = []
    retrieved: dict[str, float | None] = {}
    retrievals: list[dict[str, Any]] = []
    last_output: str | None = None
    for span in ordered:
        info = infos[span.span_id]
        agent = agent_of(span)
        scope = agent.span_id if agent else None
        if info.kind == "llm":
            llm_seen[scope] = llm_seen.get(scope, 0) + 1
            if info.tokens is not None:
                tokens.append(info.tokens)
            if info.cost is not None:
                costs.append(info.cost)
            if info.output_text:
                last_output = info.output_text
        elif info.kind == "retrieval":
            docs = []
            for rank, (doc_id, score) in enumerate(info.documents, start=1):
                docs.append({"id": doc_id, "score": score, "rank": rank})
                retrieved.setdefault(doc_id, score)
            retrievals.append({"span_id": span.span_id, "documents": docs})
        elif info.kind == "tool":
            turn: int | None = None
            if llm_seen:
                key = (scope, llm_seen.get(scope, 0))
                turn = turn_keys.setdefault(key, len(turn_keys))
            steps.append(_step(span, info, agent, infos, turn, file=file))
    try:
        tool_tokens = [s.tokens for s in steps if s.tokens is not None]
        usage = _usage(roots, ordered, tokens + tool_tokens, costs)
        root_info = [infos[r.span_id] for r in roots]
        answer = next((i.output_text for i in root_info if i.output_text), None) or last_output
        trial = trial_number(_find_attribute(ordered, roots, _TRIAL), At(file, line, _TRIAL))
        success = _find_attribute(ordered, roots, "pathgrade.success")
        metadata: dict[str, Any] = {"source": source, "trace_id": trace_id}
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


def _step(
    span: Span,
    info: SpanInfo,
    agent: Span | None,
    infos: Mapping[str, SpanInfo],
    turn: int | None,
    *,
    file: str,
) -> Step:
    tool = info.tool or ""
    if not tool.strip():
        raise InputError(
            f"tool span {span.span_id} has no tool name",
            file=file,
            line=span.line,
            field="tool",
        )
    decoded = decode_arguments(info.arguments)
    at = At(file, span.line, f"span {span.span_id}")
    bounded(decoded.value, at.key("arguments"))
    output = bounded(maybe_json(info.result), at.key("output"))
    metadata: dict[str, Any] = {"span_id": span.span_id, **info.extra}
    if agent is not None and infos[agent.span_id].agent_name:
        metadata["agent"] = infos[agent.span_id].agent_name
    if decoded.unparsed:
        metadata["arguments_unparsed"] = True
    if info.arguments is None:
        metadata["arguments_recorded"] = False
    return Step(
        tool=tool,
        arguments=decoded.value,
        raw_arguments=decoded.raw,
        output=output,
        error=span.error,
        latency_ms=span.latency_ms,
        tokens=info.tokens,
        cost=info.cost,
        call_id=info.call_id,
        parent=agent.span_id if agent else None,
        turn=turn,
        start_time=span.start_s,
        end_time=span.end_s,
        metadata=metadata,
    )


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
