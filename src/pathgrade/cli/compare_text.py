"""What ``pathgrade compare`` prints for people: one row per metric, the primary family,
power, the slices and how to read them (rich tables; untrusted names never markup)."""

from __future__ import annotations

import math
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pathgrade.report.display import clip
from pathgrade.stats.compare import POWER, Comparison
from pathgrade.stats.compare_slices import SliceComparison
from pathgrade.stats.family import CHANGED, IMPROVED, REGRESSED, SECONDARY_MARK
from pathgrade.stats.power import PowerResult

__all__ = ["render_comparison"]

_COLOURS = {IMPROVED: "green", REGRESSED: "red", CHANGED: "yellow"}


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
