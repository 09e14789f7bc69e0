"""``pathgrade compare BASELINE VARIANT``: paired baseline-vs-variant statistics per metric,
over :func:`pathgrade.compare` (rendered by :mod:`pathgrade.cli.compare_text`)."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from pathgrade.cli.defaults import MIN_SLICE_CASES
from pathgrade.cli.outputs import MarkdownOption, check_output_file
from pathgrade.cli.provenance import AllowConfigChange, head_lines, print_head
from pathgrade.cli.store_option import StoreOption
from pathgrade.core.limits import MAX_RESAMPLES


class CIMethodOption(StrEnum):
    percentile = "percentile"
    bca = "bca"


def compare_command(
    baseline: Annotated[Path, typer.Argument(help="Baseline results file or stored run name.")],
    variant: Annotated[Path, typer.Argument(help="Variant results file or stored run name.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print exactly one JSON document to stdout.")
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap/permutation.")] = 0,
    resamples: Annotated[
        int,
        typer.Option(
            "--resamples", min=1, max=MAX_RESAMPLES, help="Bootstrap and permutation resamples."
        ),
    ] = 10_000,
    ci_method: Annotated[
        CIMethodOption, typer.Option("--ci-method", help="Bootstrap interval method.")
    ] = CIMethodOption.percentile,
    confidence: Annotated[
        float, typer.Option("--confidence", min=0.5, max=0.999, help="Interval level.")
    ] = 0.95,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric", "-m", help="Compare only this metric (repeatable); they are primary."
        ),
    ] = None,
    primary: Annotated[
        list[str] | None,
        typer.Option("--primary", help="A metric of the primary family, Holm's (repeatable)."),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option("--by", help="Also compare per slice of this case field (group, ...)."),
    ] = None,
    min_slice_n: Annotated[
        int, typer.Option("--min-slice-n", min=1, help="Smallest slice that is tested.")
    ] = MIN_SLICE_CASES,
    slices_from: Annotated[
        Path | None,
        typer.Option("--slices-from", help="Cases file to read --by fields from."),
    ] = None,
    cases: Annotated[
        Path | None,
        typer.Option(
            "--cases",
            help="Score on the fly: BASELINE and VARIANT are then runs files of these cases.",
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="Scoring config (with --cases; [compare] primary)."),
    ] = None,
    store: StoreOption = None,
    allow_config_change: AllowConfigChange = False,
    markdown: MarkdownOption = None,
) -> None:
    """Compare a variant with a baseline on the same cases, with paired statistics."""
    import orjson
    from rich.console import Console

    from pathgrade.api.comparing import compare
    from pathgrade.cli.compare_text import render_comparison

    check_output_file(markdown, "--markdown")

    found = compare(
        baseline,
        variant,
        store=store,
        cases=cases,
        config=config,
        metrics=metric,
        primary=primary,
        by=by,
        slices_from=slices_from,
        min_slice_n=min_slice_n,
        resamples=resamples,
        confidence=confidence,
        ci_method="bca" if ci_method is CIMethodOption.bca else "percentile",
        seed=seed,
        allow_config_change=allow_config_change,
    )
    if markdown is not None or os.environ.get("GITHUB_ACTIONS") == "true":
        from pathgrade.report.markdown import comparison_markdown, publish

        publish(comparison_markdown(found.comparison, str(baseline), str(variant)), markdown)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(found.to_dict(), option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
        return
    console = Console()  # tables fit any width without cutting a value (report.fit_table)
    print_head(console, head_lines([found.check], variables=True))
    render_comparison(console, found.comparison, baseline, variant, found.slices)
