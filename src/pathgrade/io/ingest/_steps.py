"""From the calls of one trace to the steps of its run: fields, turns, order, shown results.

Fields of a call's step (members outer first, see :mod:`._calls`; *e* its emitted call):

- ``tool``: the outer tool span's name, else *e*'s name, else another member's (a retriever:
  its ``tool``, else its span name, else ``"retrieval"``); none at all is an error;
- ``arguments``: the first recorded of the outer span's, *e*'s, the inner spans'; a retriever's
  query given as bare text is ``{"query": text}``; ``metadata["arguments_recorded"] = False``
  only when no source recorded any;
- ``output``: the first member's that has one (a tool span's result; a retrieval span's
  document ids in rank order, ``[]`` when it found none); else the content of the tool result
  a later model span was shown;
- ``error``: the first member's span status error or ``SpanInfo.error``; else the shown
  result's error;
- ``call_id``: the outer span's, *e*'s, the inner spans'; ``tokens``/``cost``: the first
  member's; times and latency: the outer span's (none for an emission without spans);
- ``parent``: span id of the nearest agent of the outer span (of *e*'s model span without
  spans); ``metadata``: ``span_id`` (outer), ``span_ids`` (every member, when more than one),
  ``emitted_by`` (the model span, for an emission without spans), ``retrieval: true`` when a
  member is a retrieval, ``agent`` (that agent's name), the members' ``extra`` (outer wins).

A call of retrieval spans only is a step only when ``IngestOptions.retrieval_steps``.

Turns: the calls emitted by one model response are one turn; a call with no emission shares
the turn of the latest model span of its agent scope started before it (a scope with none yet
is one turn of its own; without any model span started before it, the turn is unknown).
Turns are numbered 0, 1, ... in the order the steps come, so two agents never share a number.

Order: a call with spans is placed at its outer span's start; an emission without spans at its
model span's end. The emitted calls of one model response are placed together, at the first
of their places, in emission ``index`` order (never by start time); other calls at their own
place. Ties at one instant: the start of the span placing them, then file order.

Shown results (``SpanInfo.tool_results``, model spans in time order): in one model span's
input, the j-th result with call id X is for the j-th step carrying X (histories repeat the
earlier results in each request); a result without an id but with a name N, the j-th step
named N of the model span's agent scope (of the trace when that scope has none). The first
result found for a step is its only one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.core.types import Step
from pathgrade.io.ingest._calls import CALL_KINDS, Call, Trace, call_names
from pathgrade.io.ingest._common import At, DecodedArguments, bounded, decode_arguments, maybe_json
from pathgrade.io.ingest._info import SpanInfo
from pathgrade.io.ingest.spans import Span

_TurnKey = tuple[str | None, str | None]
_When = tuple[bool, int, bool, int, int]


@dataclass
class _Draft:
    call: Call
    fields: dict[str, Any]
    scope: str | None
    turn_key: _TurnKey | None
    when: _When


def _when(span: Span, at: int | None) -> _When:
    return (at is None, at or 0, span.start_ns is None, span.start_ns or 0, span.order)


def retrieval_arguments(raw: Any) -> DecodedArguments:
    """A retriever's recorded input: a JSON object as is, other text as ``{"query": text}``."""
    if not isinstance(raw, str):
        return decode_arguments(raw)
    if raw.strip().startswith("{"):
        decoded = decode_arguments(raw)
        if not decoded.unparsed and isinstance(decoded.value, dict):
            return decoded
    return DecodedArguments({"query": raw} if raw.strip() else {}, None)


def _first(values: Sequence[Any]) -> Any:
    return next((v for v in values if v is not None), None)


def _fields(trace: Trace, call: Call, file: str) -> dict[str, Any]:
    infos = trace.infos
    members = call.members
    emitted = call.emission.call if call.emission else None
    anchor = members[0] if members else call.emission.model if call.emission else None
    if anchor is None:
        raise ValueError("a call has spans or an emission")
    info: Mapping[str, SpanInfo] = {m.span_id: infos[m.span_id] for m in members}
    outer = info[anchor.span_id] if members else None
    names = [outer.tool if outer is not None and outer.kind == "tool" else None]
    names += [emitted.name if emitted else None, *call_names(call, infos)]
    tool = next((n for n in names if n and n.strip()), None)
    if tool is None:
        raise InputError(
            f"tool span {anchor.span_id} has no tool name",
            file=file,
            line=anchor.line,
            field="tool",
        )
    inner = [info[m.span_id] for m in members[1:]]
    sources = [outer, emitted, *inner] if outer is not None else [emitted]
    decoded, recorded = DecodedArguments({}, None), False
    for source in sources:
        if source is not None and source.arguments is not None:
            retrieval = isinstance(source, SpanInfo) and source.kind == "retrieval"
            decoded = (retrieval_arguments if retrieval else decode_arguments)(source.arguments)
            recorded = True
            break
    output: Any = None
    for member in info.values():
        if member.kind == "retrieval":
            output = [doc_id for doc_id, _ in member.documents]
            break
        if member.result is not None:
            output = maybe_json(member.result)
            break
    at = At(file, anchor.line, f"span {anchor.span_id}")
    agent = trace.agent[anchor.span_id]
    metadata: dict[str, Any] = {"span_id": anchor.span_id} if members else {}
    for member in reversed(list(info.values())):
        metadata.update(member.extra)
    if len(members) > 1:
        metadata["span_ids"] = [m.span_id for m in members]
    if not members:
        metadata["emitted_by"] = anchor.span_id
    if any(i.kind == "retrieval" for i in info.values()):
        metadata["retrieval"] = True
    if agent is not None and infos[agent.span_id].agent_name:
        metadata["agent"] = infos[agent.span_id].agent_name
    if decoded.unparsed:
        metadata["arguments_unparsed"] = True
    if not recorded:
        metadata["arguments_recorded"] = False
    span_of = anchor if members else None
    call_ids = [outer.call_id if outer else None, emitted.call_id if emitted else None]
    call_ids += [i.call_id for i in inner]
    return {
        "tool": tool,
        "arguments": bounded(decoded.value, at.key("arguments")),
        "raw_arguments": decoded.raw,
        "output": bounded(output, at.key("output")),
        "error": _first([m.error or info[m.span_id].error for m in members]),
        "latency_ms": span_of.latency_ms if span_of else None,
        "tokens": _first([i.tokens for i in info.values()]),
        "cost": _first([i.cost for i in info.values()]),
        "approval": _first([i.approval for i in info.values()]),
        "resumed": any(i.resumed for i in info.values()),
        "call_id": next((i for i in call_ids if i), None),
        "parent": agent.span_id if agent else None,
        "start_time": span_of.start_s if span_of else None,
        "end_time": span_of.end_s if span_of else None,
        "metadata": metadata,
    }


def _turns_before(trace: Trace) -> dict[str, _TurnKey | None]:
    """Call span id -> the turn it shares when no emission claims it (see module docstring)."""
    out: dict[str, _TurnKey | None] = {}
    latest: dict[str | None, str] = {}
    for span in trace.ordered:
        kind = trace.infos[span.span_id].kind
        scope = trace.scope(span)
        if kind == "llm":
            latest[scope] = span.span_id
        elif kind in CALL_KINDS:
            out[span.span_id] = (scope, latest.get(scope)) if latest else None
    return out


def _drafts(trace: Trace, calls: Sequence[Call], retrieval_steps: bool, file: str) -> list[_Draft]:
    before = _turns_before(trace)
    drafts: list[_Draft] = []
    for call in calls:
        kinds = {trace.infos[m.span_id].kind for m in call.members}
        if call.members and kinds == {"retrieval"} and not retrieval_steps:
            continue
        model = call.emission.model if call.emission is not None else None
        if call.members:
            anchor = call.members[0]
            when = _when(anchor, anchor.start_ns)
        elif model is not None:
            anchor = model
            when = _when(model, model.end_ns if model.end_ns is not None else model.start_ns)
        else:
            continue
        scope = trace.scope(anchor)
        turn_key = (trace.scope(model), model.span_id) if model else before[anchor.span_id]
        drafts.append(_Draft(call, _fields(trace, call, file), scope, turn_key, when))
    block: dict[str, _When] = {}
    for draft in drafts:
        if draft.call.emission is not None:
            model_id = draft.call.emission.model.span_id
            block[model_id] = min(block.get(model_id, draft.when), draft.when)

    def place(draft: _Draft) -> tuple[_When, tuple[int, int, int]]:
        emission = draft.call.emission
        if emission is None:
            return draft.when, (1, 0, 0)
        return block[emission.model.span_id], (0, emission.call.index, emission.rank)

    drafts.sort(key=place)
    return drafts


def _show_results(trace: Trace, drafts: Sequence[_Draft], file: str) -> None:
    by_id: dict[str, list[int]] = {}
    by_name: dict[tuple[str | None, str], list[int]] = {}
    trace_wide: dict[str, list[int]] = {}
    for i, draft in enumerate(drafts):
        call_id = draft.fields["call_id"]
        if call_id:
            by_id.setdefault(call_id, []).append(i)
        tool = draft.fields["tool"]
        for name in dict.fromkeys([tool, tool.rsplit("/", 1)[-1]]):
            by_name.setdefault((draft.scope, name), []).append(i)
            trace_wide.setdefault(name, []).append(i)
    resolved: set[int] = set()
    for span in trace.ordered:
        info = trace.infos[span.span_id]
        if info.kind != "llm" or not info.tool_results:
            continue
        scope = trace.scope(span)
        ids: Counter[str] = Counter()
        names: Counter[str] = Counter()
        at = At(file, span.line, f"span {span.span_id}").key("tool_results")
        for result in info.tool_results:
            if result.call_id:
                listed = by_id.get(result.call_id, [])
                j = ids[result.call_id]
                ids[result.call_id] += 1
            elif result.name:
                listed = by_name.get((scope, result.name)) or trace_wide.get(result.name, [])
                j = names[result.name]
                names[result.name] += 1
            else:
                continue
            if j >= len(listed) or listed[j] in resolved:
                continue
            resolved.add(listed[j])
            fields = drafts[listed[j]].fields
            if fields["output"] is None and result.content is not None:
                fields["output"] = bounded(maybe_json(result.content), at)
            if fields["error"] is None and result.error:
                fields["error"] = result.error


def steps_of(
    trace: Trace, calls: Sequence[Call], *, retrieval_steps: bool, file: str
) -> tuple[list[Step], dict[str, Step]]:
    """The run's steps in order, and span id -> the step it is part of (every span of a
    call)."""
    drafts = _drafts(trace, calls, retrieval_steps, file)
    _show_results(trace, drafts, file)
    numbers: dict[_TurnKey, int] = {}
    steps: list[Step] = []
    step_of: dict[str, Step] = {}
    for draft in drafts:
        key = draft.turn_key
        turn = None if key is None else numbers.setdefault(key, len(numbers))
        step = Step(**draft.fields, turn=turn)
        steps.append(step)
        for member in draft.call.members:
            step_of[member.span_id] = step
    return steps, step_of
