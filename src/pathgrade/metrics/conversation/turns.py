"""The conversation layer over a run set: per-turn paths, the metrics of
:mod:`~pathgrade.metrics.conversation.definition`, and each conversation's record entry.

**Per-turn paths.** A case with ``turn_references`` is scored turn by turn: turn ``i`` of the
run (its steps; none when the run has fewer turns) against ``turn_references[i]`` (the empty
path when the run has more turns than references), with the trajectory scorer itself (the
case's ``order``, ``tool_kinds``, ``forbidden_tools`` and ``forbidden_actions``; budgets and
required tools are the conversation's, not a turn's). So a turn's ``path_score`` and defects
mean exactly what they mean for a run. Over the conversation:

- ``turn_path_score``: the mean of the turns' ``path_score``;
- ``turns_on_path``: the share of turns with ``path_score`` 100 (no defect);
- ``first_off_path_turn``: the first turn (from 1) whose ``path_score`` is below 100.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import ScoringConfig
from pathgrade.core.conversation import Turn
from pathgrade.core.types import Case, Run, format_step
from pathgrade.metrics.conversation.definition import (
    CONVERSATION_METRICS,
    conversation_score,
    conversation_turns,
)
from pathgrade.metrics.trajectory.scorer import score_trajectories

__all__ = ["TURN_PATH_METRICS", "ConversationColumns", "score_conversations"]

FloatArray = npt.NDArray[np.float64]
#: The per-turn path metrics over a conversation, in catalogue order.
TURN_PATH_METRICS = ("turn_path_score", "turns_on_path", "first_off_path_turn")
_SEPARATOR = "\x1f"  # joins a case id and a turn number into a turn's case id


@dataclass
class ConversationColumns:
    """Per-run columns (NaN: undefined) and each conversation's record entry by run index."""

    values: dict[str, FloatArray] = field(default_factory=dict)
    details: dict[int, dict[str, Any]] = field(default_factory=dict)


def _turn_pairs(
    cases: Mapping[str, Case], runs: Sequence[Run], indices: Sequence[int]
) -> tuple[dict[str, Case], list[Run], list[tuple[int, int]]]:
    """One case and one run per turn of each run whose case has ``turn_references``; the
    ``(run index, turn index)`` of each."""
    turn_cases: dict[str, Case] = {}
    turn_runs: list[Run] = []
    where: list[tuple[int, int]] = []
    for index in indices:
        run = runs[index]
        case = cases[run.case_id]
        references = case.turn_references
        if references is None:
            continue
        turns = conversation_turns(case, run)
        for number in range(max(len(turns), len(references))):
            case_id = f"{case.case_id}{_SEPARATOR}{number}"
            if case_id not in turn_cases:
                turn_cases[case_id] = Case(
                    case_id=case_id,
                    reference=references[number] if number < len(references) else (),
                    order=case.order,
                    tool_kinds=case.tool_kinds,
                    forbidden_tools=case.forbidden_tools,
                    forbidden_actions=case.forbidden_actions,
                )
            steps = turns[number].steps if number < len(turns) else ()
            turn_runs.append(Run(case_id=case_id, run_id=run.run_id, trial=run.trial, steps=steps))
            where.append((index, number))
    return turn_cases, turn_runs, where


def score_conversations(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    goal_success: FloatArray,
    indices: Sequence[int],
) -> ConversationColumns:
    """The conversation layer of runs ``indices`` (module docstring; the others stay NaN)."""
    n_runs = len(runs)
    out = ConversationColumns()
    names = (*CONVERSATION_METRICS, *TURN_PATH_METRICS)
    for name in names:
        out.values[name] = np.full(n_runs, math.nan)
    turn_cases, turn_runs, where = _turn_pairs(cases, runs, indices)
    by_run: dict[int, list[tuple[float, list[dict[str, Any]]]]] = {}
    if turn_runs:
        scored = score_trajectories(turn_cases, turn_runs, config)
        path_scores = scored.metrics["path_score"]
        for position, (index, _number) in enumerate(where):
            defects = [d.to_dict() for d in scored.details(position)[0]]
            by_run.setdefault(index, []).append((float(path_scores[position]), defects))
    for index in indices:
        run = runs[index]
        case = cases[run.case_id]
        goal = float(goal_success[index])
        score = conversation_score(case, run, None if math.isnan(goal) else goal)
        for name, value in score.metrics.items():
            if value is not None:
                out.values[name][index] = value
        turns = conversation_turns(case, run)
        paths = by_run.get(index)
        if paths is not None:
            points = [p for p, _ in paths]
            out.values["turn_path_score"][index] = sum(points) / len(points)
            out.values["turns_on_path"][index] = sum(p >= 100.0 for p in points) / len(points)
            off = next((n for n, p in enumerate(points, 1) if p < 100.0), None)
            if off is not None:
                out.values["first_off_path_turn"][index] = off
        out.details[index] = _entry(turns, paths, score.notes)
    return out


def _entry(
    turns: Sequence[Turn],
    paths: Sequence[tuple[float, list[dict[str, Any]]]] | None,
    notes: Mapping[int, list[str]],
) -> dict[str, Any]:
    """A conversation's record entry (``ResultRecord.conversation``)."""
    rows: list[dict[str, Any]] = []
    n_rows = max(len(turns), len(paths or ()))
    for number in range(n_rows):
        turn = turns[number] if number < len(turns) else None
        row: dict[str, Any] = {
            "turn": number + 1,
            "user": None if turn is None else turn.user,
            "calls": [] if turn is None else [format_step(s) for s in turn.steps],
            "reply": None if turn is None else turn.reply,
        }
        if paths is not None and number < len(paths):
            row["path_score"] = paths[number][0]
            row["defects"] = paths[number][1]
        row["notes"] = list(notes.get(number + 1, ()))
        rows.append(row)
    return {"turns": rows, "notes": list(notes.get(0, ())), "ended_by": turns[-1].ended_by}
