"""``pathgrade compare BASELINE VARIANT``: paired baseline-vs-variant statistics per metric."""

from __future__ import annotations

import math
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pathgrade.cli.score import score_to_records
from pathgrade.core.errors import InputError
from pathgrade.stats.compare import Comparison, compare_records
from pathgrade.stats.records import MissingMetricError
from pathgrade.store import resolve_results


class CIMethodOption(StrEnum):
    percentile = "percentile"
    bca = "bca"


def _fmt(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.4g}"


def _p(value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:.2e}" if value < 1e-4 else f"{value:.4f}"


def render_comparison(console: Console, result: Comparison, baseline: Path, variant: Path) -> None:
    """The table for people: one row per metric, then unpaired cases and how to read it."""
    level = round(result.confidence * 100)
    table = Table(title=f"{baseline} -> {variant}: {result.paired_cases} paired cases")
    table.add_column("metric", no_wrap=True)
    table.add_column("better")
    for column in ("n", "baseline", "variant", "diff", f"{level}% CI"):
        table.add_column(column, justify="right")
    table.add_column("test")
    table.add_column("p (Holm)", justify="right")
    table.add_column("verdict", no_wrap=True)
    colours = {"improved": "green", "regressed": "red", "changed": "yellow"}
    for name, m in result.metrics.items():
        verdict = m.verdict
        colour = colours.get(verdict)
        table.add_row(
            escape(name),
            m.direction if m.direction != "neither" else "-",
            str(m.n) + (f" (+{m.undefined} undef.)" if m.undefined else ""),
            _fmt(m.baseline),
            _fmt(m.variant),
            _fmt(m.diff),
            f"[{_fmt(m.ci[0])}, {_fmt(m.ci[1])}]",
            m.test or "-",
            _p(m.p_holm),
            f"[{colour}]{verdict}[/]" if colour else verdict,
        )
    console.print(table)
    if result.unpaired:
        only_base = sum(1 for u in result.unpaired if u["only_in"] == "baseline")
        only_var = len(result.unpaired) - only_base
        shown = ", ".join(u["case_id"] for u in result.unpaired[:10])
        more = " ..." if len(result.unpaired) > 10 else ""
        console.print(
            f"unpaired cases (not compared): {only_base} only in baseline, {only_var} only in"
            f" variant: {shown}{more}",
            markup=False,
        )
    console.print(
        f"diff = variant - baseline over paired cases; CI: paired bootstrap ({result.ci_method},"
        f" {result.resamples} resamples, seed {result.seed}). An interval that spans 0 means"
        " the data cannot tell the two apart. improved/regressed follow each metric's better"
        " direction (docs/catalogue.md); changed: a difference in a metric without one.",
        markup=False,
    )


def compare_command(
    baseline: Annotated[Path, typer.Argument(help="Baseline results file or stored run name.")],
    variant: Annotated[Path, typer.Argument(help="Variant results file or stored run name.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print exactly one JSON document to stdout.")
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap/permutation.")] = 0,
    resamples: Annotated[
        int, typer.Option("--resamples", min=1, help="Bootstrap and permutation resamples.")
    ] = 10_000,
    ci_method: Annotated[
        CIMethodOption, typer.Option("--ci-method", help="Bootstrap interval method.")
    ] = CIMethodOption.percentile,
    confidence: Annotated[
        float, typer.Option("--confidence", min=0.5, max=0.999, help="Interval level.")
    ] = 0.95,
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", "-m", help="Compare only this metric (repeatable)."),
    ] = None,
    cases: Annotated[
        Path | None,
        typer.Option(
            "--cases",
            help="Score on the fly: BASELINE and VARIANT are then runs files of these cases.",
        ),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Scoring config (with --cases).")
    ] = None,
) -> None:
    """Compare a variant with a baseline on the same cases, with paired statistics."""
    if cases is not None:
        base_records = score_to_records(cases, baseline, config)
        var_records = score_to_records(cases, variant, config)
    else:
        base_records = resolve_results(baseline)
        var_records = resolve_results(variant)
    try:
        result = compare_records(
            base_records,
            var_records,
            metrics=metric or None,
            resamples=resamples,
            confidence=confidence,
            ci_method="bca" if ci_method is CIMethodOption.bca else "percentile",
            seed=seed,
        )
    except MissingMetricError as error:
        side = variant if error.side == "variant" else baseline
        raise InputError(
            "metric is missing from the results", file=str(side), field=error.name
        ) from None
    except ValueError as error:
        raise InputError(str(error), file=f"{baseline}, {variant}") from None
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(result.to_dict(), option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
        return
    console = Console()
    if not console.is_terminal:  # piped to a file or CI log: do not squeeze into 80 columns
        console = Console(width=160)
    render_comparison(console, result, baseline, variant)
