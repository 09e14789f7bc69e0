"""Orchestration: cases + runs + config -> results.

:func:`score` is the public entry point. It resolves plug-in argument matchers and hands
the pure computation to the trajectory layer; files are loaded separately
(:mod:`pathgrade.io.cases`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import partial
from operator import attrgetter, methodcaller
from typing import Any

import numpy as np

from pathgrade.cases.refuse import reference_shapes, refuse_impossible
from pathgrade.core.agent_scope import agent_summary, scoped
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.gc_pause import paused_gc
from pathgrade.core.provenance import Provenance, short_hash
from pathgrade.core.record_provenance import (
    RecordProvenance,
    canonical_json,
    cases_hash,
    measured,
    sha256_of,
    with_agent,
)
from pathgrade.core.results import ScoreResult
from pathgrade.core.run_columns import CaseColumns, RunColumns
from pathgrade.core.types import Case, Run
from pathgrade.layers import (
    LayerColumns,
    answer_columns,
    conversation_columns,
    resume_layer_columns,
    retrieval_columns,
    system_columns,
    termination_layer_columns,
    tool_columns,
    trial_summary,
)
from pathgrade.metrics.tool.schemas import ToolSet, with_tool_approvals
from pathgrade.metrics.tool.validators import Validator
from pathgrade.metrics.trajectory.alignment_text import StepTexts
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence
from pathgrade.metrics.trajectory.field_details import uses_field_modes, with_field_details
from pathgrade.metrics.trajectory.outputs import TRAJECTORY_METRICS
from pathgrade.metrics.trajectory.scorer import score_trajectories
from pathgrade.plugins import argument_matchers

_CASE_ID = attrgetter("case_id")
_METADATA = attrgetter("metadata")
_MODEL_OF = methodcaller("get", "model")


def _case_map(cases: Iterable[Case] | Mapping[str, Case]) -> dict[str, Case]:
    if isinstance(cases, Mapping):
        return dict(cases)
    case_list = list(cases)
    ids = list(map(_CASE_ID, case_list))
    out = dict(zip(ids, case_list, strict=True))
    if len(out) != len(ids):
        seen: set[str] = set()
        for position, case_id in enumerate(ids):
            if case_id in seen:
                raise InputError(f"case {position} repeats case_id {case_id!r}", field="case_id")
            seen.add(case_id)
    return out


def score(
    cases: Iterable[Case] | Mapping[str, Case],
    runs: Iterable[Run],
    config: ScoringConfig | None = None,
    *,
    tools: ToolSet | None = None,
    validators: Mapping[str, Validator] | None = None,
    strict_tools: bool = False,
    progress: Callable[[int, int], None] | None = None,
    gc_pause: bool = False,
    step_texts: StepTexts | None = None,
    provenance: Provenance | None = None,
    agent: str | None = None,
    evidence: ArgumentEvidence | None = None,
    pure_kernels: bool = False,
) -> ScoreResult:
    """Score every run: its path against the case's references, plus every other layer the
    data has labels for (retrieval, tool calls, answers; pass@k over trials).

    Args:
        cases: the cases (a sequence, or a mapping by ``case_id``); ids must be unique.
        runs: the runs; each must name a known ``case_id``.
        config: penalties, weights, budgets, tool kinds, argument matching, layer options;
            defaults as documented in ``docs/trajectory.md``.
        tools: tool schemas (``pathgrade.io.tools.load_tools``) for the tool-call layer.
        validators: custom argument validators by name (tool layer).
        strict_tools: a called tool that no schema names is an error, not a report.
        progress: ``progress(done, total)``, called as batches of runs are scored.
        gc_pause: pause the cyclic garbage collector while scoring (about a third faster on
            large batches; see :mod:`pathgrade.core.gc_pause`). It is a change to the whole
            process while the call runs, so it is off unless asked for; the ``pathgrade``
            command turns it on.
        step_texts: the texts of step objects, kept across calls by whoever scores many
            batches of the same steps (an engine keeps one per worker process); a new one
            for this call when not given.
        provenance: what the records say they were measured with and their controlled
            variables (:mod:`pathgrade.core.provenance`; build one with
            :func:`~pathgrade.core.record_provenance.measured`, e.g. to add labels). Default:
            this pathgrade's semantics, the hash of ``config``, the hash of the JSON of
            ``cases`` (:func:`~pathgrade.core.record_provenance.cases_hash`) and, with
            ``tools``, ``tool_schema`` = the hash of their canonical JSON. Each run's
            ``metadata["model"]`` (what ingest found in its trace) is added as its
            ``model`` variable unless the provenance names a ``model`` (a label wins).
        agent: score only this agent's sub-path of each run against its case's
            ``references_by_agent[agent]`` (:mod:`pathgrade.core.agent_scope`: no reference
            when the case gives none; the answer, goal, retrieval and end-state layers off);
            recorded in the provenance (:func:`~pathgrade.core.record_provenance.with_agent`)
            and in ``summary()["agent"]``.
        evidence: embeddings and judge verdicts for ``semantic``/``judge`` matching
            (:mod:`pathgrade.semantic`); embeddings are made here when ``semantic`` matching
            needs them and none are given; ``judge`` needs
            :func:`pathgrade.semantic.judge_verdicts` first. A run whose argument match reads
            a ``judge_error`` has its trajectory metrics undefined, counted in
            ``summary()["argument_match_undefined"]``.
        pure_kernels: score long paths (references over 64 steps) with the NumPy passes even
            when numba is installed: the same results (the differential tests run both),
            without the compiled kernels' one-off load (docs/trajectory.md, "Long paths").

    Returns:
        A :class:`~pathgrade.core.results.ScoreResult`: per-run metrics (column-wise),
        defects and alignment on demand, and ``summary()``.

    Raises:
        InputError: a duplicate case id, a run for an unknown case, or bad layer input.
        ImpossibleReferenceError: (an ``InputError``) a case that runs are scored against fails
            an error-level check of ``pathgrade cases lint`` (:mod:`pathgrade.cases.refuse`).
    """
    config = config or ScoringConfig()
    declared = config  # what provenance names (the tools file is hashed on its own)
    config = with_tool_approvals(config, tools)  # the tools file's ``requires_approval``
    given, run_list, plugins = _case_map(cases), list(runs), argument_matchers()
    case_map = given
    # Scoring allocates many objects and creates no reference cycles (see ``paused_gc``).
    with paused_gc(gc_pause):
        if agent is not None:  # the one definition of an agent's sub-path, as every engine's
            case_map, run_list = scoped(given, run_list, agent)
        columns, case_columns = RunColumns.gather(run_list), CaseColumns.gather(case_map)
        used = set(columns.case_codes[1])  # the cases scored against (an agent's views)
        scored = [case for case_id, case in case_map.items() if case_id in used]
        # One read of the reference steps, for the check and the scorer's grammar test.
        shapes = reference_shapes(scored, tools, strict_tools)
        refuse_impossible(scored, tools, budget=config.budget, strict=strict_tools, shapes=shapes)
        undefined = None
        if evidence is not None or _needs_evidence(config):
            from pathgrade.semantic.scoring import with_evidence  # I/O: embeds, lazily

            plugins, undefined = with_evidence(case_map, run_list, config, tools, plugins, evidence)
        result = score_trajectories(
            case_map,
            run_list,
            config,
            plugins,
            progress,
            columns,
            step_texts,
            pure_kernels=pure_kernels,
            grammar_used=shapes.grammar,
        )
        if uses_field_modes(config.matching):  # each pair's per-field details, on demand
            result = with_field_details(result, case_map, run_list, config.matching, plugins)
        extra = LayerColumns()
        retrieval_columns(case_columns, columns, config, extra)
        tool_columns(
            case_map,
            case_columns,
            run_list,
            config,
            result.reference_index,
            tools,
            validators,
            strict_tools,
            extra,
            result.reference_branch,
        )
        goal = result.metrics["goal_success"]
        answer_columns(case_map, case_columns, run_list, columns, config, goal, extra)
        system_columns(run_list, columns, config, extra)
        resume_layer_columns(case_map, run_list, columns, config, extra)
        failed = ~np.isnan(result.metrics["recovery_rate"])  # defined: some step failed
        termination_layer_columns(case_map, run_list, columns, config, failed, extra)
        conversations = conversation_columns(case_map, run_list, config, goal, extra)
        trials = trial_summary(columns, goal, extra)
    summary_extra: dict[str, Any] = dict(extra.summary)
    if undefined is not None:
        from pathgrade.semantic.scoring import mark_undefined

        metrics, note = mark_undefined(result.metrics, list(TRAJECTORY_METRICS), undefined)
        result = replace(result, metrics=metrics)
        summary_extra.update(note)
    if trials is not None:
        summary_extra.update(trials)
    if extra.not_computed:
        summary_extra["not_computed"] = extra.not_computed
    if agent is not None:
        summary_extra["agent"] = agent_summary(given.values(), agent)
    models = map(_MODEL_OF, map(_METADATA, run_list))  # C-speed: 50k runs in ~3 ms
    if provenance is not None:
        common = provenance if agent is None else with_agent(provenance, agent)
        record_provenance = RecordProvenance.of(common, models)
    else:  # hashing in-memory cases is paid only if a record is written
        record_provenance = RecordProvenance.lazy(
            partial(_default_provenance, declared, given, tools, agent), models
        )
    return replace(
        result,
        metrics={**result.metrics, **extra.values},
        kinds={**result.kinds, **extra.kinds},
        summary_extra=summary_extra,
        provenance=record_provenance,
        conversation=conversations,
    )


def _needs_evidence(config: ScoringConfig) -> bool:
    """Whether any argument matching mode of ``config`` is ``semantic`` or ``judge``."""
    matching = config.matching
    modes = {matching.mode}
    for spec in matching.tools.values():
        modes.add(spec.mode or matching.mode)
        modes.update(f.mode for f in spec.fields.values())
    return bool(modes & {"semantic", "judge"})


def _default_provenance(
    config: ScoringConfig,
    cases: Mapping[str, Case],
    tools: ToolSet | None,
    agent: str | None = None,
) -> Provenance:
    """What a library call measured with (see :func:`score`'s ``provenance``; the cases
    as given, not their views for ``agent``)."""
    variables: dict[str, str] = {}
    if tools is not None:
        specs = [
            {
                "name": spec.name,
                "parameters": spec.parameters,
                "dangerous": spec.dangerous,
                "description": spec.description,
                # only when set, so that the hashes of tools files without it stay as they were
                **({"requires_approval": True} if spec.requires_approval else {}),
            }
            for spec in sorted(tools.tools.values(), key=lambda spec: spec.name)
        ]
        variables["tool_schema"] = short_hash(sha256_of(canonical_json(specs)))
    common = measured(config, cases=cases_hash(cases.values()), variables=variables)
    return common if agent is None else with_agent(common, agent)
