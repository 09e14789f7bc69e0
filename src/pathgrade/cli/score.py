"""``pathgrade score CASES RUNS``: score runs against reference paths and show why."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from pathgrade.cli import score_summary
from pathgrade.cli.out_file import write_out
from pathgrade.cli.progress import progress_bar
from pathgrade.cli.runs import check_save, save_run
from pathgrade.cli.score_partitioned import JsonStream, print_agent_scope, score_partitioned
from pathgrade.core.agent_scope import agent_summary, check_agent, scoped
from pathgrade.core.errors import InputError
from pathgrade.core.gc_pause import paused_gc
from pathgrade.core.provenance import AGENT_VARIABLE
from pathgrade.core.record_provenance import with_agent
from pathgrade.engines.runner import DEFAULT_PARTITION_SIZE
from pathgrade.evaluate import score
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.config import load_config
from pathgrade.io.partitions import file_kind
from pathgrade.io.provenance import is_stream, scoring_provenance, with_loaded_cases
from pathgrade.io.results import iter_records_jsonl, jsonl_records, records_jsonl
from pathgrade.io.results.staged import check_target
from pathgrade.io.step_pool import StepPool
from pathgrade.io.tools import entry_point_validators, load_tools
from pathgrade.report.text import render_runs, render_summary
from pathgrade.stats.case_summary import SUMMARY_RESAMPLES
from pathgrade.stats.slices import MIN_SLICE_CASES
from pathgrade.store.manifest import parse_labels


def _located(error: InputError, file: str, lines: list[int]) -> InputError:
    if error.file is not None:
        return error
    match = re.match(r"run (\d+)\b", error.message)
    if match and int(match.group(1)) < len(lines):
        return error.at(file=file, line=lines[int(match.group(1))])
    return error.at(file=file)


def score_command(
    cases: Annotated[Path, typer.Argument(help="Cases file (JSONL or JSON array).")],
    runs: Annotated[Path, typer.Argument(help="Runs file (JSONL or JSON array).")],
    config: Annotated[
        Path | None, typer.Option("--config", help="pathgrade.toml or pyproject.toml.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write one result record per run (JSONL).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print exactly one JSON document to stdout.")
    ] = False,
    skip_invalid: Annotated[
        bool, typer.Option("--skip-invalid", help="Score the valid records; report the rest.")
    ] = False,
    limit: Annotated[int, typer.Option("--limit", help="Rows in the runs table.")] = 50,
    tools: Annotated[
        Path | None,
        typer.Option("--tools", help="Tool schemas (OpenAI function format or {name: schema})."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="A called tool that no schema names is an error.")
    ] = False,
    engine: Annotated[
        str, typer.Option("--engine", help="local (default) or dask: see docs/scale.md.")
    ] = "local",
    workers: Annotated[
        int, typer.Option("--workers", min=1, help="Worker processes (partitioned scoring).")
    ] = 1,
    partition_size: Annotated[
        int | None,
        typer.Option("--partition-size", min=1, help="Runs per partition (streams the input)."),
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Dask scheduler address (engine dask).")
    ] = None,
    save: Annotated[
        str | None, typer.Option("--save", help="Store the scored run under this name.")
    ] = None,
    label: Annotated[
        list[str] | None,
        typer.Option(
            "--label",
            help="A controlled variable NAME=VALUE (model, prompt_version, ...; repeatable):"
            " in every record's provenance and --save's manifest.",
        ),
    ] = None,
    store: Annotated[
        Path | None, typer.Option("--store", help="Run store folder (default: $PATHGRADE_STORE).")
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help="Score one agent's sub-path (the steps whose nearest agent is NAME) against"
            " each case's references_by_agent[NAME]; see docs/trajectory.md, Agent scopes.",
        ),
    ] = None,
    seed: score_summary.Seed = 0,
    resamples: score_summary.Resamples = SUMMARY_RESAMPLES,
    by: score_summary.By = None,
    metric: score_summary.SliceMetrics = None,
    min_slice_n: score_summary.MinSliceN = MIN_SLICE_CASES,
) -> None:
    """Score each run's path against its case's reference paths, and every other layer the
    data has labels for."""
    scoring = load_config(config)
    # The summary over cases (and its --by slices): options checked before any scoring.
    summary_options = score_summary.options(by, metric, min_slice_n, resamples, seed)
    # What every record says it was measured with, and the controlled variables.
    labels = parse_labels(label or [])
    if agent is not None:
        check_agent(agent)
    if AGENT_VARIABLE in labels:
        raise InputError(f"--label {AGENT_VARIABLE}=...: use --agent NAME", field="--label")
    provenance = scoring_provenance(scoring, cases, tools=tools, labels=labels)
    if engine not in ("local", "dask"):
        raise InputError(f"unknown engine {engine!r}: use local or dask", field="--engine")
    if engine == "dask" or workers > 1 or partition_size or file_kind(runs) == "parquet":
        if is_stream(cases):
            raise InputError(
                "cases from a pipe or a device are read once: partitioned scoring reads them"
                " in every worker; write them to a file, or score in memory (one worker)",
                file=str(cases),
            )
        if save is not None:
            raise InputError("--save needs in-memory scoring: use --out, then `runs add`")
        score_partitioned(
            cases,
            runs,
            scoring,
            engine="dask" if engine == "dask" else "local",
            workers=workers,
            partition_size=partition_size or DEFAULT_PARTITION_SIZE,
            scheduler=scheduler,
            out=out,
            as_json=as_json,
            skip_invalid=skip_invalid,
            tools=tools,
            strict=strict,
            provenance=provenance,
            summary_options=summary_options,
            agent=agent,
        )
        return
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
    keys = score_summary.case_keys(summary_options, ids, by_id)
    scored_cases, scored_runs = by_id, loaded_runs.items
    if agent is not None:  # what is scored, written and saved: the agent's views
        with paused_gc(True):  # many new objects, no cycles (as loading)
            scored_cases, scored_runs = scoped(by_id, loaded_runs.items, agent)
        provenance = with_agent(provenance, agent)  # the agent scope is measured too
    try:
        with progress_bar(f"scoring {len(scored_runs):,} runs") as update:
            result = score(
                scored_cases,
                scored_runs,
                scoring,
                tools=toolset,
                validators=entry_point_validators(),
                strict_tools=strict,
                progress=update,
                gc_pause=True,
                provenance=provenance,
            )
    except InputError as failure:
        # Errors raised while scoring name a run by position: point at its line in the file.
        raise _located(failure, str(runs), loaded_runs.lines) from None
    summary: dict[str, Any] = result.summary()
    summary["defects"] = result.defect_counts()
    summary.update(score_summary.in_memory(summary_options, result, keys))
    if agent is not None:
        summary["agent"] = agent_summary(by_id.values(), agent)
    if skip_invalid:
        summary["skipped"] = {"count": len(skipped), "reasons": [str(e) for e in skipped]}
    if out is not None:  # the records as every engine writes them (pathgrade.io.results)
        write_out(out, iter_records_jsonl(result, scored_runs))  # complete, or .partial
    if save is not None:
        inputs = [cases, runs, config, tools]
        save_run(save, result, scored_runs, scored_cases, scoring, label, inputs, summary, store)
    if as_json:  # the document the partitioned path prints, from the same records
        stream = JsonStream(sys.stdout.buffer)
        for chunk in iter_records_jsonl(result, scored_runs):
            stream.records(chunk)
        stream.close(summary)
    else:
        console = Console()
        render_runs(console, result, limit)
        render_summary(console, summary)
        if out is not None:
            console.print(f"wrote {len(result)} results to {out}", markup=False)
    if agent is not None:
        print_agent_scope(summary["agent"], as_json=as_json)
    if skipped:
        err = Console(stderr=True)
        err.print(f"skipped {len(skipped)} invalid record(s):", markup=False)
        for error in skipped[:20]:
            err.print(f"  {error}", markup=False)


def score_to_records(cases: Path, runs: Path, config: Path | None = None) -> list[dict[str, Any]]:
    """Score a cases file and a runs file as ``pathgrade score`` does (for a command: the GC
    is paused while loading and scoring); the result records."""
    scoring = load_config(config)
    pool = StepPool()
    by_id = {c.case_id: c for c in load_cases(cases, pool=pool, gc_pause=True).items}
    loaded = load_runs(runs, by_id, pool=pool, gc_pause=True)
    provenance = with_loaded_cases(scoring_provenance(scoring, cases), by_id.values())
    try:
        result = score(by_id, loaded.items, scoring, gc_pause=True, provenance=provenance)
    except InputError as failure:
        raise _located(failure, str(runs), loaded.lines) from None
    return jsonl_records(records_jsonl(result, loaded.items))
