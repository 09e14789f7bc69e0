"""What ``pathgrade compare`` prints for people: one row per metric, the primary family,
power, the slices and how to read them (rich tables; untrusted names never markup)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.text import Text

from pathgrade.report.display import clip
from pathgrade.report.fit_table import FitTable
from pathgrade.report.number_text import format_p, format_value, paired_cells
from pathgrade.stats.compare import POWER, Comparison
from pathgrade.stats.compare_slices import SliceComparison
from pathgrade.stats.family import CHANGED, IMPROVED, REGRESSED, SECONDARY_MARK
from pathgrade.stats.power import PowerResult

__all__ = ["render_comparison"]

_COLOURS = {IMPROVED: "green", REGRESSED: "red", CHANGED: "yellow"}


def _coloured(verdict: str) -> Text:
    return Text(verdict, style=_COLOURS.get(verdict.removesuffix(SECONDARY_MARK)) or "")


def _statistic_columns(table: FitTable, level: int) -> None:
    """n, baseline, variant, diff and its interval (the least useful left out first)."""
    table.add_column("n", "right", drop=2)
    table.add_column("baseline", "right", drop=1)
    table.add_column("variant", "right", drop=1)
    table.add_column("diff", "right")
    table.add_column(f"{level}% CI", "right")


def _metrics_table(result: Comparison, title: str) -> FitTable:
    table = FitTable(Text(title))
    table.add_column("metric")
    table.add_column("family", drop=5)
    table.add_column("better", drop=4)
    _statistic_columns(table, round(result.confidence * 100))
    table.add_column("test", drop=6)
    table.add_column("p", "right", drop=3)
    table.add_column("p (Holm)", "right")
    table.add_column("verdict", prose=True)
    for name, m in result.metrics.items():
        table.add_row(
            Text(clip(name)),
            m.family,
            m.direction if m.direction != "neither" else "-",
            *paired_cells(name, m.n, m.undefined, m.baseline, m.variant, m.diff, m.ci),
            m.test or "-",
            format_p(m.p_value),
            format_p(m.p_holm),
            _coloured(m.verdict),
        )
    return table


def _power_line(name: str, power: PowerResult) -> str:
    if power.mde is None:
        return f"  {name}: MDE - ({power.mde_reason})"
    text = f"  {name}: MDE {format_value(power.mde, name)} with {power.n} cases; "
    if power.n_needed is None:
        return text + f"cases needed - ({power.n_needed_reason})"
    diff = format_value(power.mean_diff, name, True)
    return text + f"{power.n_needed} cases would detect the observed diff {diff}"


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


def _slices_table(result: Comparison, slices: SliceComparison) -> FitTable:
    table = FitTable(
        Text(
            f"by {slices.by}: Holm across each metric's tested slices; slices under"
            f" {slices.min_n} cases shown, not tested"
        )
    )
    table.add_column("metric")
    table.add_column("slice")
    _statistic_columns(table, round(result.confidence * 100))
    table.add_column("p", "right", drop=3)
    table.add_column("p (Holm)", "right")
    table.add_column("verdict", prose=True)
    for name, rows in slices.metrics.items():
        for i, row in enumerate(rows):
            s = row.stats
            table.add_row(
                Text(clip(name)) if i == 0 else "",
                "(none)" if s.key is None else Text(clip(str(s.key))),
                *paired_cells(
                    name,
                    s.n,
                    s.undefined,
                    s.baseline,
                    s.variant,
                    s.diff,
                    (s.low, s.high) if s.tested else (None, None),
                ),
                format_p(s.p_value),
                format_p(s.p_holm),
                _coloured(row.verdict),
            )
    return table
