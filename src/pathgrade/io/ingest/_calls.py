"""Which spans and emitted tool calls of one trace are one call (one step of the path).

*Candidates* are the tool and retrieval spans. Two candidates are one call when

- they carry the same call id and their times overlap (a call id used again later, as some
  model servers do, is a new call; spans without times overlap everything), or
- a tool span wraps exactly one candidate: it is the tool span's only *candidate child* (its
  nearest candidate descendant with no agent or model span between them), and the two do not
  carry different call ids (an ``execute_tool`` span around an MCP ``tools/call`` span, a
  LangChain tool around its retriever).

Members of a call are ordered outer first: by nesting depth inside the call, tool spans before
retrieval spans, then time order. The first member is the call's *outer* span.

The model spans' emitted calls (in time order of the model spans, then by ``index``) are then
matched to calls, each side at most once:

1. by call id: the j-th emission of an id takes the j-th call carrying it (time order);
2. else by name, in order, within the model span's agent scope, among the calls whose outer
   span starts in the emission's window: at or after the model span's start and before the
   start of the scope's next model span (unknown times: no bound); an emission and a call
   carrying different ids never match;
3. else the same, among the calls of scopes where no model emitted anything (a LangGraph
   ``tools`` node, a LangChain executor whose model runs in a child chain).

An emission matched to nothing is a call of its own (client-level instrumentation: model
spans only). An emission without a name that matched nothing is dropped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pathgrade.io.ingest._info import EmittedCall, SpanInfo
from pathgrade.io.ingest.spans import Span, ancestors

#: Span kinds that are calls, and those a wrapped call is not looked for across.
CALL_KINDS = frozenset({"tool", "retrieval"})
_BOUNDARY_KINDS = frozenset({"tool", "retrieval", "agent", "llm"})


@dataclass(frozen=True)
class Trace:
    """The spans of one trace in time order, with their classification and agent scopes."""

    ordered: Sequence[Span]
    index: Mapping[str, Span]
    infos: Mapping[str, SpanInfo]
    agent: Mapping[str, Span | None]  # span id -> nearest agent ancestor
    position: Mapping[str, int]  # span id -> index in ``ordered``

    def scope(self, span: Span) -> str | None:
        """The span id of the span's nearest agent ancestor (``None``: the trace itself)."""
        agent = self.agent[span.span_id]
        return agent.span_id if agent else None


@dataclass(frozen=True)
class Emission:
    """One emitted call of a model span; ``rank`` is its place among all emissions."""

    model: Span
    call: EmittedCall
    rank: int


@dataclass(frozen=True)
class Call:
    """One call: its spans (outer first; none for an emission alone) and its emission."""

    members: tuple[Span, ...]
    emission: Emission | None = None


def nearest(
    ordered: Sequence[Span], index: Mapping[str, Span], keep: Callable[[Span], bool]
) -> dict[str, Span | None]:
    """Span id -> its nearest ancestor for which ``keep`` holds (``None`` when there is none).

    Linear: walks are memoised. A walk that meets a parent cycle falls back to
    :func:`~pathgrade.io.ingest.spans.ancestors` for its own span (cycles are cut).
    """
    found: dict[str, Span | None] = {}
    for span in ordered:
        if span.span_id in found:
            continue
        path = [span]
        seen = {span.span_id}
        current = span
        result: Span | None = None
        cyclic = False
        while True:
            parent_id = current.parent_id
            if parent_id is None or parent_id not in index:
                break
            if parent_id in seen:
                cyclic = True
                break
            parent = index[parent_id]
            if keep(parent):
                result = parent
                break
            if parent_id in found:
                result = found[parent_id]
                cyclic = result is not None and result.span_id in seen
                break
            path.append(parent)
            seen.add(parent_id)
            current = parent
        if cyclic:
            found[span.span_id] = next((a for a in ancestors(span, index) if keep(a)), None)
            continue
        for member in path:
            found[member.span_id] = result
    return found


def _name(span: Span, info: SpanInfo) -> str | None:
    """A candidate's own name: a tool's ``tool``; a retriever's ``tool``, else span name."""
    for value in (info.tool, span.name if info.kind == "retrieval" else None):
        if value and value.strip():
            return value
    return "retrieval" if info.kind == "retrieval" else None


def call_names(call: Call, infos: Mapping[str, SpanInfo]) -> list[str]:
    """Every name the call's spans give it (a ``server/tool`` name also as ``tool``)."""
    out: list[str] = []
    for span in call.members:
        name = _name(span, infos[span.span_id])
        if name:
            out.append(name)
            if "/" in name:
                out.append(name.rsplit("/", 1)[1])
    return out


def _call_ids(call: Call, infos: Mapping[str, SpanInfo]) -> list[str]:
    return [i for i in (infos[s.span_id].call_id for s in call.members) if i]


def group_calls(trace: Trace) -> list[tuple[Span, ...]]:
    """The candidates grouped into calls (members outer first), in time order of the outer."""
    infos = trace.infos
    candidates = [s for s in trace.ordered if infos[s.span_id].kind in CALL_KINDS]
    root = {s.span_id: s.span_id for s in candidates}

    def find(span_id: str) -> str:
        while root[span_id] != span_id:
            root[span_id] = root[root[span_id]]
            span_id = root[span_id]
        return span_id

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            first, second = sorted((ra, rb), key=trace.position.__getitem__)
            root[second] = first

    same_id: dict[str, list[Span]] = {}
    for span in candidates:
        call_id = infos[span.span_id].call_id
        if call_id:
            same_id.setdefault(call_id, []).append(span)
    for spans in same_id.values():
        first, end = spans[0], spans[0].end_ns
        for span in spans[1:]:
            if span.start_ns is None or end is None or span.start_ns <= end:
                union(first.span_id, span.span_id)
                end = None if end is None or span.end_ns is None else max(end, span.end_ns)
            else:
                first, end = span, span.end_ns

    boundary = nearest(
        trace.ordered, trace.index, lambda s: infos[s.span_id].kind in _BOUNDARY_KINDS
    )
    children: dict[str, list[Span]] = {}
    for span in candidates:
        parent = boundary[span.span_id]
        if parent is not None and infos[parent.span_id].kind in CALL_KINDS:
            children.setdefault(parent.span_id, []).append(span)
    for parent_id, kids in children.items():
        outer_id, inner_id = infos[parent_id].call_id, infos[kids[0].span_id].call_id
        clash = outer_id and inner_id and outer_id != inner_id
        if infos[parent_id].kind == "tool" and len(kids) == 1 and not clash:
            union(parent_id, kids[0].span_id)

    groups: dict[str, list[Span]] = {}
    for span in candidates:
        groups.setdefault(find(span.span_id), []).append(span)
    depth: dict[str, int] = {}

    def depth_of(span: Span, group: str) -> int:
        """How many members of the span's call are above it (memoised; cycles cut)."""
        chain: list[Span] = []
        on_chain: set[str] = set()
        current: Span | None = span
        while current is not None and current.span_id not in depth:
            if current.span_id in on_chain:
                current = None
                break
            chain.append(current)
            on_chain.add(current.span_id)
            parent = boundary[current.span_id]
            if parent is None or parent.span_id not in root or find(parent.span_id) != group:
                parent = None
            current = parent
        level = depth[current.span_id] + 1 if current is not None else 0
        for member in reversed(chain):
            depth[member.span_id] = level
            level += 1
        return depth[span.span_id]

    out: list[tuple[Span, ...]] = []
    for group, members in groups.items():
        members.sort(
            key=lambda s: (
                depth_of(s, group),
                infos[s.span_id].kind != "tool",
                trace.position[s.span_id],
            )
        )
        out.append(tuple(members))
    out.sort(key=lambda m: trace.position[m[0].span_id])
    return out


def emissions(trace: Trace) -> list[Emission]:
    """Every emitted call, model spans in time order, then by ``index`` (ties: as listed)."""
    out: list[Emission] = []
    for span in trace.ordered:
        info = trace.infos[span.span_id]
        if info.kind == "llm":
            for call in sorted(info.emitted_calls, key=lambda c: c.index):
                out.append(Emission(span, call, len(out)))
    return out


def match(trace: Trace, groups: Sequence[tuple[Span, ...]]) -> list[Call]:
    """The calls of the trace: the groups with their matched emissions, then the rest."""
    calls = [Call(g) for g in groups]
    taken: list[Emission | None] = [None] * len(calls)
    by_id: dict[str, deque[int]] = {}
    for i, call in enumerate(calls):
        for call_id in dict.fromkeys(_call_ids(call, trace.infos)):
            by_id.setdefault(call_id, deque()).append(i)
    every = emissions(trace)
    pending: list[Emission] = []
    for emission in every:
        queue = by_id.get(emission.call.call_id or "")
        while queue and taken[queue[0]] is not None:
            queue.popleft()
        if queue:
            taken[queue.popleft()] = emission
        else:
            pending.append(emission)
    until: dict[str, int | None] = {}
    latest: dict[str | None, str] = {}
    for span in trace.ordered:
        if trace.infos[span.span_id].kind == "llm":
            scope = trace.scope(span)
            if scope in latest:
                until[latest[scope]] = span.start_ns
            latest[scope] = span.span_id
    pending = _by_name(trace, calls, taken, pending, until, scoped=True)
    emitting = frozenset(trace.scope(e.model) for e in every)
    pending = _by_name(trace, calls, taken, pending, until, scoped=False, skip=emitting)
    out = [Call(c.members, e) for c, e in zip(calls, taken, strict=True)]
    out.extend(Call((), e) for e in pending if e.call.name and e.call.name.strip())
    return out


def _by_name(
    trace: Trace,
    calls: Sequence[Call],
    taken: list[Emission | None],
    pending: Iterable[Emission],
    until: Mapping[str, int | None],
    *,
    scoped: bool,
    skip: frozenset[str | None] = frozenset(),
) -> list[Emission]:
    """Match emissions to free calls by name in order (see the module docstring, 2 and 3)."""
    with_id: dict[tuple[str | None, str], deque[int]] = {}
    without_id: dict[tuple[str | None, str], deque[int]] = {}
    for i, call in enumerate(calls):
        scope = trace.scope(call.members[0])
        if taken[i] is not None or (not scoped and scope in skip):
            continue
        queues = with_id if _call_ids(call, trace.infos) else without_id
        for name in dict.fromkeys(call_names(call, trace.infos)):
            queues.setdefault((scope if scoped else None, name), deque()).append(i)
    left: list[Emission] = []
    for emission in pending:
        key = (trace.scope(emission.model) if scoped else None, emission.call.name or "")
        start, end = emission.model.start_ns, until.get(emission.model.span_id)
        fronts = []
        for queues in (without_id, with_id) if not emission.call.call_id else (without_id,):
            queue = queues.get(key)
            while queue and (taken[queue[0]] is not None or _too_early(calls[queue[0]], start)):
                queue.popleft()
            if queue and not _too_late(calls[queue[0]], end):
                fronts.append(queue[0])
        if fronts and emission.call.name:
            taken[min(fronts)] = emission
        else:
            left.append(emission)
    return left


def _too_early(call: Call, start: int | None) -> bool:
    """Whether the call's outer span starts before ``start`` (unknown times: no)."""
    begin = call.members[0].start_ns
    return start is not None and begin is not None and begin < start


def _too_late(call: Call, end: int | None) -> bool:
    """Whether the call's outer span starts at or after ``end`` (unknown times: no)."""
    begin = call.members[0].start_ns
    return end is not None and begin is not None and begin >= end
