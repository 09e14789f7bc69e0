"""``pathgrade compare BASELINE VARIANT``: paired baseline-vs-variant statistics per metric."""

from __future__ import annotations

import math
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pathgrade.cli.provenance import AllowConfigChange, head_lines, json_document, print_head
from pathgrade.cli.score import score_to_records
from pathgrade.core.comparability import check_records
from pathgrade.core.errors import InputError
from pathgrade.core.limits import MAX_RESAMPLES
from pathgrade.io.cases import load_cases
from pathgrade.io.config import load_config
from pathgrade.report.display import clip
from pathgrade.stats.compare import POWER, Comparison, compare_records, metric_direction
from pathgrade.stats.compare_slices import SliceComparison, compare_slices
from pathgrade.stats.family import CHANGED, IMPROVED, REGRESSED, SECONDARY_MARK
from pathgrade.stats.power import PowerResult
from pathgrade.stats.records import MissingMetricError
from pathgrade.stats.slice_keys import SliceFieldError, needs_cases, slice_keys
from pathgrade.stats.slices import MIN_SLICE_CASES
from pathgrade.store import resolve_results

Records = list[dict[str, Any]]
_COLOURS = {IMPROVED: "green", REGRESSED: "red", CHANGED: "yellow"}


class CIMethodOption(StrEnum):
    percentile = "percentile"
    bca = "bca"


def _fmt(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.4g}"


def _p(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.2e}" if value < 1e-4 else f"{value:.4f}"


def _coloured(verdict: str) -> str:
    colour = _COLOURS.get(verdict.removesuffix(SECONDARY_MARK))
    return f"[{colour}]{escape(verdict)}[/]" if colour else escape(verdict)


def _metrics_table(result: Comparison, title: str) -> Table:
    level = round(result.confidence * 100)
    table = Table(title=title)
    table.add_column("metric", no_wrap=True)
    table.add_column("family")
    table.add_column("better")
    for column in ("n", "baseline", "variant", "diff", f"{level}% CI"):
        table.add_column(column, justify="right")
    table.add_column("test")
    table.add_column("p", justify="right")
    table.add_column("p (Holm)", justify="right")
    table.add_column("verdict", no_wrap=True)
    for name, m in result.metrics.items():
        table.add_row(
            escape(clip(name)),
            m.family,
            m.direction if m.direction != "neither" else "-",
            str(m.n) + (f" (+{m.undefined} undef.)" if m.undefined else ""),
            _fmt(m.baseline),
            _fmt(m.variant),
            _fmt(m.diff),
            f"[{_fmt(m.ci[0])}, {_fmt(m.ci[1])}]",
            m.test or "-",
            _p(m.p_value),
            _p(m.p_holm),
            _coloured(m.verdict),
        )
    return table


def _power_line(name: str, power: PowerResult) -> str:
    if power.mde is None:
        return f"  {name}: MDE - ({power.mde_reason})"
    text = f"  {name}: MDE {_fmt(power.mde)} with {power.n} cases; "
    if power.n_needed is None:
        return text + f"cases needed - ({power.n_needed_reason})"
    return text + f"{power.n_needed} cases would detect the observed diff {_fmt(power.mean_diff)}"


def _power_lines(result: Comparison) -> list[str]:
    head = (
        f"Power ({round(100 * POWER)}%, two-sided alpha {result.alpha:.3g}, paired t"
        " approximation): MDE = the smallest |diff| these cases would detect; cases needed ="
        " to detect the observed diff."
    )
    rows = [_power_line(n, m.power) for n, m in result.metrics.items() if m.power is not None]
    return [head, *rows] if rows else []


def _legend(result: Comparison) -> str:
    alpha = f"{result.alpha:.3g}"
    return (
        f"diff = variant - baseline over paired cases; CI: paired bootstrap ({result.ci_method},"
        f" {result.resamples} resamples, seed {result.seed}). An interval that spans 0 means the"
        " data cannot tell the two apart (no detectable difference). improved/regressed (in"
        " each metric's better direction, docs/catalogue.md; changed: a metric without one)"
        f" need an interval that excludes 0 and p (Holm) < {alpha} over the"
        f" {result.family_size} primary metrics; a secondary metric is read on its raw p and"
        " marked (secondary, uncorrected). 'not significant after correcting for N"
        " comparisons': the interval excludes 0 and the raw p passes, Holm's does not;"
        " 'not significant': the interval excludes 0 but the raw p does not pass."
    )


def render_comparison(
    console: Console,
    result: Comparison,
    baseline: Path,
    variant: Path,
    slices: SliceComparison | None = None,
) -> None:
    """The table for people: one row per metric, the family, power, slices, how to read it."""
    title = f"{baseline} -> {variant}: {result.paired_cases} paired cases"
    console.print(_metrics_table(result, title))
    source = {
        "default": "path_score, goal_success and each layer's headline",
        "metrics": "the -m metrics",
        "primary": "--primary / [compare] primary",
        "all": "every metric: none of the default family is present",
    }[result.family_source]
    console.print(
        f"Primary family (Holm over N = {result.family_size}; {source}):"
        f" {', '.join(result.primary) or '-'}. Other metrics are secondary (raw p).",
        markup=False,
    )
    for line in _power_lines(result):
        console.print(line, markup=False)
    if slices is not None:
        console.print(_slices_table(result, slices))
    if result.unpaired:
        only_base = sum(1 for u in result.unpaired if u["only_in"] == "baseline")
        only_var = len(result.unpaired) - only_base
        shown = ", ".join(clip(str(u["case_id"])) for u in result.unpaired[:10])
        more = " ..." if len(result.unpaired) > 10 else ""
        console.print(
            f"unpaired cases (not compared): {only_base} only in baseline, {only_var} only in"
            f" variant: {shown}{more}",
            markup=False,
        )
    console.print(_legend(result), markup=False)


def _slices_table(result: Comparison, slices: SliceComparison) -> Table:
    level = round(result.confidence * 100)
    table = Table(
        title=f"by {slices.by}: Holm across each metric's tested slices; slices under"
        f" {slices.min_n} cases shown, not tested"
    )
    table.add_column("metric", no_wrap=True)
    table.add_column("slice", no_wrap=True)
    for column in ("n", "baseline", "variant", "diff", f"{level}% CI", "p", "p (Holm)"):
        table.add_column(column, justify="right")
    table.add_column("verdict", no_wrap=True)
    for name, rows in slices.metrics.items():
        for i, row in enumerate(rows):
            s = row.stats
            table.add_row(
                escape(clip(name)) if i == 0 else "",
                "(none)" if s.key is None else escape(clip(str(s.key))),
                str(s.n) + (f" (+{s.undefined} undef.)" if s.undefined else ""),
                _fmt(s.baseline),
                _fmt(s.variant),
                _fmt(s.diff),
                f"[{_fmt(s.low)}, {_fmt(s.high)}]" if s.tested else "-",
                _p(s.p_value),
                _p(s.p_holm),
                _coloured(row.verdict),
            )
    return table


def _configured_primary(config: Path | None) -> list[str] | None:
    """The scoring config's ``[compare] primary`` list, when the config model has one."""
    section = getattr(load_config(config), "compare", None)
    names = getattr(section, "primary", None)
    return list(names) if names else None


def _slice_keys(
    by: str,
    base: Records,
    var: Records,
    cases_file: Path | None,
) -> dict[str, tuple[Any, ...]]:
    ids = [str(r.get("case_id")) for r in (*base, *var)]
    if cases_file is None and needs_cases(by):
        raise InputError(
            f"--by {by} needs the cases (results records carry only 'group'): pass"
            " --slices-from CASES.jsonl",
            field="by",
        )
    cases = None
    if cases_file is not None:
        cases = {c.case_id: c for c in load_cases(cases_file).items}
    try:
        return slice_keys(by, ids, records=[*base, *var], cases=cases)
    except SliceFieldError as error:
        where = str(cases_file) if cases_file is not None else None
        raise InputError(str(error), file=where, field="by") from None


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
    allow_config_change: AllowConfigChange = False,
) -> None:
    """Compare a variant with a baseline on the same cases, with paired statistics."""
    if cases is not None:
        base_records = score_to_records(cases, baseline, config)
        var_records = score_to_records(cases, variant, config)
    else:
        base_records = resolve_results(baseline)
        var_records = resolve_results(variant)
    # Provenance before any statistic: sides measured differently are refused.
    check = check_records(
        base_records, var_records, names=(str(baseline), str(variant)), allow=allow_config_change
    )
    family = primary or (None if metric else _configured_primary(config))
    keys = None
    if by is not None:
        keys = _slice_keys(by, base_records, var_records, slices_from or cases)
    try:
        result = compare_records(
            base_records,
            var_records,
            metrics=metric or None,
            primary=family,
            resamples=resamples,
            confidence=confidence,
            ci_method="bca" if ci_method is CIMethodOption.bca else "percentile",
            seed=seed,
        )
        slices = None
        if by is not None and keys is not None:
            slices = compare_slices(
                base_records,
                var_records,
                result.primary,
                keys,
                by=by,
                direction=metric_direction,
                min_n=min_slice_n,
                resamples=resamples,
                confidence=confidence,
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
        doc = result.to_dict()
        if slices is not None:
            doc["slices"] = slices.to_dict()
        doc = json_document(doc, check, variables=True)
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
        return
    console = Console()
    if not console.is_terminal:  # piped to a file or CI log: do not squeeze into 80 columns
        console = Console(width=200)
    print_head(console, head_lines([check], variables=True))
    render_comparison(console, result, baseline, variant, slices)
