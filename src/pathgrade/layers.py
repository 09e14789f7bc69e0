"""Orchestration of the layers beyond the path: retrieval, tool calls, answers, trials.

Each layer runs only where the data has what it needs, and a metric without labels is
reported as *not computed* (with the reason), never as 0:

- retrieval: runs with ``retrieved`` whose case has ``gold_evidence``;
- tool calls: when a tools file is given, a case has ``expected_state``, or dangerous tools
  are declared (schema validity, argument correctness, execution, end state);
- answers: cases with ``gold_answer``, runs with ``context``, ``claims``, ``citations`` or
  ``rubric`` (at most ``[answer] max_rubric_dimensions`` dimensions become columns, the rest
  are counted in ``rubric_other``); abstention over the whole set when any case is
  unanswerable or any run abstains;
- trials: ``pass@k`` / ``pass^k`` over ``goal_success`` when runs have several trials;
- system (latency, tokens, cost): runs whose trace records any of them, cost priced from
  ``[prices]`` when only tokens are recorded (:mod:`pathgrade.metrics.system.usage`);
- conversation: runs with ``turns`` and runs whose case has a user goal or
  ``turn_references`` (:mod:`pathgrade.metrics.conversation`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter, is_not
from typing import Any

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import ScoringConfig
from pathgrade.core.results import MetricKind
from pathgrade.core.run_columns import CaseColumns, RunColumns
from pathgrade.core.types import Case, Run
from pathgrade.metrics import catalogue
from pathgrade.metrics.answer.layer import abstention_layer, answer_layer
from pathgrade.metrics.answer.rubric_columns import fold_rubric, kept_dimensions
from pathgrade.metrics.conversation.divergence import trial_divergence
from pathgrade.metrics.conversation.turns import score_conversations
from pathgrade.metrics.retrieval.per_run import score_runs
from pathgrade.metrics.system.resume import resume_columns
from pathgrade.metrics.system.termination import safe_termination
from pathgrade.metrics.system.usage import UNITS, usage_columns
from pathgrade.metrics.tool.layer import tool_layer
from pathgrade.metrics.tool.schemas import ToolSet
from pathgrade.metrics.tool.validators import Validator
from pathgrade.stats.partial import FALSE, TRUE, UNDEFINED, passk_from_codes
from pathgrade.stats.usage_summary import usage_summary

FloatArray = npt.NDArray[np.float64]


def metric_kind(name: str) -> MetricKind:
    """How a layer metric is typed in JSON: its catalogue row's kind (binary metrics as
    booleans, counts as integers, the rest as numbers; :func:`catalogue.json_kind`). A
    plug-in metric, which has no row, is a number (``score``)."""
    row = catalogue.find(name)
    return "score" if row is None else row.json_kind


@dataclass
class LayerColumns:
    """Extra per-run columns, what was not computed (metric -> reason), dataset-level extras."""

    values: dict[str, FloatArray] = field(default_factory=dict)
    kinds: dict[str, MetricKind] = field(default_factory=dict)
    not_computed: dict[str, str] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)

    def put(self, index: int, metrics: Mapping[str, float | None], n_runs: int) -> None:
        for name, value in metrics.items():
            column = self.values.get(name)
            if column is None:
                column = self.values[name] = np.full(n_runs, math.nan)
                self.kinds[name] = metric_kind(name)
            column[index] = math.nan if value is None else float(value)


def retrieval_columns(
    case_columns: CaseColumns, columns: RunColumns, config: ScoringConfig, out: LayerColumns
) -> None:
    """The retrieval layer (issue: runs' ``retrieved`` against cases' ``gold_evidence``)."""
    case_gold = case_columns.gold_evidence
    if not any(map(is_not, case_gold.values(), repeat(None))):
        out.not_computed["retrieval"] = "no case has gold_evidence"
        return
    gold = list(map(case_gold.__getitem__, columns.case_id))
    retrieval = config.retrieval
    scored = score_runs(columns.retrieved, gold, retrieval.metrics, order=retrieval.order)
    for name, column in scored.values.items():
        out.values[name] = column
        out.kinds[name] = metric_kind(name)
    out.summary["retrieval"] = {
        "runs_with_gold": int(scored.applicable.sum()),
        "runs_without_retrieved": int(scored.missing_retrieved.sum()),
        "micro": {m.name: m.micro for m in scored.result.metrics},
    }


def tool_columns(
    cases: Mapping[str, Case],
    case_columns: CaseColumns,
    runs: Sequence[Run],
    config: ScoringConfig,
    reference_index: npt.NDArray[np.int64],
    tools: ToolSet | None,
    validators: Mapping[str, Validator] | None,
    strict: bool,
    out: LayerColumns,
    branches: Mapping[int, Mapping[str, Any]] | None = None,
) -> None:
    """The tool-call layer, when a tools file, expected end states or dangerous tools exist;
    ``reference_index[r]`` is run ``r``'s winning reference path (-1: none), ``branches[r]``
    its ``reference_branch`` when that path is written with the grammar."""
    wanted = tools is not None or bool(config.dangerous_tools) or case_columns.any_expected_state
    if not wanted:
        out.not_computed["tool_layer"] = "no tools file, expected_state or dangerous tools"
        return
    layer = tool_layer(
        cases,
        runs,
        tools,
        matching=config.matching,
        validators=validators,
        dangerous=config.dangerous_tools,
        reference_indices=[None if i < 0 else i for i in reference_index.tolist()],
        strict=strict,
        reference_branches=branches,
    )
    reasons: Counter[str] = Counter()
    for index, result in enumerate(layer.runs):
        out.put(index, result.metrics, len(runs))
        reasons.update(f"{name}: {why}" for name, why in result.not_computed.items())
    report = layer.report
    out.summary["tools"] = {
        "per_tool": [row.as_dict() for row in report.per_tool],
        "dangerous": {
            "tools": list(report.dangerous.tools),
            "false_positives": report.dangerous.fp,
            "true_negatives": report.dangerous.tn,
            "false_positive_rate": report.dangerous.false_positive_rate,
            "runs": [
                {"case_id": f.case_id, "run_id": f.run_id, "trial": f.trial, "tool": f.tool}
                for f in report.dangerous.false_positives
            ],
        },
        "unknown_tools": dict(report.unknown_tools),
    }
    for reason, count in reasons.items():
        name, why = reason.split(": ", 1)
        if name not in out.values:
            out.not_computed[name] = f"{why} ({count} runs)"


def answer_columns(
    cases: Mapping[str, Case],
    case_columns: CaseColumns,
    runs: Sequence[Run],
    columns: RunColumns,
    config: ScoringConfig,
    goal_success: FloatArray,
    out: LayerColumns,
) -> None:
    """The answer layer per run, and abstention over the set."""
    n_runs = len(runs)
    labelled = 0
    codes, ids = columns.case_codes
    case_gold = np.fromiter(map(case_columns.has_gold_answer.__getitem__, ids), np.bool_, len(ids))
    wanted = np.fromiter(columns.answer_labelled, np.bool_, n_runs) | case_gold[codes]
    kept, dropped = kept_dimensions(
        (run.rubric for run in runs),
        declared=config.answer.rubric_dimensions,
        max_dimensions=config.answer.max_rubric_dimensions,
    )
    for index in np.flatnonzero(wanted).tolist():
        run = runs[index]
        labelled += 1
        result = answer_layer(
            cases[run.case_id], run, abs_tol=config.answer.abs_tol, rel_tol=config.answer.rel_tol
        )
        metrics = fold_rubric(result.metrics, kept, count_other=True) if dropped else None
        out.put(index, result.metrics if metrics is None else metrics, n_runs)
    if not labelled:
        out.not_computed["answer_layer"] = "no gold answers, context, claims, citations or rubric"
    if not case_columns.all_answerable or any(columns.abstained):
        correct = [None if math.isnan(g) else bool(g) for g in goal_success]
        report = abstention_layer(cases, runs, correct)
        out.summary["abstention"] = {
            **report.metrics(),
            "curve": [
                {"threshold": p.threshold, "coverage": p.coverage, "risk": p.risk, "kept": p.kept}
                for p in report.curve or ()
            ],
        }


def system_columns(
    runs: Sequence[Run], columns: RunColumns, config: ScoringConfig, out: LayerColumns
) -> None:
    """Latency, tokens and cost per run, and their distribution over the runs (``system``
    in the summary: points only; :func:`pathgrade.api.scoring.summarize` adds intervals)."""
    found = usage_columns(runs, config.prices, any_step_amount=columns.step_facts.any_amount)
    if not found.values:
        out.not_computed["system_usage"] = "no run records latency, tokens or cost"
        return
    for name, column in found.values.items():
        out.values[name] = column
        out.kinds[name] = metric_kind(name)
    system = usage_summary(found.values, columns.case_id, UNITS)
    if "cost" in system:
        system["cost"]["sources"] = dict(sorted(found.sources.items()))
        system["cost"]["unknown_reasons"] = dict(sorted(found.unknown.items()))
    out.summary["system"] = system


def termination_layer_columns(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    columns: RunColumns,
    config: ScoringConfig,
    failed: npt.NDArray[np.bool_],
    out: LayerColumns,
) -> None:
    """``safe_termination`` (:mod:`pathgrade.metrics.system.termination`) of the runs with a
    failed step (``failed``) or a fault replay injected; not computed when no run has one."""
    candidates = (
        range(len(runs)) if columns.step_facts.any_fault else np.flatnonzero(failed).tolist()
    )
    column = np.full(len(runs), math.nan)
    for index in candidates:
        run = runs[index]
        column[index] = safe_termination(run, cases.get(run.case_id), config)
    if np.isnan(column).all():
        out.not_computed["safe_termination"] = "no run has an unrecovered fault"
        return
    out.values["safe_termination"] = column
    out.kinds["safe_termination"] = metric_kind("safe_termination")


def resume_layer_columns(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    columns: RunColumns,
    config: ScoringConfig,
    out: LayerColumns,
) -> None:
    """State after resume (:mod:`pathgrade.metrics.system.resume`): runs with a resumed step."""
    found = {}
    if columns.step_facts.any_resumed:  # the usual case, none, known without a pass
        found = resume_columns(cases, runs, config, columns.steps)
    if not found:
        out.not_computed["resume"] = "no run has a resumed step"
        return
    for name, column in found.items():
        out.values[name] = column
        out.kinds[name] = metric_kind(name)


_TURNS = attrgetter("turns")
_USER = attrgetter("user")
_TURN_REFERENCES = attrgetter("turn_references")


def conversation_columns(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    goal_success: FloatArray,
    out: LayerColumns,
) -> dict[int, dict[str, Any]]:
    """The conversation layer (:mod:`pathgrade.metrics.conversation.turns`) of the runs with
    turns or whose case has a user goal or turn references; each one's record entry by run
    index. Not computed (at C speed, no pass per run) when there is none."""
    found = any(map(_TURNS, runs))
    goals = any(map(_USER, cases.values())) or any(map(_TURN_REFERENCES, cases.values()))
    if not found and not goals:
        out.not_computed["conversation"] = "no run has turns and no case a user goal"
        return {}
    conversational = {
        case_id
        for case_id, case in cases.items()
        if case.user is not None or case.turn_references is not None
    }
    indices = [
        index
        for index, run in enumerate(runs)
        if run.turns is not None or run.case_id in conversational
    ]
    scored = score_conversations(cases, runs, config, goal_success, indices)
    for name, column in scored.values.items():
        if not np.isnan(column).all():
            out.values[name] = column
            out.kinds[name] = metric_kind(name)
    out.summary["conversations"] = conversation_summary(runs, scored.values, indices)
    return scored.details


def conversation_summary(
    runs: Sequence[Run], values: Mapping[str, FloatArray], indices: Sequence[int]
) -> dict[str, Any]:
    """``summary["conversations"]``: how many conversations and turns, ``pass^k`` (and
    ``pass@k``) of ``conversation_success`` over trials (tau-bench's reliability measure: the
    chance that k trials of a case all succeed), and how often trials of a case diverge
    (:func:`~pathgrade.metrics.conversation.divergence.trial_divergence`)."""
    turns = values["turns"][list(indices)]
    summary: dict[str, Any] = {
        "runs": len(indices),
        "turns": {"mean": float(turns.mean()), "max": int(turns.max())} if len(indices) else {},
    }
    picked = [runs[i] for i in indices]
    passk = trial_summary(
        RunColumns.gather(picked), values["conversation_success"][list(indices)], LayerColumns()
    )
    if passk is not None:
        summary["pass^k"] = passk["pass^k"]
        summary["pass@k"] = passk["pass@k"]
    summary["divergence"] = trial_divergence(picked)
    return summary


def trial_summary(
    columns: RunColumns, goal_success: FloatArray, out: LayerColumns
) -> dict[str, Any] | None:
    """``pass@k``, ``pass^k`` and ``trials`` when some case has several trial numbers.

    Runs that share a ``(case_id, trial)`` are different systems, not trials: then pass@k is
    not computed (and the summary says why).
    """
    n_runs = len(columns)
    if not n_runs:
        return None
    case_codes = columns.case_codes[0]
    trials = np.fromiter(columns.trial, np.int64, n_runs)
    outcomes = np.where(
        np.isnan(goal_success), UNDEFINED, np.where(goal_success > 0, TRUE, FALSE)
    ).astype(np.int8)
    summary = passk_from_codes(case_codes, trials, outcomes)
    if not summary:
        return None
    if "not_computed" in summary:
        out.not_computed.update(summary["not_computed"])
        return None
    return summary
