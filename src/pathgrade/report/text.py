"""Terminal rendering of trajectory scores with rich. Untrusted text is never markup, and ids
and names are shown through :func:`pathgrade.report.display.clip` (direction controls
visible, long values cut)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from pathgrade.metrics import catalogue
from pathgrade.report.display import clip
from pathgrade.report.summary_text import render_case_table, render_slices, render_system


def cell(value: Any) -> Text:
    """A value as a table cell: ``-`` for none, yes/no, floats to 3 significant digits."""
    if value is None:
        return Text("-", style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no", style="green" if value else "red")
    if isinstance(value, float):
        return Text(f"{value:.3g}" if abs(value) >= 10 else f"{value:.3f}")
    return Text(str(value))


def _better(name: str) -> Text:
    """Which way is better, from the metric catalogue (``?`` for a name it does not know)."""
    row = catalogue.find(name)
    if row is None:
        return Text("?", style="dim")
    return Text(row.direction if row.direction != "neither" else "-")


def _run_table(console: Console, summary: Mapping[str, Any]) -> None:
    table = Table(title=f"Summary over {summary.get('runs', 0)} runs")
    table.add_column("metric")
    table.add_column("mean", justify="right")
    table.add_column("better")
    table.add_column("undefined", justify="right")
    undefined = summary.get("undefined", {})
    for name, value in summary.items():
        if name in ("runs", "undefined") or isinstance(value, dict | list):
            continue
        table.add_row(
            Text(clip(name)), cell(value), _better(name), Text(str(undefined.get(name, 0)))
        )
    console.print(table)


def render_summary(console: Console, summary: Mapping[str, Any]) -> None:
    """The summary over cases (``by_case``: mean of per-case means, interval, cases, runs,
    undefined runs) and its slices when present, else the mean of each metric over runs;
    which way is better; the dataset-level extras."""
    if summary.get("by_case"):
        render_case_table(console, summary, _better)
        render_slices(console, summary)
    else:
        _run_table(console, summary)
    render_system(console, summary)
    for key in ("pass@k", "pass^k"):
        values = summary.get(key)
        if values:
            console.print(Text(f"{key}: " + ", ".join(f"k={k} {v:.4f}" for k, v in values.items())))
    abstention = summary.get("abstention")
    if abstention:
        shown = ("coverage", "selective_accuracy", "risk", "aurc")
        console.print(
            Text("abstention: " + ", ".join(f"{k} {cell(abstention.get(k)).plain}" for k in shown))
        )
    not_computed = summary.get("not_computed")
    if not_computed:
        console.print(
            Text("not computed: " + "; ".join(f"{k} ({v})" for k, v in not_computed.items())),
            style="dim",
        )
    defects = summary.get("defects")
    if defects:
        console.print(Text("defects: " + ", ".join(f"{k} {v}" for k, v in sorted(defects.items()))))
