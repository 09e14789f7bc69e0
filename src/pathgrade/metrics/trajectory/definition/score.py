"""Scoring runs: the reference each run is scored against, every trajectory metric, and
:func:`score_run` / :func:`score_runs`, the public face of the definition.

Every metric that depends on the reference is computed against each reference path
(:mod:`~pathgrade.metrics.trajectory.definition.path`); the run keeps the one with the
highest ``path_score``, then the highest ``composite``, then the lowest index
(``reference_index``). A reference written with the path grammar is scored as each of its
alternatives' instances for the run (:mod:`pathgrade.metrics.trajectory.grammar`), in
branch order after the references before it; the winner's ``reference_branch`` says which
branches, optional steps and repeat copies it took (``None`` for a plain reference).
``goal_success``, ``over_budget``, ``forbidden_action_count``,
``recovery_rate`` and ``required_tool_coverage`` do not depend on the reference
(:mod:`~pathgrade.metrics.trajectory.definition.checks`). A case without reference paths
leaves every path metric undefined, and its runs' defects are the run-level ones alone
(``over_budget``, ``forbidden_action``, ``unrecovered_error``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.results import AlignedStep, Defect, RunResult, json_value
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.trajectory import grammar
from pathgrade.metrics.trajectory.arguments import MatcherSet, ValueMatcher
from pathgrade.metrics.trajectory.definition import checks
from pathgrade.metrics.trajectory.definition.defects import run_defects
from pathgrade.metrics.trajectory.definition.path import PathScore, RunContext, score_path
from pathgrade.metrics.trajectory.definition.system import system_defects
from pathgrade.metrics.trajectory.definition.texts import StepTexts
from pathgrade.metrics.trajectory.outputs import TRAJECTORY_METRICS

NAN = math.nan


@dataclass(frozen=True)
class Explained:
    """A run's result and, when its case has references, the winning :class:`PathScore`."""

    result: RunResult
    path: PathScore | None


@dataclass(frozen=True)
class _Candidate:
    """One path a run is scored against: reference ``index``, as written or (a reference
    with the path grammar) one alternative's instance for this run."""

    index: int
    steps: tuple[Step, ...]
    order: str | None
    branch: dict[str, Any] | None


def _candidates(case: Case, run: Run, matchers: MatcherSet) -> list[_Candidate]:
    """Every reference as written, a grammar reference as its alternatives' instances (in
    written order of branches), for ``run`` (:mod:`pathgrade.metrics.trajectory.grammar`)."""
    out: list[_Candidate] = []
    for index, path in enumerate(case.reference_paths()):
        if not grammar.uses_grammar(path):
            out.append(_Candidate(index, path, None, None))
            continue
        for alternative in grammar.alternatives(path):
            made = grammar.instance(alternative, run.steps, case.order, matchers)
            out.append(_Candidate(index, made.steps, made.order, made.record()))
    return out


def choose_reference(scores: Sequence[PathScore]) -> int:
    """The index of the best reference: highest ``path_score``, then highest ``composite``,
    then lowest index."""
    return min(
        range(len(scores)),
        key=lambda k: (-scores[k].values["path_score"], -scores[k].values["composite"], k),
    )


def _score(
    run: Run, case: Case, config: ScoringConfig, matchers: MatcherSet, texts: StepTexts
) -> Explained:
    """Score ``run`` against each of its case's references and keep the best one."""
    steps = run.steps
    violations = checks.budget_violations(run, case.budget or config.budget)
    forbidden = checks.forbidden_steps(steps, case)
    _, unrecovered = checks.unrecovered_errors(steps, config.fallbacks)
    coverage, unused = checks.required_tool_coverage(steps, case)
    values: dict[str, float] = dict.fromkeys(TRAJECTORY_METRICS, NAN)
    values.update(
        goal_success=checks.goal_success(run, case),
        required_tool_coverage=coverage,
        forbidden_action_count=float(len(forbidden)),
        over_budget=1.0 if violations else 0.0,
        recovery_rate=checks.recovery_rate(steps, config.fallbacks),
    )
    others = run_defects(violations, forbidden, unrecovered, texts.path(steps), config.penalties)
    others += system_defects(run, case, config)
    shared = RunContext(run, case, config, matchers, texts, others, unused)
    candidates = _candidates(case, run, matchers)
    scores = [score_path(c.steps, shared, c.order) for c in candidates]
    reference_index: int | None = None
    branch: dict[str, Any] | None = None
    best: PathScore | None = None
    defects: list[Defect] = others
    alignment: list[AlignedStep] = []
    if scores:
        winner = choose_reference(scores)
        reference_index, branch = candidates[winner].index, candidates[winner].branch
        best = scores[winner]
        values.update(best.values)
        defects, alignment = best.defects, best.alignment
    result = RunResult(
        case_id=run.case_id,
        run_id=run.run_id,
        trial=run.trial,
        group=case.group,
        reference_index=reference_index,
        reference_branch=branch,
        metrics={name: json_value(values[name], kind) for name, kind in TRAJECTORY_METRICS.items()},
        defects=tuple(defects),
        alignment=tuple(alignment),
        usage=checks.usage_totals(run),
    )
    return Explained(result, best)


def score_runs(
    cases: Iterable[Case] | Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig | None = None,
    plugins: Mapping[str, ValueMatcher] | None = None,
) -> list[RunResult]:
    """Every run's result, as :func:`pathgrade.score` gives its trajectory layer. Steps are
    shown as their first occurrence in these runs, then in their cases' references
    (:mod:`~pathgrade.metrics.trajectory.definition.texts`)."""
    return [explained.result for explained in explain_runs(cases, runs, config, plugins)]


def explain_runs(
    cases: Iterable[Case] | Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig | None = None,
    plugins: Mapping[str, ValueMatcher] | None = None,
) -> list[Explained]:
    """:func:`score_runs`, each result with the winning :class:`PathScore`."""
    config = config or ScoringConfig()
    by_id = dict(cases) if isinstance(cases, Mapping) else {c.case_id: c for c in cases}
    for position, run in enumerate(runs):
        if run.case_id not in by_id:
            raise InputError(
                f"run {position} refers to unknown case_id {run.case_id!r}", field="case_id"
            )
    used = [by_id[case_id] for case_id in dict.fromkeys(run.case_id for run in runs)]
    texts = StepTexts(
        [run.steps for run in runs]
        + [grammar.leaves(path) for case in used for path in case.reference_paths()]
    )
    matchers = MatcherSet(config.matching, plugins)
    return [_score(run, by_id[run.case_id], config, matchers, texts) for run in runs]


def score_run(
    case: Case,
    run: Run,
    config: ScoringConfig | None = None,
    plugins: Mapping[str, ValueMatcher] | None = None,
) -> RunResult:
    """One run's result, scored alone (its steps shown as written in it and its case)."""
    return score_runs([case], [run], config, plugins)[0]
