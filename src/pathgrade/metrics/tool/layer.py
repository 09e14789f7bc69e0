"""The tool-call layer: every tool metric the data has labels for, per run and per dataset.

Four levels, each its own metric (see ``docs/layers.md``):

1. selection: per-tool confusion matrices across the dataset (this module) and, per run, the
   trajectory layer's ``tool_accuracy`` / ``tool_precision`` (not recomputed here);
2. argument validity: ``schema_validity`` = calls whose arguments pass their tool's JSON Schema
   / calls of tools that have a schema; invalid calls are listed with the error path;
3. argument correctness: ``argument_correctness`` and field ``argument_precision`` /
   ``argument_recall`` / ``argument_f1`` (:mod:`.arguments`);
4. execution outcome: ``execution_success_rate``, ``execution_errors``, and, where the case
   has ``expected_state`` and the run ``final_state``, ``state_match`` (1 or 0) and
   ``state_differences`` (count; the differences themselves are listed) (:mod:`.state`).

A metric whose labels are missing is absent from ``metrics`` and present in ``not_computed``
with the reason; it is never reported as 0. A called tool that no schema names is counted
(``unknown_tool_calls``) and listed; with ``strict=True`` it is an :class:`InputError`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pathgrade.core.config import MatchingConfig
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.tool.arguments import (
    ArgumentSummary,
    CallComparison,
    FieldComparer,
    pair_calls,
)
from pathgrade.metrics.tool.confusion import (
    DangerousReport,
    Observation,
    ToolConfusion,
    tool_confusion,
)
from pathgrade.metrics.tool.schemas import SchemaViolation, ToolSet, schema_violations
from pathgrade.metrics.tool.state import StateDifference, execution_metrics, state_diff
from pathgrade.metrics.tool.validators import Validator, resolve_validators
from pathgrade.metrics.trajectory import grammar


@dataclass(frozen=True)
class InvalidCall:
    """A call whose arguments fail its tool's schema."""

    step_index: int
    tool: str
    violations: tuple[SchemaViolation, ...]

    def __str__(self) -> str:
        reasons = "; ".join(str(v) for v in self.violations)
        return f"step {self.step_index} ({self.tool}): {reasons}"


@dataclass(frozen=True)
class RunToolResult:
    """The tool layer for one run: metric values, what was not computed and why, details."""

    case_id: str
    run_id: str | None
    trial: int
    metrics: Mapping[str, float | None]
    not_computed: Mapping[str, str]
    reference_index: int | None = None
    invalid_calls: tuple[InvalidCall, ...] = ()
    unknown_tools: tuple[str, ...] = ()
    arguments: tuple[CallComparison, ...] = ()
    state_differences: tuple[StateDifference, ...] = ()
    dangerous_false_positives: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolLayerReport:
    """Dataset-level results: confusion per tool, dangerous false positives, unknown tools."""

    per_tool: tuple[ToolConfusion, ...]
    dangerous: DangerousReport
    unknown_tools: Mapping[str, int] = field(default_factory=dict)
    labelled_runs: int = 0
    unlabelled_runs: int = 0


@dataclass(frozen=True)
class ToolLayerResult:
    """Per-run results in input order, and the dataset report."""

    runs: tuple[RunToolResult, ...]
    report: ToolLayerReport


_ARGUMENT_KEYS = ("argument_correctness", "argument_precision", "argument_recall", "argument_f1")


Branch = Mapping[str, Any]


def expected_calls(path: Sequence[Step], branch: Branch | None = None) -> list[tuple[Step, ...]]:
    """The calls a run is expected to make for reference ``path``, as candidate paths.

    A path written without the grammar is its own single candidate. A grammar path with the
    ``reference_branch`` the trajectory alignment chose is the calls of that instance
    (:func:`~pathgrade.metrics.trajectory.grammar.branch_calls`: the chosen ``one_of``
    branches; the optional steps the run used; each ``repeat`` at the copies counted).
    Without a branch, each alternative (combination of ``one_of`` branches) is a candidate:
    its required copies (optional steps and copies beyond a ``repeat``'s ``min`` are not
    required), so a ``one_of`` placeholder is never an expected call.
    """
    if not grammar.uses_grammar(path):
        return [tuple(path)]
    if branch is not None:
        found = grammar.branch_calls(path, branch)
        if found is not None:
            return [found]
    return [
        tuple(item.step for item in alternative.items for _ in range(item.least))
        for alternative in grammar.alternatives(path)
    ]


def _choose_path(
    comparer: FieldComparer,
    run: Run,
    case: Case,
    index: int | None,
    where: str,
    branch: Branch | None = None,
) -> tuple[ArgumentSummary, tuple[Step, ...]]:
    """The summary against the chosen reference path, and the calls expected of it."""
    paths = case.reference_paths()
    if not paths:
        return ArgumentSummary(None, ()), ()
    if index is not None and not 0 <= index < len(paths):
        raise InputError(
            f"reference index {index} out of range: case {case.case_id!r} has"
            f" {len(paths)} reference paths",
            field=where,
        )
    chosen = range(len(paths)) if index is None else (index,)
    candidates = [
        (i, calls, ArgumentSummary(i, tuple(pair_calls(comparer, run.steps, calls))))
        for i in chosen
        for calls in expected_calls(paths[i], branch if index is not None else None)
    ]
    if len(candidates) == 1:
        return candidates[0][2], candidates[0][1]
    called = {s.tool for s in run.steps}

    def key(item: tuple[int, tuple[Step, ...], ArgumentSummary]) -> tuple[int, float, int]:
        _, calls, summary = item
        f1 = sum(c.f1 or 0.0 for c in summary.calls)
        return summary.n_correct, f1, -len(called ^ {s.tool for s in calls})

    best = max(candidates, key=key)  # max keeps the first of equal keys: lowest index
    return best[2], best[1]


def tool_layer(
    cases_by_id: Mapping[str, Case],
    runs: Sequence[Run],
    tools: ToolSet | None = None,
    *,
    matching: MatchingConfig | None = None,
    validators: Mapping[str, Validator] | None = None,
    dangerous: Collection[str] = (),
    reference_indices: Sequence[int | None] | None = None,
    strict: bool = False,
    reference_branches: Mapping[int, Branch] | None = None,
) -> ToolLayerResult:
    """Score the tool-call layer of ``runs``.

    Args:
        cases_by_id: the cases, by ``case_id``; every run's case must be present.
        runs: the runs to score (not modified).
        tools: the tool schemas (:func:`pathgrade.io.tools.load_tools`); None skips level 2.
        matching: argument matching rules (default: exact for every field).
        validators: custom validators by name, on top of the registered ones.
        dangerous: tools to treat as dangerous in addition to those the tools file marks.
        reference_indices: per run (same order), the reference path to judge against, e.g. the
            trajectory layer's ``reference_index``; None (or a None entry) picks the path with
            the most correct calls, then the higher field F1, then the closer tool set.
        strict: a called tool that no schema names is an error instead of a report.
        reference_branches: by run position, the ``reference_branch`` of a run whose
            reference (``reference_indices``) is written with the path grammar; the calls
            expected of a run are those of that branch (:func:`expected_calls`).
    """
    if reference_indices is not None and len(reference_indices) != len(runs):
        raise ValueError("reference_indices must have one entry per run")
    comparer = FieldComparer(matching or MatchingConfig(), resolve_validators(validators))
    danger = frozenset(dangerous) | (tools.dangerous() if tools is not None else frozenset())
    results: list[RunToolResult] = []
    observations: list[Observation] = []
    unknown_counts: Counter[str] = Counter()
    unlabelled = 0
    for position, run in enumerate(runs):
        case = cases_by_id.get(run.case_id)
        if case is None:
            raise InputError(f"run {position} names unknown case {run.case_id!r}", field="case_id")
        metrics: dict[str, float | None] = {}
        skipped: dict[str, str] = {}

        # Level 2: argument validity.
        invalid: list[InvalidCall] = []
        unknown: list[str] = []
        if tools is None:
            for name in ("schema_validity", "schema_invalid_calls", "unknown_tool_calls"):
                skipped[name] = "no tools file"
        else:
            checked = 0
            for i, step in enumerate(run.steps):
                spec = tools.get(step.tool)
                if spec is None:
                    if strict:
                        raise InputError(
                            f"tool {step.tool!r} (case {run.case_id!r}, run {position}) is not"
                            " named by any schema in the tools file",
                            field=f"steps[{i}].tool",
                        )
                    unknown.append(step.tool)
                    continue
                checked += 1
                violations = schema_violations(spec, step.arguments)
                if violations:
                    invalid.append(InvalidCall(i, step.tool, tuple(violations)))
            unknown_counts.update(unknown)
            metrics["unknown_tool_calls"] = len(unknown)
            metrics["schema_invalid_calls"] = len(invalid)
            if checked:
                metrics["schema_validity"] = (checked - len(invalid)) / checked
            else:
                skipped["schema_validity"] = "no call of a tool with a schema"

        # Level 3: argument correctness.
        index = reference_indices[position] if reference_indices is not None else None
        branch = reference_branches.get(position) if reference_branches is not None else None
        where = f"runs[{position}].reference_index"
        summary, expected = _choose_path(comparer, run, case, index, where, branch)
        if summary.reference_index is None:
            skipped.update(dict.fromkeys(_ARGUMENT_KEYS, "case has no reference path"))
        elif not summary.calls:
            skipped.update(dict.fromkeys(_ARGUMENT_KEYS, "no call paired with a reference step"))
        else:
            for name, value in summary.metrics().items():
                if value is None:
                    skipped[name] = "no argument fields on either side"
                else:
                    metrics[name] = value

        # Level 4: execution outcome.
        execution = execution_metrics(run.steps)
        for name, value in execution.items():
            if value is None:
                skipped[name] = "run made no calls"
            else:
                metrics[name] = value
        differences: list[StateDifference] = []
        if case.expected_state is None:
            skipped["state_match"] = skipped["state_differences"] = "case has no expected_state"
        elif run.final_state is None:
            skipped["state_match"] = skipped["state_differences"] = "run has no final_state"
        else:
            differences = state_diff(case.expected_state, run.final_state)
            metrics["state_match"] = 0.0 if differences else 1.0
            metrics["state_differences"] = len(differences)

        # Level 1 (dataset): selection observations.
        dangerous_fp: tuple[str, ...] = ()
        if summary.reference_index is None:
            unlabelled += 1
            skipped["dangerous_false_positives"] = "case has no reference path"
        else:
            should = frozenset(s.tool for s in expected)
            called = frozenset(s.tool for s in run.steps)
            observations.append(Observation(run.case_id, run.run_id, run.trial, should, called))
            dangerous_fp = tuple(sorted((called - should) & danger))
            if danger:
                metrics["dangerous_false_positives"] = len(dangerous_fp)
            else:
                skipped["dangerous_false_positives"] = "no tool is marked dangerous"

        results.append(
            RunToolResult(
                case_id=run.case_id,
                run_id=run.run_id,
                trial=run.trial,
                metrics=metrics,
                not_computed=skipped,
                reference_index=summary.reference_index,
                invalid_calls=tuple(invalid),
                unknown_tools=tuple(unknown),
                arguments=summary.calls,
                state_differences=tuple(differences),
                dangerous_false_positives=dangerous_fp,
            )
        )
    universe = set(tools) if tools is not None else set()
    table, danger_report = tool_confusion(observations, universe, danger)
    report = ToolLayerReport(
        per_tool=tuple(table),
        dangerous=danger_report,
        unknown_tools=dict(sorted(unknown_counts.items())),
        labelled_runs=len(observations),
        unlabelled_runs=unlabelled,
    )
    return ToolLayerResult(tuple(results), report)
