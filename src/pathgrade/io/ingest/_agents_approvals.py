"""Human-in-the-loop approvals in an OpenAI Agents SDK trace (``needs_approval`` tools).

What the SDK writes (``openai-agents`` 0.24.0, recorded by
``tools/producers/openai_agents_approval.py``; ``run_internal/tool_execution.py`` and
``turn_resolution.py``): every attempt of a function tool is a ``function`` span, opened
before the approval is looked up.

* A call waiting for approval (the run's *interruption*) is a ``function`` span with the
  call's ``input``, no ``output`` and no ``error``; the run stops. Resuming it from its
  ``RunState`` continues the same trace with a new ``agent`` span (under a new ``task``
  span), so a *resume* is an ``agent`` span, not inside a ``function`` span, that starts
  after the interruption ended.
* An approved call then runs: a second ``function`` span of the same tool and input with
  the output, before any model call (``generation``/``response`` span), since the call comes
  from the model response before the interruption.
* A call rejected on resume leaves no span: the next model call is shown the rejection
  message as the call's result.
* A call rejected before it is attempted (``always_reject`` for its tool, a rejection given
  in the run context) is a ``function`` span with the output and ``error.message`` the
  rejection message and ``error.data.error`` "Tool execution for <call id> was manually
  rejected by user."; the tool does not run.

Read as pathgrade's approval events (:mod:`pathgrade.metrics.trajectory.system_checks`), by
:func:`approval_marks`:

* interruption, then the approved span: one step at the interruption, ``approval:
  "granted"``, with the approved span's output and error (the approved span is no step);
* interruption, then a rejection span of the same call: one step, ``approval: "denied"``,
  failed with the rejection's error, its call id from the message;
* interruption, then a resume, then a model call with no decided span between: one step,
  ``approval: "denied"``, failed with :data:`REJECTED_ON_RESUME` (its output is the
  rejection message the model was shown);
* interruption, then a model call without a resume: an ordinary call whose tool returned
  ``None``;
* interruption at the end of the trace, not resumed: no step (the call was not made), and
  the model call that emitted it does not give it as a step either;
* a rejection span without an interruption: a denied, failed step.

Not read: an approval given before the call was first attempted (``always_approve`` after an
earlier interruption, an approval in the run context) leaves no mark, so such a call reads as
an ordinary call; without the input (``trace_include_sensitive_data=False``) interruptions
cannot be told apart (an interruption and its approved call read as two ordinary calls), and
only rejection spans are read.

The first call of each resumed run (the earliest waiting call the resume decides) is marked
``Step.resumed``. A resumed run's latency (:func:`agent_time`) is the time its root spans
cover, without the gaps between them, where a person was deciding.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pathgrade.core.types import Run
from pathgrade.io.ingest._common import maybe_json
from pathgrade.io.ingest.spans import Span, ancestors

__all__ = [
    "DATA",
    "REJECTED",
    "REJECTED_ON_RESUME",
    "Approvals",
    "Decision",
    "Mark",
    "approval_marks",
    "rejected_call_id",
]

#: The span attribute the reader keeps a span's ``span_data`` under.
DATA = "openai_agents.span_data"
#: The span attribute the reader puts a rejection's call id under.
REJECTED = "pathgrade.rejected_call_id"
#: The error of a call rejected when its run resumed (the SDK writes no span for it).
REJECTED_ON_RESUME = "Tool execution was manually rejected by user on resume."
Decision = Literal["granted", "denied"]
_REJECTED = re.compile(r"Tool execution for (\S+) was manually rejected by user\.?")
_MODEL = frozenset({"generation", "response"})


@dataclass(frozen=True)
class Mark:
    """What an approval makes of one ``function`` span.

    ``approval`` ``None``: the span is no step. Else the span is the step of the decided
    call, which takes its output, error and rejection call id from ``result`` (the approved
    or rejecting span; ``None``: from itself, or :data:`REJECTED_ON_RESUME` when denied).
    """

    approval: Decision | None
    result: Span | None = None


_NO_STEP = Mark(None)


@dataclass(frozen=True)
class Approvals:
    """The approval marks of one trace.

    ``marks``: span id -> :class:`Mark` of the ``function`` spans an approval decided (spans
    without one are ordinary calls). ``unattempted``: model span id -> the ``(tool,
    arguments)`` of the calls it emitted that still waited for approval when the trace
    ended (arguments decoded as JSON when they are an object or array).
    """

    marks: Mapping[str, Mark]
    unattempted: Mapping[str, tuple[tuple[str, Any], ...]]
    #: Whether a run of the trace resumed after an interruption (the time between the
    #: interrupted run and its resumption is a person's, not the agent's).
    resumed: bool = False
    #: The interruptions whose decided call is the first call of a resumed run (the earliest
    #: interruption each resume decides): their steps carry ``Step.resumed``.
    resume_points: frozenset[str] = frozenset()

    def emitted_and_unattempted(self, model_span: str, name: str | None, arguments: Any) -> bool:
        """The emitted call ``name(arguments)`` of ``model_span`` was never attempted."""
        calls = self.unattempted.get(model_span, ())
        return (name, maybe_json(arguments)) in calls


def rejected_call_id(error: Any) -> str | None:
    """The call id a rejection's ``error`` object names (``None``: not a rejection)."""
    if not isinstance(error, Mapping):
        return None
    data = error.get("data")
    detail = data.get("error") if isinstance(data, Mapping) else None
    found = _REJECTED.fullmatch(detail) if isinstance(detail, str) else None
    return found.group(1) if found else None


def _key(data: Mapping[str, Any]) -> tuple[str, str] | None:
    name, arguments = data.get("name"), data.get("input")
    if not isinstance(name, str) or not isinstance(arguments, str):
        return None  # without the input (sensitive data off) no call can be told apart
    return name, arguments


def _after(first: Span, later: Span) -> bool:
    """``later`` starts after ``first`` ended (when both times are known): not a parallel
    call of the same response, not a span enclosing ``first``."""
    return first.end_ns is None or later.start_ns is None or later.start_ns >= first.end_ns


def _in_function(span: Span, index: Mapping[str, Span]) -> bool:
    """``span`` runs inside a tool call (an agent used as a tool), not as a run of its own."""
    return any(
        isinstance(data := a.attributes.get(DATA), Mapping) and data.get("type") == "function"
        for a in ancestors(span, index)
    )


def approval_marks(spans: Sequence[Span]) -> Approvals:
    """The :class:`Approvals` of one trace (the module docstring's rules), ``spans`` in time
    order."""
    index = {s.span_id: s for s in spans}
    marks: dict[str, Mark] = {}
    # call -> its interruptions, oldest first, each with the model span before it
    waiting: dict[tuple[str, str], list[tuple[Span, str | None]]] = {}
    resumed: set[str] = set()  # interruptions a resumed run follows
    any_resume = False
    points: set[str] = set()  # the earliest interruption each resume decides
    model: str | None = None
    for span in spans:
        data = span.attributes.get(DATA)
        kind = data.get("type") if isinstance(data, Mapping) else None
        if not isinstance(kind, str):
            continue  # no type (or not a string): structure only, as the reader has it
        if kind == "agent" and not _in_function(span, index):
            followed = [i for q in waiting.values() for i, _ in q if _after(i, span)]
            new = [i for i in followed if i.span_id not in resumed]
            if new:
                points.add(min(new, key=lambda i: (i.start_ns or 0, i.order)).span_id)
            resumed.update(i.span_id for i in followed)
            any_resume = any_resume or bool(followed)
        elif kind in _MODEL:
            for queue in waiting.values():
                for interruption, _ in queue:
                    if interruption.span_id in resumed:
                        marks[interruption.span_id] = Mark("denied")
            waiting.clear()
            resumed.clear()
            model = span.span_id
        elif kind == "function" and isinstance(data, Mapping):
            _function(span, data, model, waiting, marks)
    unattempted: dict[str, list[tuple[str, Any]]] = {}
    for (name, arguments), queue in waiting.items():  # the trace ends before a model call
        for interruption, emitted_by in queue:
            if interruption.span_id in resumed:
                marks[interruption.span_id] = Mark("denied")
                continue
            marks[interruption.span_id] = _NO_STEP
            if emitted_by is not None:
                unattempted.setdefault(emitted_by, []).append((name, maybe_json(arguments)))
    unattempted_calls = {k: tuple(v) for k, v in unattempted.items()}
    return Approvals(marks, unattempted_calls, any_resume, frozenset(points))


def _function(
    span: Span,
    data: Mapping[str, Any],
    model: str | None,
    waiting: dict[tuple[str, str], list[tuple[Span, str | None]]],
    marks: dict[str, Mark],
) -> None:
    """Mark one ``function`` span: the decision of a waiting interruption, a rejection, or
    a new interruption."""
    key = _key(data)
    rejected = span.attributes.get(REJECTED) is not None
    queue = waiting.get(key) if key is not None else None
    first = queue[0][0] if queue and (rejected or _after(queue[0][0], span)) else None
    if queue and first is not None:
        queue.pop(0)
        marks[first.span_id] = Mark("denied" if rejected else "granted", span)
        marks[span.span_id] = _NO_STEP
    elif rejected:
        marks[span.span_id] = Mark("denied")
    elif key is not None and data.get("output") is None and span.error is None:
        waiting.setdefault(key, []).append((span, model))


def agent_time(run: Run, spans: Sequence[Span]) -> Run:
    """A run resumed after an approval: its latency is the time its root spans (one per run
    of the agent: the interrupted one, each resumption) cover, overlaps once, without the
    gaps between them, where a person was deciding; unchanged when a root has no times."""
    roots = [(s.start_ns, s.end_ns) for s in spans if s.parent_id is None]
    timed = [(a, b) for a, b in roots if a is not None and b is not None]
    if run.usage is None or len(roots) < 2 or len(timed) < len(roots):
        return run
    usage = run.usage.model_copy(update={"latency_ms": covered_ns(timed) / 1e6})
    return run.model_copy(update={"usage": usage})


def covered_ns(intervals: Sequence[tuple[int, int]]) -> int:
    """The length of the union of ``[start, end]`` intervals (overlaps counted once)."""
    total, reach = 0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += max(end - start, 0)
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total
