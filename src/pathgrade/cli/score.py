"""``pathgrade score CASES RUNS``: score runs against reference paths and show why.

This module declares the options (it is read for ``--help``); the command scores in memory
(:mod:`pathgrade.cli.score_memory`) or partitioned (:mod:`pathgrade.cli.score_partitioned`),
both over the API (:func:`pathgrade.score`, :func:`pathgrade.score_files`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pathgrade.cli import judge_options, score_summary
from pathgrade.cli.defaults import DEFAULT_PARTITION_SIZE, MIN_SLICE_CASES, SUMMARY_RESAMPLES
from pathgrade.cli.outputs import MarkdownOption, check_output_file
from pathgrade.cli.store_option import StoreOption

if TYPE_CHECKING:
    from pathgrade.core.results import ScoreResult


def score(*args: Any, **kwargs: Any) -> ScoreResult:
    """:func:`pathgrade.score`, imported when first called: what the in-memory path scores
    with (through this name, which tests replace)."""
    from pathgrade.evaluate import score as score_runs

    return score_runs(*args, **kwargs)


def score_to_records(cases: Path, runs: Path, config: Path | None = None) -> list[dict[str, Any]]:
    """:func:`pathgrade.api.scoring.score_records`: the result records of ``runs`` scored
    as ``pathgrade score`` does."""
    from pathgrade.api.scoring import score_records

    return score_records(cases, runs, config)


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
    store: StoreOption = None,
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
    judge_base_url: judge_options.JudgeBaseUrl = None,
    judge_model: judge_options.JudgeModel = None,
    judge_cache: judge_options.JudgeCache = None,
    judge_offline: judge_options.JudgeOffline = False,
    markdown: MarkdownOption = None,
) -> None:
    """Score each run's path against its case's reference paths, and every other layer the
    data has labels for."""
    from pathgrade.api.scoring import summary_options as checked_options
    from pathgrade.core.agent_scope import check_agent
    from pathgrade.core.errors import InputError
    from pathgrade.core.provenance import AGENT_VARIABLE
    from pathgrade.io.config import load_config
    from pathgrade.io.partitions import file_kind
    from pathgrade.io.provenance import scoring_provenance
    from pathgrade.store.manifest import parse_labels

    check_output_file(markdown, "--markdown")
    scoring = load_config(config)
    judge = judge_options.judge_settings(
        scoring, judge_base_url, judge_model, judge_cache, judge_offline
    )
    # The summary over cases (and its --by slices): options checked before any scoring.
    summary_options = checked_options(by, metric, min_slice_n, resamples, seed)
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
        from pathgrade.api.scoring import check_cases_file
        from pathgrade.cli.score_partitioned import score_partitioned
        from pathgrade.cli.score_text import next_commands

        check_cases_file(cases)
        if judge is not None:
            raise InputError(  # its verdicts are asked before scoring, in one process
                "judge matching is scored in memory: a JSONL runs file, without --workers,"
                " --partition-size or --engine dask"
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
            next_commands=next_commands(cases, runs, config, out, None, store),
            markdown=markdown,
        )
        return
    from pathgrade.cli.score_memory import score_in_memory

    score_in_memory(
        cases,
        runs,
        scoring,
        scorer=score,
        config=config,
        out=out,
        as_json=as_json,
        skip_invalid=skip_invalid,
        limit=limit,
        tools=tools,
        strict=strict,
        save=save,
        label=label,
        store=store,
        agent=agent,
        provenance=provenance,
        summary_options=summary_options,
        judge=judge,
        markdown=markdown,
    )
