"""How often trials of a conversation diverge, and where (docs/conversations.md).

Two trials of a case are the same at turn ``t`` when their turn ``t`` has the same user
message, the same calls (tool and arguments, in order; arguments as canonical JSON, so key order
does not count and ``1`` and ``1.0`` differ) and the same reply. A case's trials
*diverge* when some trial differs from the case's first trial (the lowest trial number, then
input order) at some turn; its *first divergent turn* is the smallest such ``t`` (from 1) over
its trials. A transcript that ends sooner differs at its first missing turn, so that turn is at
most the shorter length + 1. Runs without turns are one turn (their steps and answer). With a
scripted user and a deterministic agent no case diverges; with an LLM user this is how
repeatable the simulation is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

import orjson

from pathgrade.core.types import Run, Step

__all__ = ["first_difference", "trial_divergence"]

_Key = tuple[Hashable, ...]


def _step_key(step: Step) -> Hashable:
    return (step.tool, orjson.dumps(step.arguments, option=orjson.OPT_SORT_KEYS))


def _transcript(run: Run) -> list[_Key]:
    if run.turns is None:
        return [(None, tuple(map(_step_key, run.steps)), run.answer)]
    return [(t.user, tuple(map(_step_key, t.steps)), t.reply) for t in run.turns]


def first_difference(a: Sequence[_Key], b: Sequence[_Key]) -> int | None:
    """The first turn (from 1) at which transcripts ``a`` and ``b`` differ; ``None``: equal."""
    for number, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return number
    if len(a) != len(b):
        return min(len(a), len(b)) + 1
    return None


def trial_divergence(runs: Sequence[Run]) -> dict[str, Any]:
    """Over the cases with two or more trials: ``cases`` compared, ``diverged`` cases, their
    ``share``, ``first_turn`` (a histogram: first divergent turn -> cases) and ``by_case``
    (case id -> first divergent turn, for the diverged cases)."""
    by_case: dict[str, list[Run]] = {}
    for run in runs:
        by_case.setdefault(run.case_id, []).append(run)
    compared = 0
    found: dict[str, int] = {}
    for case_id, trials in by_case.items():
        if len(trials) < 2:
            continue
        compared += 1
        ordered = sorted(trials, key=lambda run: run.trial)  # stable: input order within
        first = _transcript(ordered[0])
        turns = [first_difference(first, _transcript(other)) for other in ordered[1:]]
        differing = [t for t in turns if t is not None]
        if differing:
            found[case_id] = min(differing)
    histogram = Counter(found.values())
    return {
        "cases": compared,
        "diverged": len(found),
        "share": len(found) / compared if compared else None,
        "first_turn": {str(t): histogram[t] for t in sorted(histogram)},
        "by_case": found,
    }
