"""The conversation of a case row: the record's ``conversation`` entry, for the case view.

A run with turns has ``steps`` = its turns' steps in order (docs/conversations.md), so the
``k``-th call of turn ``t`` is the run's agent step ``sum(len(calls) of the turns before t) +
k``. Each turn of the row carries those positions as ``steps``, so the page puts the step
marks (:mod:`pathgrade.report.step_flags`) and the trace's arguments, outputs and errors on
the turn's calls. When the calls do not add up to the trace's steps (a trace cut, a record
written by hand), no turn has ``steps`` and the calls are shown as recorded, without marks.

The record is never changed: the entry is copied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["conversation_entry"]


def _calls(turn: Mapping[str, Any]) -> list[Any]:
    calls = turn.get("calls")
    return list(calls) if isinstance(calls, list | tuple) else []


def conversation_entry(
    record: Mapping[str, Any], trace: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """The row's ``conversation``: the record's turns (each with the positions of its calls
    among the run's steps as ``steps``, when they match the trace), ``notes`` and
    ``ended_by``; ``None`` for a run that is not a conversation."""
    entry = record.get("conversation")
    if not isinstance(entry, Mapping):
        return None
    turns = [dict(t) for t in entry.get("turns") or () if isinstance(t, Mapping)]
    total = sum(len(_calls(t)) for t in turns)
    steps = (trace or {}).get("steps")
    placed = trace is None or (isinstance(steps, list | tuple) and len(steps) == total)
    start = 0
    for turn in turns:
        calls = _calls(turn)
        turn["calls"] = calls
        if placed:
            turn["steps"] = list(range(start, start + len(calls)))
        start += len(calls)
    notes = entry.get("notes")
    return {
        "turns": turns,
        "notes": list(notes) if isinstance(notes, list | tuple) else [],
        "ended_by": entry.get("ended_by"),
    }
