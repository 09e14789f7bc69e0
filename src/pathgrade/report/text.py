"""Terminal rendering of trajectory scores with rich. Untrusted text is never markup, and ids
and names are shown through :func:`pathgrade.report.display.clip` (direction controls
visible, long values cut)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.text import Text

from pathgrade.metrics import catalogue
from pathgrade.report.display import clip
from pathgrade.report.fit_table import FitTable
from pathgrade.report.number_text import format_value
from pathgrade.report.semantic_line import uncertain_line
from pathgrade.report.summary_text import (
    render_case_table,
    render_slices,
    render_system,
    system_amounts,
)


def cell(value: Any, name: str = "") -> Text:
    """A value of metric ``name`` as a table cell: ``-`` for none, yes/no, numbers by
    :func:`~pathgrade.report.number_text.format_value` (the one rule of every table)."""
    if value is None:
        return Text("-", style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no", style="green" if value else "red")
    if isinstance(value, int | float):
        return Text(format_value(value, name))
    return Text(str(value))


def _better(name: str) -> Text:
    """Which way is better, from the metric catalogue (``?`` for a name it does not know)."""
    row = catalogue.find(name)
    if row is None:
        return Text("?", style="dim")
    return Text(row.direction if row.direction != "neither" else "-")


def _run_table(console: Console, summary: Mapping[str, Any]) -> None:
    table = FitTable(f"Summary over {summary.get('runs', 0)} runs")
    table.add_column("metric")
    table.add_column("mean", "right")
    table.add_column("better", drop=1)
    table.add_column("undefined", "right", drop=2)
    undefined = summary.get("undefined", {})
    elsewhere = system_amounts(summary)
    for name, value in summary.items():
        if name in ("runs", "undefined") or name in elsewhere or isinstance(value, dict | list):
            continue
        table.add_row(
            Text(clip(name)), cell(value, name), _better(name), Text(str(undefined.get(name, 0)))
        )
    console.print(table)


def conversation_line(conversations: Mapping[str, Any]) -> str:
    """The summary's conversations in one line: runs, turns, ``pass^k`` of
    ``conversation_success`` and how often trials diverge (docs/conversations.md)."""
    turns = conversations.get("turns") or {}
    parts = [f"conversations: {conversations.get('runs', 0)} runs"]
    if turns:
        mean = format_value(turns["mean"], "turns")
        parts.append(f"{mean} turns on average (max {turns['max']})")
    hat = conversations.get("pass^k")
    if hat:
        listed = ", ".join(f"k={k} {format_value(v, 'pass^k')}" for k, v in hat.items())
        parts.append(f"conversation_success pass^k: {listed}")
    divergence = conversations.get("divergence") or {}
    if divergence.get("cases"):
        where = ", ".join(f"turn {t}: {n}" for t, n in divergence["first_turn"].items())
        parts.append(
            f"trials diverge in {divergence['diverged']} of {divergence['cases']} cases"
            + (f" (first at {where})" if where else "")
        )
    return "; ".join(parts)


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
            listed = ", ".join(f"k={k} {format_value(v, key)}" for k, v in values.items())
            console.print(Text(f"{key}: {listed}"))
    conversations = summary.get("conversations")
    if conversations:
        console.print(Text(conversation_line(conversations)))
    abstention = summary.get("abstention")
    if abstention:
        shown = ("coverage", "selective_accuracy", "risk", "aurc")
        console.print(
            Text(
                "abstention: "
                + ", ".join(
                    f"{k} {cell(abstention.get(k), 'abstention.' + k).plain}" for k in shown
                )
            )
        )
    semantic = summary.get("semantic")
    uncertain = uncertain_line(semantic) if isinstance(semantic, Mapping) else None
    if uncertain:
        console.print(Text(uncertain))
    not_computed = summary.get("not_computed")
    if not_computed:
        console.print(
            Text("not computed: " + "; ".join(f"{k} ({v})" for k, v in not_computed.items())),
            style="dim",
        )
    defects = summary.get("defects")
    if defects:
        console.print(Text("defects: " + ", ".join(f"{k} {v}" for k, v in sorted(defects.items()))))
