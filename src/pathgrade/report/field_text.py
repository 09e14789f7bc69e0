"""The per-field details of aligned pairs (an aligned step's ``fields``) as plain text: under
the report's path table, one line per field of each pair compared field by field.

A line reads ``step 2 <- reference 1  summary  semantic 0.912 >= 0.85  match``: the agent
and reference positions, the field, the mode with what it measured against its threshold
(the cosine or the fuzzy ratio ``>=`` or ``<`` the threshold, or against a band's ends,
or ``in band [low, high) uncertain``; a guard's name and reason, ``guard:number (...)``;
``numeric`` the difference ``<=`` or ``>`` the tolerance; ``judge`` the verdict and the
start of its cache id, or the judge error) and ``match``, ``differs`` or ``undefined``.
Field names, modes and errors come from traces and endpoints: every text goes through
:func:`pathgrade.report.display.clip` (direction controls visible, long texts cut); numbers
through :func:`pathgrade.report.number_text.format_number`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pathgrade.report.display import clip
from pathgrade.report.number_text import format_number

__all__ = ["field_lines", "field_text"]

#: Characters of a field name or a judge error shown before it is cut.
FIELD_WIDTH = 40
#: Hex digits of a judge cache id shown.
ID_DIGITS = 12


def _number(value: Any) -> str:
    return format_number(value) if isinstance(value, int | float) else clip(str(value), 20)


def _judged(entry: Mapping[str, Any]) -> str:
    if "judge_error" in entry:
        return "judge_error: " + clip(str(entry["judge_error"]), FIELD_WIDTH * 2)
    said = "equivalent" if entry.get("verdict") else "not equivalent"
    judge_id = entry.get("judge_id")
    return f"judge says {said}" + (
        f" (id {clip(str(judge_id), ID_DIGITS)})" if judge_id is not None else ""
    )


def _measure(entry: Mapping[str, Any]) -> str:
    """What decided the field, against its threshold (module docstring)."""
    threshold = entry.get("threshold")
    matched = entry.get("match")
    decided_by = entry.get("decided_by")
    if isinstance(decided_by, str) and decided_by.startswith("guard:"):
        reason = entry.get("reason")
        return clip(decided_by, FIELD_WIDTH) + (
            f" ({clip(str(reason), FIELD_WIDTH * 2)})" if reason else ""
        )
    band = entry.get("band")
    if entry.get("uncertain") and isinstance(band, list) and len(band) == 2:
        where = (
            f"{_number(entry.get('similarity'))} in band [{_number(band[0])}, {_number(band[1])})"
        )
        if "judge_error" not in entry and "verdict" not in entry:
            return where + " uncertain"
        return where + ", " + _judged(entry)
    if "judge_error" in entry:
        return "judge_error: " + clip(str(entry["judge_error"]), FIELD_WIDTH * 2)
    if "verdict" in entry:
        return _judged(entry)
    if "similarity" in entry:
        text = _number(entry["similarity"])
        if threshold is not None:
            text += (" >= " if matched else " < ") + _number(threshold)
        elif isinstance(band, list) and len(band) == 2:
            text += f" >= {_number(band[1])}" if matched else f" < {_number(band[0])}"
        return text
    if "difference" in entry:
        text = "|difference| " + _number(entry["difference"])
        if threshold is not None:
            text += (" <= " if matched else " > ") + _number(threshold)
        return text
    return ""


def field_text(entry: Mapping[str, Any]) -> str:
    """One field's mode, measure and outcome, e.g. ``semantic 0.912 >= 0.85: match``."""
    matched = entry.get("match")
    outcome = "undefined" if matched is None else "match" if matched else "differs"
    measure = _measure(entry)
    mode = clip(str(entry.get("mode")), FIELD_WIDTH)
    return f"{mode} {measure}: {outcome}" if measure else f"{mode}: {outcome}"


def field_lines(alignment: Sequence[Mapping[str, Any]]) -> list[str]:
    """``Arguments, field by field`` and one line per field of each pair that has
    ``fields``; nothing when none has."""
    lines: list[str] = []
    for entry in alignment:
        fields = entry.get("fields")
        if not isinstance(fields, list):
            continue
        where = f"step {entry.get('agent_step')} <- reference {entry.get('reference_step')}"
        for item in fields:
            if isinstance(item, Mapping):
                name = clip(str(item.get("field") or "(all arguments)"), FIELD_WIDTH)
                lines.append(f"    {where}  {name}  {field_text(item)}")
    return ["  Arguments, field by field", *lines] if lines else []
