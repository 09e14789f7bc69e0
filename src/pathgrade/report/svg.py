"""Inline SVG charts for the HTML report, drawn from numbers computed elsewhere.

No JavaScript and no network: each chart is a string of SVG markup in which every text node
and attribute value is escaped here (text with its direction controls made visible,
:func:`pathgrade.report.display.visible`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from pathgrade.report.display import visible

_COLOURS = {"improved": "#1a7f37", "regressed": "#cf222e"}
_GREY = "#6e7781"


def _num(value: Any) -> float | None:
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if math.isnan(value) or math.isinf(value) else float(value)


def _text(x: float, y: float, text: str, anchor: str = "start", cls: str = "") -> str:
    extra = f' class="{escape(cls)}"' if cls else ""
    shown = escape(visible(text))
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{shown}</text>'


def _g(value: float) -> str:
    return f"{value:.3g}"


def forest_plot(metrics: Mapping[str, Mapping[str, Any]], confidence: float) -> str | None:
    """Paired differences (variant - baseline) with their intervals, one row per metric.

    Metrics have different units, so each row has its own symmetric scale around 0 (the
    dashed centre line); the numbers on the right are the values themselves.
    """
    rows = []
    for name, m in metrics.items():
        diff, ci = _num(m.get("diff")), m.get("ci") or [None, None]
        low, high = _num(ci[0]), _num(ci[1])
        if diff is None or low is None or high is None:
            continue
        rows.append((name, diff, low, high, str(m.get("verdict") or "")))
    if not rows:
        return None
    label_w, plot_w, value_w, row_h, top = 210.0, 340.0, 380.0, 24.0, 30.0
    width, height = label_w + plot_w + value_w, top + row_h * len(rows) + 30.0
    centre = label_w + plot_w / 2
    level = round(confidence * 100)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart forest" width="{width:.0f}"'
        f' height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img"'
        f' aria-label="paired differences with {level}% intervals">',
        _text(label_w - 8, 18, "metric", "end", "head"),
        _text(centre, 18, f"variant - baseline ({level}% CI)", "middle", "head"),
        _text(label_w + plot_w + 10, 18, "diff [low, high]: verdict", "start", "head"),
        f'<line x1="{centre:.1f}" y1="{top - 6:.1f}" x2="{centre:.1f}"'
        f' y2="{height - 30:.1f}" class="zero"/>',
    ]
    for i, (name, diff, low, high, verdict) in enumerate(rows):
        y = top + row_h * i + row_h / 2
        span = max(abs(low), abs(high), abs(diff)) or 1.0
        scale = (plot_w / 2 - 12) / span
        colour = _COLOURS.get(verdict, _GREY)
        x_low, x_high, x_diff = centre + low * scale, centre + high * scale, centre + diff * scale
        parts += [
            f'<g class="row" data-metric="{escape(visible(name))}">',
            _text(label_w - 8, y + 4, name, "end"),
            f'<line x1="{x_low:.1f}" y1="{y:.1f}" x2="{x_high:.1f}" y2="{y:.1f}"'
            f' stroke="{colour}" stroke-width="2"/>',
            f'<rect x="{x_diff - 4:.1f}" y="{y - 4:.1f}" width="8" height="8"'
            f' fill="{colour}" transform="rotate(45 {x_diff:.1f} {y:.1f})"/>',
            _text(
                label_w + plot_w + 10,
                y + 4,
                f"{_g(diff)} [{_g(low)}, {_g(high)}]: {verdict}",
            ),
            "</g>",
        ]
    parts.append(
        _text(
            centre,
            height - 10,
            "each row on its own scale; dashed line = no change",
            "middle",
            "note",
        )
    )
    parts.append("</svg>")
    return "".join(parts)


def risk_coverage_plot(curve: Sequence[Mapping[str, Any]]) -> str | None:
    """Risk (error rate among answered) against coverage (share answered), as a step line."""
    points = sorted(
        (c, r)
        for c, r in ((_num(p.get("coverage")), _num(p.get("risk"))) for p in curve)
        if c is not None and r is not None
    )
    if not points:
        return None
    left, top, plot_w, plot_h = 50.0, 16.0, 420.0, 240.0
    width, height = left + plot_w + 20, top + plot_h + 44
    y_max = max(1e-9, max(r for _, r in points))
    y_max = 1.0 if y_max > 0.5 else math.ceil(y_max * 10) / 10

    def xy(c: float, r: float) -> tuple[float, float]:
        return left + c * plot_w, top + plot_h - (r / y_max) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart risk" width="{width:.0f}"'
        f' height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img"'
        ' aria-label="risk-coverage curve">',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="frame"/>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x, _ = xy(tick, 0)
        _, y = xy(0, tick * y_max)
        parts.append(_text(x, top + plot_h + 16, _g(tick), "middle"))
        parts.append(_text(left - 6, y + 4, _g(tick * y_max), "end"))
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(c, r) for c, r in points))
    parts.append(f'<polyline points="{line}" class="curve"/>')
    for c, r in points:
        x, y = xy(c, r)
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="dot"/>')
    parts.append(
        _text(left + plot_w / 2, height - 6, "coverage (share of runs answered)", "middle")
    )
    parts.append(
        f'<text x="12" y="{top + plot_h / 2:.1f}" text-anchor="middle"'
        f' transform="rotate(-90 12 {top + plot_h / 2:.1f})">risk (error rate)</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
