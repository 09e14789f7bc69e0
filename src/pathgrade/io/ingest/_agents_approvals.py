"""Human-in-the-loop approvals in an OpenAI Agents SDK trace (``needs_approval`` tools).

How the SDK (``openai-agents``, ``run_internal/tool_execution.py``) writes them: every call
of a function tool is a ``function`` span, opened before the approval is looked up.

* A call waiting for approval (the run's *interruption*) is a ``function`` span with the
  call's ``input``, no ``output`` and no ``error``; the run stops. Resuming the run from its
  ``RunState`` continues the same trace, and the decided call is a second ``function`` span
  of the same tool and input, with no model call (``generation``/``response`` span) between
  the two, since the tool call comes from the model response before the interruption.
* A rejected call is a ``function`` span with the error ``{"message": <the rejection
  message, or "Tool execution rejected">, "data": {"tool_name", "error": "Tool execution for
  <call id> was manually rejected by user."}}``; the tool does not run.
* An approved call runs as any other: its span has the output.

Read as pathgrade's approval events (:mod:`pathgrade.metrics.trajectory.system_checks`):
a rejected span's step has ``approval: "denied"`` (and its error, and the call id from the
message); the span that follows an interruption of the same call has ``approval:
"granted"`` unless it is rejected; the interruption span itself is no step (the call was
not made then). A call approved before it was first attempted (``always_approve``, an
approval given in the run context) leaves no mark: it reads as an ordinary call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pathgrade.io.ingest.spans import Span

__all__ = ["DATA", "REJECTED", "Decision", "Mark", "approval_marks", "rejected_call_id"]

#: The span attribute the reader keeps a span's ``span_data`` under.
DATA = "openai_agents.span_data"
#: The span attribute the reader puts a rejection's call id under.
REJECTED = "pathgrade.rejected_call_id"
Mark = Literal["pending", "granted", "denied"]
Decision = Literal["granted", "denied"]
_REJECTED = re.compile(r"Tool execution for (\S+) was manually rejected by user\.?")
_MODEL = frozenset({"generation", "response"})


def rejected_call_id(error: Any) -> str | None:
    """The call id a rejection's ``error`` object names (``None``: not a rejection)."""
    if not isinstance(error, Mapping):
        return None
    data = error.get("data")
    detail = data.get("error") if isinstance(data, Mapping) else None
    found = _REJECTED.fullmatch(detail) if isinstance(detail, str) else None
    return found.group(1) if found else None


def _key(data: Mapping[str, Any]) -> tuple[Any, str] | None:
    name, arguments = data.get("name"), data.get("input")
    if not isinstance(name, str) or not isinstance(arguments, str):
        return None  # without the input (sensitive data off) no call can be told apart
    return name, arguments


def _after(first: Span, later: Span) -> bool:
    """``later`` starts after ``first`` ended (when both times are known): not a parallel
    call of the same response."""
    return first.end_ns is None or later.start_ns is None or later.start_ns >= first.end_ns


def approval_marks(spans: Sequence[Span]) -> dict[str, Mark]:
    """Span id -> its approval mark (module docstring), ``spans`` in time order; a rejected
    span carries its call id under :data:`REJECTED`."""
    marks: dict[str, Mark] = {}
    waiting: dict[tuple[Any, str], str] = {}  # call -> its interruption span, until a model call
    index = {s.span_id: s for s in spans}
    for span in spans:
        data = span.attributes.get(DATA)
        if not isinstance(data, Mapping):
            continue
        kind = data.get("type")
        if not isinstance(kind, str):
            continue
        if kind in _MODEL:
            waiting.clear()
            continue
        if kind != "function":
            continue
        key = _key(data)
        if span.attributes.get(REJECTED) is not None:
            marks[span.span_id] = "denied"
            if key is not None and key in waiting:
                marks[waiting.pop(key)] = "pending"
            continue
        if key is None:
            continue
        if key in waiting and _after(index[waiting[key]], span):
            marks[waiting.pop(key)] = "pending"
            marks[span.span_id] = "granted"
        elif data.get("output") is None and span.error is None:
            waiting[key] = span.span_id
    return marks
