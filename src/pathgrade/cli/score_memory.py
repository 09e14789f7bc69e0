"""``pathgrade score`` in memory (one process, the default): :func:`pathgrade.load_cases`,
:func:`pathgrade.load_runs` and :func:`pathgrade.score`, the summary over cases
(:mod:`pathgrade.api.scoring`), then ``--out``, ``--save`` and the tables."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from pathgrade.api.scoring import case_keys, located, summarize
from pathgrade.cli.out_file import write_out
from pathgrade.cli.progress import progress_bar
from pathgrade.cli.runs import check_save, save_run
from pathgrade.cli.score_partitioned import JsonStream, print_agent_scope
from pathgrade.cli.score_text import next_commands, render_legend, render_next, render_runs
from pathgrade.core.agent_scope import agent_summary, scoped
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.gc_pause import paused_gc
from pathgrade.core.provenance import Provenance
from pathgrade.core.record_provenance import with_agent
from pathgrade.core.results import ScoreResult
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.provenance import with_loaded_cases
from pathgrade.io.results import iter_records_jsonl
from pathgrade.io.results.staged import check_target
from pathgrade.io.step_pool import StepPool
from pathgrade.io.tools import entry_point_validators, load_tools
from pathgrade.report.markdown import publish_summary
from pathgrade.report.text import render_summary
from pathgrade.stats.case_summary import SummaryOptions

if TYPE_CHECKING:
    from pathgrade.semantic.judged import JudgeSettings

Scorer = Callable[..., ScoreResult]


def score_in_memory(
    cases: Path,
    runs: Path,
    scoring: ScoringConfig,
    *,
    scorer: Scorer,
    config: Path | None,
    out: Path | None,
    as_json: bool,
    skip_invalid: bool,
    limit: int,
    tools: Path | None,
    strict: bool,
    save: str | None,
    label: list[str] | None,
    store: Path | None,
    agent: str | None,
    provenance: Provenance,
    summary_options: SummaryOptions,
    judge: JudgeSettings | None = None,
    markdown: Path | None = None,
) -> None:
    """Score, write, save and print as ``pathgrade score`` does in one process; ``scorer``
    is :func:`pathgrade.score` (the command passes the name tests replace). With ``judge``
    (a ``judge`` mode in the config), the judge's verdicts are asked first and the summary
    says what it did (``argument_judge``)."""
    if out is not None:
        check_target(out)  # a bad --out or --save fails now, not after the scoring
    if save is not None:
        check_save(save, label, store)
    toolset = load_tools(tools) if tools is not None else None
    pool = StepPool()  # runs share steps with their cases' references
    # This command owns its process: the GC is paused while records are built (see
    # pathgrade.core.gc_pause), which a library call does only when asked.
    loaded_cases = load_cases(cases, skip_invalid=skip_invalid, pool=pool, gc_pause=True)
    by_id = {c.case_id: c for c in loaded_cases.items}
    provenance = with_loaded_cases(provenance, loaded_cases.items)  # cases from a pipe
    loaded_runs = load_runs(runs, by_id, skip_invalid=skip_invalid, pool=pool, gc_pause=True)
    skipped = loaded_cases.skipped + loaded_runs.skipped
    if not loaded_runs.items:
        raise InputError("no valid runs to score", file=str(runs))
    ids = [r.case_id for r in loaded_runs.items]
    keys = case_keys(summary_options, ids, by_id)
    scored_cases, scored_runs = by_id, loaded_runs.items
    if agent is not None:  # what is scored, written and saved: the agent's views
        with paused_gc(True):  # many new objects, no cycles (as loading)
            scored_cases, scored_runs = scoped(by_id, loaded_runs.items, agent)
        provenance = with_agent(provenance, agent)  # the agent scope is measured too
    extra: dict[str, Any] = {}
    judged = None
    if judge is not None:
        from pathgrade.semantic.judged import judge_client, judged_evidence

        evidence, judged = judged_evidence(
            scored_cases, scored_runs, scoring, toolset, judge_client(judge)
        )
        extra["evidence"] = evidence
    try:
        with progress_bar(f"scoring {len(scored_runs):,} runs") as update:
            result = scorer(
                scored_cases,
                scored_runs,
                scoring,
                tools=toolset,
                validators=entry_point_validators(),
                strict_tools=strict,
                progress=update,
                gc_pause=True,
                provenance=provenance,
                **extra,
            )
    except InputError as failure:
        # Errors raised while scoring name a run by position: point at its line in the file.
        # A refused reference names a case: at its line of the cases file.
        lines = dict(zip((c.case_id for c in loaded_cases.items), loaded_cases.lines, strict=True))
        raise located(failure, str(runs), loaded_runs.lines, (str(cases), lines)) from None
    summary = summarize(result, summary_options, keys=keys)
    if agent is not None:
        summary["agent"] = agent_summary(by_id.values(), agent)
    if judged is not None:
        summary["argument_judge"] = judged
    if skip_invalid:
        summary["skipped"] = {"count": len(skipped), "reasons": [str(e) for e in skipped]}
    if out is not None:  # the records as every engine writes them (pathgrade.io.results)
        write_out(out, iter_records_jsonl(result, scored_runs))  # complete, or .partial
    if save is not None:
        inputs = [cases, runs, config, tools]
        save_run(save, result, scored_runs, scored_cases, scoring, label, inputs, summary, store)
    publish_summary(summary, markdown)
    console = Console()
    if as_json:  # the document the partitioned path prints, from the same records
        stream = JsonStream(sys.stdout.buffer)
        for chunk in iter_records_jsonl(result, scored_runs):
            stream.records(chunk)
        stream.close(summary)
    else:
        render_runs(console, result, limit)
        render_legend(console)
        render_summary(console, summary)
        if out is not None:
            console.print(f"wrote {len(result)} results to {out}", markup=False)
    if agent is not None:
        print_agent_scope(summary["agent"], as_json=as_json)
    if not as_json:
        render_next(console, next_commands(cases, runs, config, out, save, store))
    if skipped:
        err = Console(stderr=True)
        err.print(f"skipped {len(skipped)} invalid record(s):", markup=False)
        for error in skipped[:20]:
            err.print(f"  {error}", markup=False)
