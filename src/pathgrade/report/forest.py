"""The forest plot of paired differences (variant - baseline), one shared axis per unit.

Metrics are grouped into panels by what one unit of their difference is, from the catalogue
(:mod:`pathgrade.metrics.catalogue`): binary and proportion metrics share the ``proportion``
panel, the others one panel per unit (``points``, ``steps``, ``ms``); a metric with no unit or
no catalogue row has a panel of its own. Within a panel every row is drawn on the same axis,
centred on a solid zero line and labelled with ticks (:func:`pathgrade.report.svg.
symmetric_ticks` of the largest absolute end of an interval or difference), so bar lengths
compare; next to each row its difference, interval and verdict are printed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape
from typing import Any

from pathgrade.metrics import catalogue
from pathgrade.report.display import visible
from pathgrade.report.number_text import format_interval, format_signed, format_value
from pathgrade.report.svg import (
    GREY,
    VERDICT_COLOURS,
    finite,
    svg_open,
    svg_text,
    symmetric_ticks,
)

__all__ = ["ForestRow", "forest_panels", "forest_plot"]

LABEL_W, PLOT_W, VALUE_W = 200.0, 360.0, 440.0
ROW_H, HEAD_H, AXIS_H, GAP = 22.0, 22.0, 30.0, 12.0
_SHARE = "proportion"


@dataclass(frozen=True)
class ForestRow:
    """One metric: the mean paired difference, its interval and the verdict."""

    metric: str
    diff: float
    low: float
    high: float
    verdict: str


@dataclass
class Panel:
    """Rows that share an axis: their ``unit`` and the axis ``ticks`` (first = -last)."""

    unit: str
    rows: list[ForestRow] = field(default_factory=list)
    ticks: list[float] = field(default_factory=list)


def _unit(name: str) -> tuple[str, str]:
    """``(panel key, unit shown)`` of a metric."""
    row = catalogue.find(name)
    if row is not None and row.kind in ("binary", "proportion"):
        return _SHARE, _SHARE
    if row is not None and row.unit:
        return f"unit:{row.unit}", row.unit
    return f"metric:{name}", f"{name} units"


def forest_panels(metrics: Mapping[str, Mapping[str, Any]]) -> list[Panel]:
    """The panels of the plot, in order of their first metric; metrics with an undefined
    difference or interval are left out."""
    panels: dict[str, Panel] = {}
    for name, m in metrics.items():
        ci = m.get("ci") or [None, None]
        diff, low, high = finite(m.get("diff")), finite(ci[0]), finite(ci[1])
        if diff is None or low is None or high is None:
            continue
        key, unit = _unit(name)
        panel = panels.setdefault(key, Panel(unit))
        panel.rows.append(ForestRow(name, diff, low, high, str(m.get("verdict") or "")))
    for panel in panels.values():
        limit = max(max(abs(r.low), abs(r.high), abs(r.diff)) for r in panel.rows)
        panel.ticks = symmetric_ticks(limit)
    return list(panels.values())


def _panel(panel: Panel, top: float, level: int) -> tuple[list[str], float]:
    """The markup of one panel starting at ``top``, and its height."""
    end = panel.ticks[-1]
    centre = LABEL_W + PLOT_W / 2
    scale = (PLOT_W / 2 - 10) / end

    def x_of(value: float) -> float:
        return centre + value * scale

    body_top, body_h = top + HEAD_H, ROW_H * len(panel.rows)
    axis_y = body_top + body_h
    parts = [
        f'<g class="panel" data-unit="{_attr(panel.unit)}" data-scale="{scale:.6g}">',
        svg_text(LABEL_W - 8, top + 15, "metric", "end", "head"),
        svg_text(centre, top + 15, f"difference in {panel.unit} ({level}% CI)", "middle", "head"),
        svg_text(LABEL_W + PLOT_W + 10, top + 15, "diff [low, high]: verdict", "start", "head"),
    ]
    for tick in panel.ticks:
        x = x_of(tick)
        parts += [
            f'<line x1="{x:.1f}" y1="{body_top:.1f}" x2="{x:.1f}" y2="{axis_y:.1f}" class="grid"/>',
            f'<line x1="{x:.1f}" y1="{axis_y:.1f}" x2="{x:.1f}" y2="{axis_y + 5:.1f}"'
            ' class="tick"/>',
            svg_text(x, axis_y + 17, format_signed(tick), "middle", "tick-label"),
        ]
    parts += [
        f'<line x1="{x_of(-end):.1f}" y1="{axis_y:.1f}" x2="{x_of(end):.1f}" y2="{axis_y:.1f}"'
        ' class="axis"/>',
        f'<line x1="{centre:.1f}" y1="{body_top - 2:.1f}" x2="{centre:.1f}"'
        f' y2="{axis_y:.1f}" class="zero"/>',
    ]
    for i, row in enumerate(panel.rows):
        y = body_top + ROW_H * i + ROW_H / 2
        colour = VERDICT_COLOURS.get(row.verdict, GREY)
        text = (
            f"{format_value(row.diff, row.metric, True)}"
            f" {format_interval(row.low, row.high, row.metric, True)}: {row.verdict or '-'}"
        )
        parts += [
            f'<g class="row" data-metric="{_attr(row.metric)}">',
            svg_text(LABEL_W - 8, y + 4, row.metric, "end"),
            f'<line x1="{x_of(row.low):.1f}" y1="{y:.1f}" x2="{x_of(row.high):.1f}"'
            f' y2="{y:.1f}" stroke="{colour}" stroke-width="2" class="ci"/>',
            f'<rect x="{x_of(row.diff) - 4:.1f}" y="{y - 4:.1f}" width="8" height="8"'
            f' fill="{colour}" transform="rotate(45 {x_of(row.diff):.1f} {y:.1f})"'
            ' class="diff"/>',
            svg_text(LABEL_W + PLOT_W + 10, y + 4, text, "start", "values"),
            "</g>",
        ]
    parts.append("</g>")
    return parts, HEAD_H + body_h + AXIS_H


def _attr(text: str) -> str:
    return escape(visible(text))


def forest_plot(metrics: Mapping[str, Mapping[str, Any]], confidence: float) -> str | None:
    """The plot of ``comparison["metrics"]`` (``diff``, ``ci``, ``verdict`` per metric), or
    ``None`` when no metric has a defined difference."""
    panels = forest_panels(metrics)
    if not panels:
        return None
    level = round(confidence * 100)
    body: list[str] = []
    top = 4.0
    for panel in panels:
        parts, height = _panel(panel, top, level)
        body += parts
        top += height + GAP
    width, height = LABEL_W + PLOT_W + VALUE_W, top + 10
    note = "each panel is one axis (solid line: no change); rows in a panel compare"
    return "".join(
        [
            svg_open("forest", width, height, f"paired differences with {level}% intervals"),
            *body,
            svg_text(LABEL_W + PLOT_W / 2, height - 6, note, "middle", "note"),
            "</svg>",
        ]
    )
