"""One run's aligned path and defects as plain text, laid out as the HTML report's path view
(``report.js``'s trajectory and defects tables): what ``pathgrade.testing.assert_path`` says
when it fails.

The input is the run's result record (``RunResult.to_dict()``, a stored record). The path
table has one row per alignment entry: the reference step's position and text, the entry's
op (``match``, ``substitution``, ``extra`` for an insertion, ``missing`` for a deletion;
a pair says whether its arguments match), the agent step's text and position, and the
step's marks (:mod:`pathgrade.report.step_flags`, most severe first: a forbidden
``delete_account`` reads ``✖ forbidden``, never like an extra read); under it, the pairs
compared field by field, one line per field (:mod:`pathgrade.report.field_text`). The
defects table has the kind, penalty, detail and the agent and reference step of each
defect. Numbers are written by :func:`pathgrade.report.number_text.format_number`; texts
by :func:`pathgrade.report.display.clip` (direction controls visible, long texts cut).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pathgrade.report.display import clip
from pathgrade.report.field_text import field_lines
from pathgrade.report.number_text import format_number
from pathgrade.report.step_flags import STEP_FLAGS, StepFlag, flag_keys

__all__ = ["OP_LABELS", "STEP_WIDTH", "defect_lines", "path_lines", "render_path", "step_marks"]

#: The label of each alignment op, as the report's path view writes it.
OP_LABELS = {
    "match": "match",
    "substitution": "substitution",
    "insertion": "extra",
    "deletion": "missing",
}
#: Characters of a step's text (or a defect's detail) shown before it is cut.
STEP_WIDTH = 60
_FLAGS = {flag.key: flag for flag in STEP_FLAGS}


def step_marks(
    record: Mapping[str, Any],
    failed: Iterable[int] = (),
    dangerous: Iterable[int] = (),
) -> dict[int, list[StepFlag]]:
    """The marks of each agent step, most severe first
    (:func:`pathgrade.report.step_flags.flag_keys`): from the record's defects naming the
    step, ``failed`` on the steps that returned an error, ``dangerous`` on the tool layer's
    dangerous false positives."""
    keys = flag_keys(record, dangerous=dangerous, failed=failed)
    return {step: [_FLAGS[key] for key in flags] for step, flags in keys.items()}


def _position(value: Any) -> str:
    return "" if value is None else str(value)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    """Rows padded to column widths (columns in ``right`` right-aligned), trailing blanks
    dropped."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    out = []
    for row in [headers, *rows]:
        cells = [
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def path_lines(record: Mapping[str, Any], failed: Iterable[int] = ()) -> list[str]:
    """The path table (module docstring) and the legend of the marks it uses."""
    marks = step_marks(record, failed)
    reference = record.get("reference_index")
    chosen = (
        "no reference path"
        if reference is None
        else f"chosen reference: reference path #{reference} of the case"
    )
    lines = [f"Trajectory: reference and agent steps, aligned ({chosen})"]
    alignment = record.get("alignment") or []
    if not alignment:
        return [*lines, "  no alignment (no reference path, or no steps)"]
    rows = []
    for entry in alignment:
        op = str(entry.get("op"))
        label = OP_LABELS.get(op, op)
        if op in ("match", "substitution"):
            label += " (arguments match)" if entry.get("arguments_match") else " (arguments differ)"
        step = entry.get("agent_step")
        shown = marks.get(step, []) if isinstance(step, int) else []
        rows.append(
            [
                _position(entry.get("reference_step")),
                clip(str(entry.get("reference") or ""), STEP_WIDTH),
                label,
                clip(str(entry.get("agent") or ""), STEP_WIDTH),
                _position(step),
                " ".join(f"{flag.icon} {flag.label}" for flag in shown),
            ]
        )
    headers = ["#", "reference step", "alignment", "agent step", "#", "marks"]
    lines += ["  " + line for line in _table(headers, rows, right={0, 4})]
    used = {flag.key for flags in marks.values() for flag in flags}
    legend = [
        f"{flag.icon} {flag.label}: {flag.description}" for flag in STEP_FLAGS if flag.key in used
    ]
    if legend:
        lines.append("  marks: " + "; ".join(legend))
    return lines + field_lines(alignment)  # pairs compared field by field (field modes)


def defect_lines(record: Mapping[str, Any]) -> list[str]:
    """The defects table (module docstring); ``no defects`` when there is none."""
    lines = ["Defects and penalties"]
    defects = record.get("defects") or []
    if not defects:
        return [*lines, "  no defects"]
    rows = [
        [
            clip(str(d.get("kind")), STEP_WIDTH),
            format_number(d.get("penalty")),
            clip(str(d.get("detail") or ""), STEP_WIDTH * 2),
            format_number(d.get("agent_step")),
            format_number(d.get("reference_step")),
        ]
        for d in defects
    ]
    headers = ["defect", "penalty", "detail", "agent step", "reference step"]
    return lines + ["  " + line for line in _table(headers, rows, right={1, 3, 4})]


def render_path(record: Mapping[str, Any], failed: Iterable[int] = ()) -> str:
    """The path table and the defects table of one record, as lines of text.

    Args:
        record: the run's result record (``RunResult.to_dict()`` or a stored record).
        failed: the positions of the agent steps that returned an error (``Step.error``;
            the record does not keep them), marked ``failed``.
    """
    return "\n".join([*path_lines(record, failed), *defect_lines(record)])
