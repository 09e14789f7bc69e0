"""Hypothesis strategies for references written with the path grammar: the scorings of
:func:`~.trajectory_strategies.scorings` with their reference steps made optional, repeated
or unordered, and ``one_of`` choices inserted, nested up to two levels (bounded: at most two
choices of up to three alternatives of up to two steps, an alternative holding at most one
inner choice of up to two alternatives: at most 36 alternatives in a reference)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from pathgrade.core.config import ScoringConfig
from pathgrade.core.types import Case, Run

from .trajectory_strategies import Alphabet, possible, scorings, steps


@st.composite
def grammar_step(draw: st.DrawFn, step: dict[str, Any]) -> dict[str, Any]:
    """``step`` as written, optional, repeated or in an unordered run."""
    kind = draw(st.integers(0, 5))
    if kind == 1:
        return {**step, "optional": True}
    if kind == 2:
        least = draw(st.integers(0, 2))
        return {**step, "repeat": {"min": least, "max": draw(st.integers(max(least, 1), 3))}}
    if kind in (3, 4):
        return {**step, "group": "unordered"}
    return step


@st.composite
def one_of_step(draw: st.DrawFn, alphabet: Alphabet, depth: int = 2) -> dict[str, Any]:
    """A ``one_of`` step, now and then ``unordered``: up to three alternatives of up to two
    grammar steps; with ``depth`` 2, a branch may hold a ``one_of`` of its own (up to two
    alternatives, no deeper), so a reference has at most 6 x 6 alternatives."""
    branches: list[list[Any]] = []
    for _ in range(draw(st.integers(1, 3 if depth > 1 else 2))):
        branch: list[Any] = [
            draw(grammar_step(s)) for s in draw(st.lists(steps(False, alphabet), max_size=2))
        ]
        if depth > 1 and draw(st.integers(0, 2)) == 0:
            branch.insert(draw(st.integers(0, len(branch))), draw(one_of_step(alphabet, 1)))
        branches.append(branch)
    out: dict[str, Any] = {"one_of": branches}
    if draw(st.integers(0, 2)) == 0:
        out["group"] = "unordered"
    return out


@st.composite
def grammar_path(
    draw: st.DrawFn, path: list[dict[str, Any]], alphabet: Alphabet, depth: int = 2
) -> list[Any]:
    """``path`` with grammar fields on its steps and up to two ``one_of`` choices, nested
    up to ``depth`` levels."""
    out: list[Any] = [draw(grammar_step(step)) for step in path]
    for _ in range(draw(st.integers(0, 2))):
        out.insert(draw(st.integers(0, len(out))), draw(one_of_step(alphabet, depth)))
    return out


@st.composite
def grammar_scorings(
    draw: st.DrawFn, max_runs: int = 8, max_steps: int = 7, min_cases: int = 1
) -> tuple[list[Case], list[Run], ScoringConfig]:
    """A scoring whose cases' references use the path grammar."""
    cases, runs, config = draw(
        scorings(max_runs=max_runs, max_steps=max_steps, min_cases=min_cases)
    )
    tools = sorted({s.tool for run in runs for s in run.steps} | {"a"})
    alphabet = Alphabet(tools=tuple(tools), arguments=({}, ["1"], {"q": "x"}))
    out = []
    for case in cases:
        record = case.model_dump(exclude_defaults=True, exclude={"reference", "references"})
        paths = [
            [s.model_dump(exclude_defaults=True) for s in path] for path in case.reference_paths()
        ]
        record["references"] = [draw(grammar_path(path, alphabet)) for path in paths]
        out.append(possible(Case.model_validate(record), config.budget))
    return out, runs, config
