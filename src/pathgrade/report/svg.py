"""Inline SVG for the HTML report: the shared pieces (escaped text, axes) and the
risk-coverage curve; the forest plot is :mod:`pathgrade.report.forest`, the pass@k chart
:mod:`pathgrade.report.trials_chart`, the history chart :mod:`pathgrade.report.history_page`.

No JavaScript and no network: each chart is a string of SVG markup in which every text node
and attribute value is escaped here (text with its direction controls made visible,
:func:`pathgrade.report.display.visible`). Numbers are written by
:func:`pathgrade.report.number_text.format_number`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from html import escape
from typing import Any

from pathgrade.report.display import visible
from pathgrade.report.number_text import format_number

#: Line colours by verdict.
VERDICT_COLOURS = {"improved": "#1a7f37", "regressed": "#cf222e"}
GREY = "#6e7781"
_NICE = (Decimal(1), Decimal(2), Decimal("2.5"), Decimal(5), Decimal(10))


def finite(value: Any) -> float | None:
    """``value`` as a float when it is a finite number (not a bool), else ``None``."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if math.isnan(value) or math.isinf(value) else float(value)


def svg_text(
    x: float, y: float, text: str, anchor: str = "start", cls: str = "", title: str = ""
) -> str:
    """A ``<text>`` element, with a ``<title>`` (the hover text) when ``title`` is given;
    every text escaped."""
    extra = f' class="{escape(cls)}"' if cls else ""
    shown = escape(visible(text))
    hover = f"<title>{escape(visible(title))}</title>" if title else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{hover}{shown}</text>'


def svg_open(cls: str, width: float, height: float, label: str) -> str:
    """The opening ``<svg>`` tag of a chart of class ``chart cls`` (``label``: its name)."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {escape(cls)}"'
        f' width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}"'
        f' role="img" aria-label="{escape(visible(label))}">'
    )


def nice_step(raw: float) -> float:
    """The smallest of 1, 2, 2.5, 5 (times a power of ten) that is at least ``raw`` > 0.

    >>> nice_step(0.3), nice_step(0.26), nice_step(7.0), nice_step(20.0)
    (0.5, 0.5, 10.0, 20.0)
    """
    exact = Decimal(repr(raw))
    power = Decimal(10) ** (exact.adjusted())
    return float(next(n * power for n in _NICE if n * power >= exact))


def symmetric_ticks(limit: float) -> list[float]:
    """Five ticks of an axis centred on 0 that holds ``[-limit, limit]``: the end is
    :func:`nice_step` of ``limit`` (1 when ``limit`` is 0).

    >>> symmetric_ticks(0.3)
    [-0.5, -0.25, 0.0, 0.25, 0.5]
    """
    end = nice_step(limit) if limit > 0 else 1.0
    return [-end, -end / 2, 0.0, end / 2, end]


def range_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Ticks every :func:`nice_step` of ``(high - low) / (count - 1)``, from the last tick at or
    below ``low`` to the first at or above ``high``.

    >>> range_ticks(0.42, 0.91)  # step: nice_step((0.91 - 0.42) / 4 = 0.1225) = 0.2
    [0.4, 0.6, 0.8, 1.0]
    """
    if high <= low:
        pad = abs(low) * 0.1 or 1.0
        low, high = low - pad, high + pad
    step = Decimal(repr(nice_step((high - low) / (count - 1))))
    first = (Decimal(repr(low)) / step).to_integral_value(rounding="ROUND_FLOOR")
    last = (Decimal(repr(high)) / step).to_integral_value(rounding="ROUND_CEILING")
    return [float(i * step) for i in range(int(first), int(last) + 1)]


def risk_coverage_plot(curve: Sequence[Mapping[str, Any]]) -> str | None:
    """Risk (error rate among answered) against coverage (share answered), as a step line."""
    points = sorted(
        (c, r)
        for c, r in ((finite(p.get("coverage")), finite(p.get("risk"))) for p in curve)
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
        svg_open("risk", width, height, "risk-coverage curve"),
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="frame"/>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x, _ = xy(tick, 0)
        _, y = xy(0, tick * y_max)
        parts.append(svg_text(x, top + plot_h + 16, format_number(tick), "middle"))
        parts.append(svg_text(left - 6, y + 4, format_number(tick * y_max), "end"))
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(c, r) for c, r in points))
    parts.append(f'<polyline points="{line}" class="curve"/>')
    for c, r in points:
        x, y = xy(c, r)
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="dot"/>')
    parts.append(
        svg_text(left + plot_w / 2, height - 6, "coverage (share of runs answered)", "middle")
    )
    parts.append(
        f'<text x="12" y="{top + plot_h / 2:.1f}" text-anchor="middle"'
        f' transform="rotate(-90 12 {top + plot_h / 2:.1f})">risk (error rate)</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
