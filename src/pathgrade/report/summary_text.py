"""Terminal tables of the ``pathgrade score`` summary over cases and its ``--by`` slices.

Rendering only: the numbers are ``summary["by_case"]``, ``summary["interval"]`` and
``summary["slices"]`` (:func:`pathgrade.stats.case_summary.summary_over_cases`). Slice keys
are case data: never markup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console
from rich.text import Text

from pathgrade.report.display import clip
from pathgrade.report.fit_table import FitTable
from pathgrade.report.number_text import format_interval, format_value

__all__ = ["render_case_table", "render_slices", "render_system", "system_amounts"]


def _interval(low: float | None, high: float | None, name: str) -> Text:
    text = format_interval(low, high, name)
    return Text(text, style="dim" if text == "-" else "")


def _level(summary: Mapping[str, Any]) -> str:
    interval = summary.get("interval") or {}
    return f"{round(100 * float(interval.get('confidence', 0.95)), 1):g}%"


def system_amounts(summary: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The amounts of ``summary["system"]`` (latency, tokens, cost): each is shown once, in
    the System table, not also as a row of the summary (issue 32: one number, one place)."""
    system = summary.get("system") or {}
    return {k: v for k, v in system.items() if isinstance(v, Mapping) and "runs" in v}


def render_case_table(
    console: Console, summary: Mapping[str, Any], better: Callable[[str], Text]
) -> None:
    """The headline table: per metric the mean of per-case means, its interval over cases,
    cases, runs and undefined runs (``better``: which way is better, as a cell). The system
    amounts are left to :func:`render_system`, which has their mean and its interval too."""
    elsewhere = system_amounts(summary)
    by_case = {k: v for k, v in summary["by_case"].items() if k not in elsewhere}
    interval = summary.get("interval") or {}
    cases = max((row["n_cases"] for row in by_case.values()), default=0)
    level = _level(summary)
    table = FitTable(f"Summary over {cases} cases ({summary.get('runs', 0)} runs)")
    table.add_column("metric")
    table.add_column("mean", "right")
    table.add_column(f"{level} CI", "right")
    for header, drop in (("cases", 3), ("runs", 4), ("undefined", 2)):
        table.add_column(header, "right", drop=drop)
    table.add_column("better", drop=1)
    for name, row in by_case.items():
        table.add_row(
            Text(clip(name)),
            Text(format_value(row["mean"], name)),
            _interval(row["low"], row["high"], name),
            Text(str(row["n_cases"])),
            Text(str(row["runs"])),
            Text(str(row["undefined"])),
            better(name),
        )
    console.print(table)
    console.print(
        Text(
            f"mean of per-case means; {level} CI: bootstrap over cases"
            f" ({interval.get('resamples', '?')} resamples, seed {interval.get('seed', '?')})",
            style="dim",
        )
    )
    if elsewhere:
        console.print(Text(f"{', '.join(elsewhere)}: in the System table below", style="dim"))


def render_slices(console: Console, summary: Mapping[str, Any]) -> None:
    """One table per metric of ``summary["slices"]``; untested slices marked ``n < min_n``."""
    slices = summary.get("slices")
    if not slices:
        return
    min_n = slices["min_n"]
    level = _level(summary)
    for metric, rows in slices["metrics"].items():
        table = FitTable(
            Text(f"{clip(metric)} by {clip(str(slices['by']))}"),
            caption=f"slices under {min_n} cases are shown without an interval",
        )
        table.add_column("slice")
        for header, drop in (("cases", 2), ("runs", 3), ("undefined", 1)):
            table.add_column(header, "right", drop=drop)
        table.add_column("mean", "right")
        table.add_column(f"{level} CI", "right")
        for row in rows:
            key = row["slice"]
            low, high = row["ci"]
            tested = bool(row["tested"])
            table.add_row(
                Text("(none)" if key is None else clip(str(key))),
                Text(str(row["n_cases"])),
                Text(str(row["runs"])),
                Text(str(row["undefined"])),
                Text(format_value(row["mean"], metric)),
                _interval(low, high, metric) if tested else Text(f"n < {min_n}", style="dim"),
                style=None if tested else "dim",
            )
        console.print(table)


_SYSTEM_STATISTICS = ("mean", "p50", "p95", "p99", "max")
#: Which statistics a narrow terminal leaves out first (highest first; 0: never).
_SYSTEM_DROP = {"p99": 3, "p50": 2, "max": 1}
#: The intervals over cases a System table shows when computed, and when they go.
_SYSTEM_INTERVALS = {"mean": 6, "p95": 7}


def render_system(console: Console, summary: Mapping[str, Any]) -> None:
    """``summary["system"]``: per amount (latency, tokens, cost) its mean of per-case means,
    percentiles and max over runs, runs and unknown runs, the p95's interval over cases when
    computed, and why costs are unknown."""
    amounts = system_amounts(summary)
    if not amounts:
        return
    with_ci = any("ci" in row for row in amounts.values())
    table = FitTable("System")
    table.add_column("amount")
    for header in _SYSTEM_STATISTICS:
        table.add_column(header, "right", drop=_SYSTEM_DROP.get(header, 0))
    table.add_column("runs", "right", drop=4)
    table.add_column("unknown", "right", drop=5)
    if with_ci:
        for stat, drop in _SYSTEM_INTERVALS.items():
            table.add_column(f"{stat} {_level(summary)} CI", "right", drop=drop)
    for name, row in amounts.items():
        cells = [Text(clip(f"{name} ({row['unit']})"))]
        cells += [Text(format_value(row.get(stat), name)) for stat in _SYSTEM_STATISTICS]
        cells += [Text(str(row["runs"])), Text(str(row["unknown"]))]
        if with_ci:
            for stat in _SYSTEM_INTERVALS:
                low, high = row.get("ci", {}).get(stat) or (None, None)
                cells.append(_interval(low, high, name))
        table.add_row(*cells)
    console.print(table)
    notes = ["mean of per-case means; percentiles over every run (type 7)"]
    reasons = (amounts.get("cost") or {}).get("unknown_reasons") or {}
    if reasons:
        notes.append("cost unknown: " + ", ".join(f"{k} {v}" for k, v in reasons.items()))
    console.print(Text("; ".join(notes), style="dim"))
