"""The latency distribution: a histogram of the runs' latency with P50, P95 and P99 marked.

Rendering only: the values and percentiles are :class:`LatencyData`, computed by
:mod:`pathgrade.reporting.latency` (pathgrade's one percentile definition,
:mod:`pathgrade.stats.percentiles`). Bins are equal-width over ``[0, max]`` on a
:func:`~pathgrade.report.svg.range_ticks` axis; each bar's hover text gives its range and
count.
"""

from __future__ import annotations

from dataclasses import dataclass

from pathgrade.report.number_text import format_number
from pathgrade.report.svg import range_ticks, svg_open, svg_text

__all__ = ["LatencyData", "latency_chart"]

#: The number of histogram bars.
BINS = 20
_MARKS = (("p50", "P50"), ("p95", "P95"), ("p99", "P99"))


@dataclass(frozen=True)
class LatencyData:
    """The runs' latencies (ms, ascending), their percentiles and the runs without one."""

    values: tuple[float, ...]
    p50: float
    p95: float
    p99: float
    max: float
    unknown: int


def latency_chart(data: LatencyData | None) -> str | None:
    """The histogram as SVG (``None`` without data)."""
    if data is None or not data.values:
        return None
    left, top, plot_w, plot_h = 52.0, 18.0, 420.0, 150.0
    width, height = left + plot_w + 20, top + plot_h + 42
    ticks = range_ticks(0.0, max(data.max, 1e-9))
    end = ticks[-1]
    counts = [0] * BINS
    for value in data.values:
        counts[min(BINS - 1, int(value / end * BINS))] += 1
    tallest = max(counts)

    def x_of(value: float) -> float:
        return left + value / end * plot_w

    parts = [
        svg_open("latency", width, height, "distribution of run latency with P50, P95, P99"),
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="frame"/>',
    ]
    bar_w = plot_w / BINS
    for index, count in enumerate(counts):
        if not count:
            continue
        bar_h = count / tallest * plot_h
        lo, hi = end * index / BINS, end * (index + 1) / BINS
        hover = f"{format_number(lo)} to {format_number(hi)} ms: {count} runs"
        parts.append(
            f'<rect x="{left + index * bar_w:.1f}" y="{top + plot_h - bar_h:.1f}"'
            f' width="{bar_w - 1:.1f}" height="{bar_h:.1f}" class="bar">'
            f"<title>{hover}</title></rect>"
        )
    for tick in ticks:
        x = x_of(tick)
        parts.append(svg_text(x, top + plot_h + 16, format_number(tick), "middle", "tick-label"))
    parts.append(svg_text(left - 6, top + 10, str(tallest), "end", "tick-label"))
    parts.append(svg_text(left - 6, top + plot_h, "0", "end", "tick-label"))
    for index, (attr, label) in enumerate(_MARKS):
        value = getattr(data, attr)
        x = x_of(value)
        parts.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}"'
            f' class="mark mark-{attr}"/>'
        )
        text = f"{label} {format_number(value)}"
        parts.append(svg_text(x + 3, top + 12 + 12 * index, text, "start", f"mark-{attr}"))
    runs = f"{len(data.values)} runs" + (
        f", {data.unknown} without latency" if data.unknown else ""
    )
    parts.append(svg_text(left + plot_w / 2, height - 4, f"latency (ms); {runs}", "middle"))
    parts.append("</svg>")
    return "".join(parts)
