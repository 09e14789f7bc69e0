"""Orchestration: cases + runs + config -> results.

:func:`score` is the public entry point. It resolves plug-in argument matchers and hands
the pure computation to the trajectory layer; files are loaded separately
(:mod:`pathgrade.io.cases`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Mapping

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.results import ScoreResult
from pathgrade.core.types import Case, Run
from pathgrade.metrics.trajectory.scorer import score_trajectories
from pathgrade.plugins import argument_matchers


def _case_map(cases: Iterable[Case] | Mapping[str, Case]) -> dict[str, Case]:
    if isinstance(cases, Mapping):
        return dict(cases)
    out: dict[str, Case] = {}
    for position, case in enumerate(cases):
        if case.case_id in out:
            raise InputError(f"case {position} repeats case_id {case.case_id!r}", field="case_id")
        out[case.case_id] = case
    return out


def score(
    cases: Iterable[Case] | Mapping[str, Case],
    runs: Iterable[Run],
    config: ScoringConfig | None = None,
) -> ScoreResult:
    """Score every run against its case's reference paths.

    Args:
        cases: the cases (a sequence, or a mapping by ``case_id``); ids must be unique.
        runs: the runs; each must name a known ``case_id``.
        config: penalties, weights, budgets, tool kinds and argument matching; defaults
            as documented in ``docs/trajectory.md``.

    Returns:
        A :class:`~pathgrade.core.results.ScoreResult`: per-run metrics (column-wise),
        defects and alignment on demand, and ``summary()``.

    Raises:
        InputError: a duplicate case id or a run for an unknown case.
    """
    case_map, run_list, plugins = _case_map(cases), list(runs), argument_matchers()
    # Scoring allocates many short-lived objects and creates no reference cycles; pausing
    # the cyclic collector (restored below) saves about a third of the time on large inputs.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return score_trajectories(case_map, run_list, config, plugins)
    finally:
        if was_enabled:
            gc.enable()
