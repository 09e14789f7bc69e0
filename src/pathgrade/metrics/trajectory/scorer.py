"""Score runs against their cases' reference paths: the trajectory layer, batch by batch.

Runs are sorted by path length and scored in batches; every (run, reference path) pair of a
batch is scored at once (:mod:`pathgrade.metrics.trajectory.pairs`), then each run keeps its
best reference: highest ``path_score``, then highest ``composite``, then lowest index.

``path_score`` = max(0, 100 - penalties), with, by default, 25 per missing step, 10 per
wasted (repeated) step, 20 when over budget, 15 when out of order, 25 per unexpected write,
100 per forbidden action, 25 per required tool never called that the reference does not
already count as missing, and 0 per unrecovered tool error (see ``Penalties``).
``composite`` = the weighted mean of tool, argument and step-order accuracy and path
efficiency (default weights 0.3, 0.3, 0.2, 0.2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.results import TRAJECTORY_METRICS, ScoreResult
from pathgrade.core.types import Case, Run
from pathgrade.metrics.trajectory import runlevel
from pathgrade.metrics.trajectory.arguments import MatcherSet, ValueMatcher
from pathgrade.metrics.trajectory.diagnosis import CLEAN_RUN, Diagnoser, RunFacts, WinnerBatch
from pathgrade.metrics.trajectory.encode import StepEncoder, build_pair_batch, gather_padded
from pathgrade.metrics.trajectory.order import Predecessors
from pathgrade.metrics.trajectory.pairs import ORDER_NONE, ORDER_PARTIAL, ORDER_TOTAL
from pathgrade.metrics.trajectory.parallel import score_pairs_with_groups

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
NAN = math.nan
BATCH_RUNS = 4096
_ORDER_CODES = {"total": ORDER_TOTAL, "partial": ORDER_PARTIAL, "none": ORDER_NONE}


def _predecessors(path: Sequence[object]) -> Predecessors:
    ids = {step.id: i for i, step in enumerate(path) if step.id is not None}  # type: ignore[attr-defined]
    return [[ids[d] for d in step.after] for step in path]  # type: ignore[attr-defined]


@dataclass
class _Columns:
    """Per-run output columns, filled batch by batch."""

    values: dict[str, FloatArray]
    reference_index: IntArray

    @classmethod
    def empty(cls, n: int) -> _Columns:
        return cls(
            values={name: np.full(n, NAN) for name in TRAJECTORY_METRICS},
            reference_index=np.full(n, -1, dtype=np.int64),
        )


def score_trajectories(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig | None = None,
    plugins: Mapping[str, ValueMatcher] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ScoreResult:
    """Score every run against its case (see module docstring); pure, no I/O.

    ``progress(done, total)`` is called before each batch, and once at the end.
    """
    config = config or ScoringConfig()
    matchers = MatcherSet(config.matching, plugins)
    encoder = StepEncoder(matchers)
    n_runs = len(runs)
    run_case: list[Case] = []
    for position, run in enumerate(runs):
        case = cases.get(run.case_id)
        if case is None:
            raise InputError(
                f"run {position} refers to unknown case_id {run.case_id!r}", field="case_id"
            )
        run_case.append(case)

    # Reference paths of the cases that have runs, encoded once each.
    case_first_ref: dict[str, int] = {}
    ref_paths: list[Sequence[object]] = []
    ref_order: list[int] = []
    ref_preds: list[Predecessors | None] = []
    for case in run_case:
        if case.case_id in case_first_ref:
            continue
        case_first_ref[case.case_id] = len(ref_paths)
        for path in case.reference_paths():
            ref_paths.append(path)
            ref_order.append(_ORDER_CODES[case.order])
            ref_preds.append(_predecessors(path) if case.order == "partial" else None)
    refs = encoder.encode(ref_paths)  # type: ignore[arg-type]
    agents = encoder.encode([run.steps for run in runs])

    agent_error, agent_turn = agents.error, agents.turn
    run_of_step = np.repeat(np.arange(n_runs), agents.lengths)
    has_error = np.bincount(run_of_step[agent_error], minlength=n_runs) > 0
    facts = [
        _run_facts(run, case, config, bool(error))
        for run, case, error in zip(runs, run_case, has_error, strict=True)
    ]
    goal = np.fromiter(
        (runlevel.goal_success(run, case) for run, case in zip(runs, run_case, strict=True)),
        np.float64,
        n_runs,
    )
    agent_write = _write_flags(encoder, agents.steps, agents.tool, runs, run_case, config)

    columns = _Columns.empty(n_runs)
    columns.values["goal_success"] = goal
    for name, getter in (
        ("over_budget", lambda f: 1.0 if f.budget_violations else 0.0),
        ("forbidden_action_count", lambda f: float(len(f.forbidden))),
        ("recovery_rate", lambda f: f.recovery_rate),
        ("required_tool_coverage", lambda f: f.required_coverage),
    ):
        columns.values[name] = np.fromiter((getter(f) for f in facts), np.float64, n_runs)

    case_n_refs = {c.case_id: len(c.reference_paths()) for c in cases.values()}
    n_refs = np.fromiter((case_n_refs[c.case_id] for c in run_case), np.int64, n_runs)
    first_ref = np.fromiter((case_first_ref[c.case_id] for c in run_case), np.int64, n_runs)
    lengths = agents.lengths
    order_by_size = np.argsort(lengths, kind="stable")
    diagnoser = Diagnoser(config, runs, run_case, facts, ref_paths, agents)  # type: ignore[arg-type]
    weights = config.weights
    weight_total = weights.total()
    penalties = config.penalties
    for start in range(0, n_runs, BATCH_RUNS):
        if progress is not None:
            progress(start, n_runs)
        batch_runs = order_by_size[start : start + BATCH_RUNS]
        batch_runs = batch_runs[n_refs[batch_runs] > 0]
        if batch_runs.size == 0:
            continue
        pair_run = np.repeat(batch_runs, n_refs[batch_runs])
        pair_slot = np.arange(pair_run.size) - np.repeat(
            np.cumsum(n_refs[batch_runs]) - n_refs[batch_runs], n_refs[batch_runs]
        )
        pair_ref = first_ref[pair_run] + pair_slot
        batch = build_pair_batch(refs, agents, pair_ref, pair_run, matchers)
        width_a = batch.agent_tool.shape[1]
        error = gather_padded(agent_error, batch.agent_start, batch.agent_len, width_a, False)
        write = gather_padded(agent_write, batch.agent_start, batch.agent_len, width_a, False)
        turn = gather_padded(agent_turn, batch.agent_start, batch.agent_len, width_a, -1)
        scores = score_pairs_with_groups(
            batch,
            np.asarray(ref_order, dtype=np.int64)[pair_ref],
            [ref_preds[r] for r in pair_ref],
            error,
            write,
            turn,
        )
        required_pen = np.fromiter(
            (
                diagnoser.unpenalised_required(int(r), int(p))
                for r, p in zip(pair_run, pair_ref, strict=True)
            ),
            np.float64,
            pair_run.size,
        )
        run_penalty = np.fromiter(
            (facts[r].fixed_penalty for r in pair_run), np.float64, pair_run.size
        )
        path_score = np.maximum(
            0.0,
            100.0
            - penalties.missing * scores.missing
            - penalties.wasted * scores.wasted
            - penalties.out_of_order * scores.out_of_order
            - penalties.unexpected_write * scores.unexpected_writes
            - penalties.missing_required_tool * required_pen
            - run_penalty,
        )
        composite = (
            weights.tool_accuracy * scores.tool_accuracy
            + weights.argument_accuracy * scores.argument_accuracy
            + weights.step_order_accuracy * scores.step_order_accuracy
            + weights.path_efficiency * scores.path_efficiency
        ) / weight_total
        # Best reference per run: path_score desc, composite desc, reference index asc.
        order = np.lexsort((pair_slot, -composite, -path_score, pair_run))
        first = np.ones(order.size, dtype=np.bool_)
        first[1:] = pair_run[order][1:] != pair_run[order][:-1]
        winners = order[first]
        runs_won = pair_run[winners]
        values = columns.values
        for name, array in (
            ("tool_accuracy", scores.tool_accuracy),
            ("argument_accuracy", scores.argument_accuracy),
            ("step_order_accuracy", scores.step_order_accuracy),
            ("path_efficiency", scores.path_efficiency),
            ("composite", composite),
            ("path_score", path_score),
            ("missing_steps", scores.missing.astype(np.float64)),
            ("redundant_steps", scores.wasted.astype(np.float64)),
            ("out_of_order", scores.out_of_order.astype(np.float64)),
        ):
            values[name][runs_won] = array[winners]
        tool_matches = scores.tool_matches[winners].astype(np.float64)
        n_ref = batch.ref_len[winners].astype(np.float64)
        n_agent = batch.agent_len[winners].astype(np.float64)
        both_empty = (n_ref == 0) & (n_agent == 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            values["tool_precision"][runs_won] = np.where(
                both_empty, 1.0, np.where(n_agent > 0, tool_matches / n_agent, NAN)
            )
            values["tool_recall"][runs_won] = np.where(
                both_empty, 1.0, np.where(n_ref > 0, tool_matches / n_ref, NAN)
            )
            values["tool_f1"][runs_won] = np.where(
                both_empty, 1.0, 2 * tool_matches / (n_ref + n_agent)
            )
        columns.reference_index[runs_won] = pair_slot[winners]
        diagnoser.add(WinnerBatch.take(runs_won, pair_ref[winners], scores, winners))

    if progress is not None:
        progress(n_runs, n_runs)
    return ScoreResult(
        case_ids=[r.case_id for r in runs],
        run_ids=[r.run_id for r in runs],
        trials=[r.trial for r in runs],
        groups=[c.group for c in run_case],
        reference_index=columns.reference_index,
        metrics=columns.values,
        kinds=TRAJECTORY_METRICS,
        details=diagnoser.details,
        usage=lambda i: runlevel.usage_totals(runs[i]).as_dict(),
    )


def _run_facts(run: Run, case: Case, config: ScoringConfig, has_error: bool) -> RunFacts:
    budget = case.budget or config.budget
    if (
        budget is None
        and not has_error
        and not case.required_tools
        and not case.forbidden_tools
        and not case.forbidden_actions
    ):
        return CLEAN_RUN
    violations = runlevel.budget_violations(run, case.budget or config.budget)
    forbidden = runlevel.forbidden_steps(run.steps, case)
    failed, unrecovered = (
        runlevel.unrecovered_errors(run.steps, config.fallbacks) if has_error else (0, [])
    )
    coverage, unused = runlevel.required_tool_coverage(run.steps, case)
    penalties = config.penalties
    fixed = (
        (penalties.over_budget if violations else 0.0)
        + penalties.forbidden_action * len(forbidden)
        + penalties.unrecovered_error * len(unrecovered)
    )
    return RunFacts(
        budget_violations=violations,
        forbidden=forbidden,
        recovery_rate=(failed - len(unrecovered)) / failed if failed else NAN,
        unrecovered=unrecovered,
        required_coverage=coverage,
        unused_required=unused,
        fixed_penalty=fixed,
    )


def _write_flags(
    encoder: StepEncoder,
    steps: Sequence[object],
    tool_codes: IntArray,
    runs: Sequence[Run],
    run_case: Sequence[Case],
    config: ScoringConfig,
) -> npt.NDArray[np.bool_]:
    """Per agent step: is its tool declared ``write`` (case kinds override config kinds)."""
    by_code = np.zeros(len(encoder.tool_codes) + 1, dtype=np.bool_)
    for tool, code in encoder.tool_codes.items():
        by_code[code] = config.tool_kinds.get(tool) == "write"
    flags = by_code[tool_codes] if tool_codes.size else np.zeros(0, dtype=np.bool_)
    offset = 0
    for run, case in zip(runs, run_case, strict=True):
        if case.tool_kinds:
            kinds = {**config.tool_kinds, **case.tool_kinds}
            for j, step in enumerate(run.steps):
                flags[offset + j] = kinds.get(step.tool) == "write"
        offset += len(run.steps)
    return flags
