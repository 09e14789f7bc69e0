"""Score runs against their cases' reference paths: the trajectory layer, batch by batch.

Runs are sorted by path length and scored in batches; every (run, reference path) pair of a
batch is scored at once (:mod:`pathgrade.metrics.trajectory.batching`), then each run keeps its
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
from itertools import chain, repeat
from operator import attrgetter, is_not

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.fields import setting_any
from pathgrade.core.results import ScoreResult
from pathgrade.core.run_columns import RunColumns
from pathgrade.core.types import Case, Run
from pathgrade.metrics.system.health import health_findings
from pathgrade.metrics.system.health_batch import (
    HEALTH_KINDS,
    StepCodes,
    exact_identity_tools,
    health_columns,
)
from pathgrade.metrics.trajectory import batching, grammar, runlevel
from pathgrade.metrics.trajectory.alignment_text import StepTexts
from pathgrade.metrics.trajectory.arguments import MatcherSet, ValueMatcher
from pathgrade.metrics.trajectory.diagnosis import Diagnoser
from pathgrade.metrics.trajectory.encode import StepEncoder
from pathgrade.metrics.trajectory.instances import GrammarInstances
from pathgrade.metrics.trajectory.outputs import TRAJECTORY_METRICS
from pathgrade.metrics.trajectory.reference_lists import reference_lists
from pathgrade.metrics.trajectory.winners import CLEAN_RUN, RunFacts, WinnerBatch
from pathgrade.metrics.trajectory.write_flags import write_flags

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
NAN = math.nan
_METADATA = frozenset(("metadata",))


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
    columns: RunColumns | None = None,
    step_texts: StepTexts | None = None,
    pure_kernels: bool = False,
    grammar_used: bool | None = None,
) -> ScoreResult:
    """Score every run against its case (see module docstring); pure, no I/O.

    ``progress(done, total)`` is called before each batch, and once at the end;
    ``columns`` are the runs' fields when the caller has gathered them already;
    ``step_texts`` are the texts of step objects the caller keeps across scorings (a new
    one, for this scoring alone, when not given); ``pure_kernels``: long paths are scored
    by the NumPy passes even when numba is installed (the same scores;
    :func:`~pathgrade.metrics.trajectory.batching.use_compiled`); ``grammar_used``: whether
    any reference of the cases with runs uses the path grammar, when the caller has read
    their steps already (``None``: read them here).
    """
    gathered = columns if columns is not None else RunColumns.gather(runs)
    config = config or ScoringConfig()
    matchers = MatcherSet(config.matching, plugins)
    encoder = StepEncoder(matchers)
    n_runs = len(runs)
    # Per-run work is C-level maps; everything that depends only on the case is done once
    # per distinct case and broadcast through ``run_case_index``.
    case_ids = gathered.case_id
    run_case_index, used_ids = gathered.case_codes
    if not all(map(cases.__contains__, used_ids)):
        position = next(i for i, c in enumerate(case_ids) if c not in cases)
        raise InputError(
            f"run {position} refers to unknown case_id {case_ids[position]!r}", field="case_id"
        )
    used_cases = [cases[c] for c in used_ids]
    run_case_list = run_case_index.tolist()
    run_case: list[Case] = list(map(used_cases.__getitem__, run_case_list))

    # Reference paths of the cases that have runs, encoded once each.
    table = _CaseTable.gather(used_cases, config, grammar_used)
    lists = reference_lists(table.paths, table.order, table.grammar)
    ref_paths, ref_order, ref_preds = lists.paths, lists.order, lists.preds
    case_first_ref, case_n_refs = lists.case_first, lists.case_count
    n_refs = case_n_refs[run_case_index]
    first_ref = case_first_ref[run_case_index]
    instances = GrammarInstances(matchers, ref_paths, ref_order, ref_preds)
    for r in instances.runs_of(table.grammar, run_case_list):
        first_ref[r], n_refs[r] = instances.add(r, runs[r], run_case[r])
    refs = encoder.encode(ref_paths)  # type: ignore[arg-type]
    agents = encoder.encode(gathered.steps)
    distinct = agents.distinct_steps()
    gathered.know_distinct_steps(distinct)

    agent_error = agents.error
    run_of_step = np.repeat(np.arange(n_runs), agents.lengths)
    has_error = np.bincount(run_of_step[agent_error], minlength=n_runs) > 0
    facts: list[RunFacts] = [CLEAN_RUN] * n_runs
    out = _Columns.empty(n_runs)
    values = out.values
    values["over_budget"][:] = 0.0
    values["forbidden_action_count"][:] = 0.0
    fixed_penalty = np.zeros(n_runs)
    needs_penalty_check = np.zeros(n_runs, dtype=np.bool_)
    agent_write = write_flags(
        encoder.tool_codes,
        agents.tool,
        agents.offsets,
        runs,
        run_case,
        table.kinds[run_case_index],
        config,
        gathered.step_facts.any_denied,
    )
    system = runlevel.runs_to_check(
        encoder.tool_codes,
        agents.tool,
        run_of_step,
        agent_write,
        runs,
        config,
        gathered.step_facts.any_resumed,
    )
    for r in np.flatnonzero(has_error | ~table.clean[run_case_index] | system).tolist():
        f = facts[r] = _run_facts(runs[r], run_case[r], config, bool(has_error[r]), bool(system[r]))
        values["over_budget"][r] = 1.0 if f.budget_violations else 0.0
        values["forbidden_action_count"][r] = float(len(f.forbidden))
        values["recovery_rate"][r] = f.recovery_rate
        values["required_tool_coverage"][r] = f.required_coverage
        fixed_penalty[r] = f.fixed_penalty
        needs_penalty_check[r] = bool(f.unused_required)
    values["goal_success"] = _goal_column(
        runs, gathered.success, run_case, table.judged[run_case_index]
    )

    ref_order_codes = np.asarray(ref_order, dtype=np.int64)
    lengths = agents.lengths
    order_by_size = np.argsort(lengths, kind="stable")
    diagnoser = Diagnoser(config, runs, run_case, facts, ref_paths, agents, refs, step_texts)  # type: ignore[arg-type]
    weights = config.weights
    weight_total = weights.total()
    penalties = config.penalties
    ref_steps = batching.run_cells(refs.lengths, first_ref, n_refs)
    compiled = batching.use_compiled(lengths, ref_steps, n_refs, pure_kernels)
    inputs = batching.PairInputs(
        refs, agents, matchers, ref_order_codes, ref_preds, agent_error, agent_write, compiled
    )
    for start, end in batching.batches(lengths[order_by_size], ref_steps[order_by_size]):
        if progress is not None:
            progress(start, n_runs)
        batch_runs = order_by_size[start:end]
        batch_runs = batch_runs[n_refs[batch_runs] > 0]
        if batch_runs.size == 0:
            continue
        pair_run, pair_slot, pair_ref = batching.batch_pairs(batch_runs, first_ref, n_refs)
        padded, scores = batching.score_batch(inputs, pair_ref, pair_run)
        required_pen = np.zeros(pair_run.size)
        for k in np.flatnonzero(needs_penalty_check[pair_run]).tolist():
            required_pen[k] = diagnoser.unpenalised_required(int(pair_run[k]), int(pair_ref[k]))
        run_penalty = fixed_penalty[pair_run]
        path_score = np.maximum(
            0.0,
            100.0
            - penalties.missing_step * scores.missing
            - penalties.wasted_step * scores.wasted
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
        n_ref = padded.ref_len[winners].astype(np.float64)
        n_agent = padded.agent_len[winners].astype(np.float64)
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
        out.reference_index[runs_won] = pair_slot[winners]
        diagnoser.add(WinnerBatch.take(runs_won, pair_ref[winners], scores, winners))
    branches = instances.resolve(out.reference_index)
    # The system layer's reference-free counts, from the same step codes.
    health = health_columns(
        StepCodes(
            agents.offsets,
            agents.tool,
            agents.ident,
            agents.error,
            agents.steps,
            exact_identity_tools(encoder.tool_codes, matchers),
        ),
        any_metadata=bool(setting_any(distinct, _METADATA)),
    )

    if progress is not None:
        progress(n_runs, n_runs)
    return ScoreResult(
        case_ids=case_ids,
        run_ids=gathered.run_id,
        trials=gathered.trial,
        groups=list(map(table.group.__getitem__, run_case_list)),
        reference_index=out.reference_index,
        metrics={**out.values, **health},
        kinds={**TRAJECTORY_METRICS, **HEALTH_KINDS},
        details=diagnoser.details,
        defect_columns=diagnoser.defect_columns,
        alignment_columns=diagnoser.alignment_columns,
        usage=lambda i: runlevel.usage_totals(runs[i]).as_dict(),
        reference_branch=branches,
        findings=lambda i: health_findings(runs[i].steps),
    )


_CASE_FIELDS = attrgetter(
    "reference",
    "references",
    "order",
    "budget",
    "required_tools",
    "forbidden_tools",
    "forbidden_actions",
    "tool_kinds",
    "answerable",
    "gold_answer",
    "group",
)


@dataclass(frozen=True)
class _CaseTable:
    """What the scorer needs of each case, read in one pass over the case objects."""

    paths: list[tuple[Sequence[object], ...]]  # the reference paths, in reference_index order
    order: tuple[str, ...]
    #: No budget, required or forbidden tools: an error-free run has CLEAN_RUN facts.
    clean: npt.NDArray[np.bool_]
    #: Declares tool kinds of its own.
    kinds: npt.NDArray[np.bool_]
    #: goal_success can be judged without the run's ``success``: gold answers or unanswerable.
    judged: npt.NDArray[np.bool_]
    group: tuple[str | None, ...]
    #: Has a reference written with the path grammar.
    grammar: npt.NDArray[np.bool_]

    @classmethod
    def gather(
        cls, cases: Sequence[Case], config: ScoringConfig, grammar_used: bool | None = None
    ) -> _CaseTable:
        n = len(cases)
        if not n:
            empty = np.zeros(0, dtype=np.bool_)
            return cls([], (), empty, empty, empty, (), empty)
        rows = list(map(_CASE_FIELDS, cases))
        columns = list(zip(*rows, strict=True))
        reference, references, order, budget, required, forbidden, actions = columns[:7]
        kinds, answerable, gold, group = columns[7:]
        default_budget = config.budget is not None
        clean = [
            not (default_budget or b is not None or r or f or a or runlevel.case_needs_check(c))
            for b, r, f, a, c in zip(budget, required, forbidden, actions, cases, strict=True)
        ]
        paths = [
            ((ref,) if ref is not None else ()) + tuple(alts or ())
            for ref, alts in zip(reference, references, strict=True)
        ]
        return cls(
            paths=paths,
            order=order,
            clean=np.array(clean, dtype=np.bool_),
            kinds=np.fromiter(map(bool, kinds), np.bool_, n),
            judged=np.array(
                [(not a) or g is not None for a, g in zip(answerable, gold, strict=True)],
                dtype=np.bool_,
            ),
            group=group,
            grammar=np.array([any(map(grammar.uses_grammar, p)) for p in paths], dtype=np.bool_)
            if (grammar_used is None and grammar.any_grammar(chain.from_iterable(paths)))
            or grammar_used
            else np.zeros(len(paths), dtype=np.bool_),
        )


def _goal_column(
    runs: Sequence[Run],
    success: Sequence[bool | None],
    run_case: Sequence[Case],
    judged: npt.NDArray[np.bool_],
) -> FloatArray:
    """``goal_success`` per run: computed where the run records ``success`` or ``judged``
    (its case has gold answers or is unanswerable); ``nan`` elsewhere (nothing says)."""
    n_runs = len(runs)
    recorded = np.fromiter(map(is_not, success, repeat(None)), np.bool_, n_runs)
    goal = np.full(n_runs, NAN)
    for r in np.flatnonzero(recorded | judged).tolist():
        goal[r] = runlevel.goal_success(runs[r], run_case[r])
    return goal


def _run_facts(
    run: Run, case: Case, config: ScoringConfig, has_error: bool, system: bool = False
) -> RunFacts:
    """The run's reference-independent facts; ``system``: it may have a system defect
    although its case asks for no check (:func:`runlevel.runs_to_check`)."""
    budget = case.budget or config.budget
    if (
        budget is None
        and not has_error
        and not case.required_tools
        and not case.forbidden_tools
        and not case.forbidden_actions
        and not runlevel.case_needs_check(case)
        and not system
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
    found = tuple(runlevel.system_defects(run, case, config))
    fixed += sum(d.penalty for d in found)
    return RunFacts(
        budget_violations=violations,
        forbidden=forbidden,
        recovery_rate=(failed - len(unrecovered)) / failed if failed else NAN,
        unrecovered=unrecovered,
        required_coverage=coverage,
        unused_required=unused,
        fixed_penalty=fixed,
        system=found,
    )
