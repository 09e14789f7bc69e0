"""The history page: each primary metric over stored runs, a chart and a table per metric.

Rendering only (the numbers are :func:`pathgrade.reporting.history.build_history`'s). One
self-contained page without a script (its CSP allows none): per metric an SVG of the mean of
each run with its interval as a whisker, runs left to right in the order given, a dashed
line before a run scored differently from the one before it; then the table of runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pathgrade._version import __version__
from pathgrade.report.display import clip
from pathgrade.report.number_text import format_number
from pathgrade.report.svg import range_ticks, svg_open, svg_text
from pathgrade.report.templating import TEMPLATES, environment, trusted

__all__ = ["HistoryData", "HistoryMetric", "HistoryPoint", "HistoryRun", "render_history"]

_LABEL_CHARS = 16


@dataclass(frozen=True)
class HistoryPoint:
    """One metric of one run: mean of per-case means and interval (``None``: no defined
    value), cases and runs with a defined value, undefined runs."""

    mean: float | None
    low: float | None
    high: float | None
    n_cases: int
    runs: int
    undefined: int


@dataclass(frozen=True)
class HistoryRun:
    """A run of the history and its provenance; ``scoring_changed`` says how it was scored
    differently from the run before it (``None``: alike, or not recorded)."""

    name: str
    created: str
    labels: Mapping[str, str]
    config_hash: str | None
    n_cases: int
    n_runs: int
    scoring_changed: str | None = None


@dataclass(frozen=True)
class HistoryMetric:
    """One metric over the runs (one point per run); ``bounds`` its range (catalogue)."""

    metric: str
    direction: str
    bounds: tuple[float, float] | None
    points: list[HistoryPoint]


@dataclass
class HistoryData:
    """Everything the history page shows."""

    runs: list[HistoryRun]
    metrics: list[HistoryMetric]
    confidence: float
    resamples: int
    seed: int
    title: str = field(default="pathgrade history")


def _axis(metric: HistoryMetric) -> list[float]:
    """Ticks holding every interval, kept inside the metric's range."""
    ends = [v for p in metric.points for v in (p.low, p.high, p.mean) if v is not None]
    ticks = range_ticks(min(ends), max(ends))
    if metric.bounds is not None:
        lo, hi = metric.bounds
        inside = [t for t in ticks if lo - 1e-12 <= t <= hi + 1e-12]
        ticks = inside if len(inside) >= 2 else ticks
    return ticks


def history_chart(metric: HistoryMetric, runs: Sequence[HistoryRun], level: int) -> str | None:
    """Means and interval whiskers of one metric over the runs (``None``: none defined)."""
    if all(p.mean is None for p in metric.points):
        return None
    ticks = _axis(metric)
    left, top, step, plot_h = 60.0, 12.0, 90.0, 170.0
    plot_w = step * max(len(runs), 1)
    width, height = left + plot_w + 20, top + plot_h + 52
    lo, hi = ticks[0], ticks[-1]

    def y_of(v: float) -> float:
        return top + plot_h - (v - lo) / (hi - lo) * plot_h

    def x_of(i: int) -> float:
        return left + step * (i + 0.5)

    parts = [
        svg_open("history", width, height, f"{metric.metric} over runs with {level}% intervals"),
        f'<rect x="{left}" y="{top}" width="{plot_w:.1f}" height="{plot_h}" class="frame"/>',
    ]
    for tick in ticks:
        y = y_of(tick)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w:.1f}" y2="{y:.1f}" class="grid"/>'
        )
        parts.append(svg_text(left - 6, y + 4, format_number(tick), "end", "tick-label"))
    line, marks = [], []
    for i, (run, point) in enumerate(zip(runs, metric.points, strict=True)):
        x = x_of(i)
        if run.scoring_changed:
            x0 = x - step / 2
            marks.append(
                f'<line x1="{x0:.1f}" y1="{top}" x2="{x0:.1f}" y2="{top + plot_h}"'
                ' class="changed"><title>scored differently from the run before</title></line>'
            )
        name = clip(run.name, _LABEL_CHARS)
        marks.append(svg_text(x, top + plot_h + 16, name, "middle", "run-label", run.name))
        if point.mean is None:
            marks.append(svg_text(x, top + plot_h / 2, "undefined", "middle", "note"))
            continue
        y = y_of(point.mean)
        line.append(f"{x:.1f},{y:.1f}")
        if point.low is not None and point.high is not None:
            y_low, y_high = y_of(point.low), y_of(point.high)
            marks += [
                f'<line x1="{x:.1f}" y1="{y_low:.1f}" x2="{x:.1f}" y2="{y_high:.1f}"'
                ' class="whisker"/>',
                f'<line x1="{x - 6:.1f}" y1="{y_low:.1f}" x2="{x + 6:.1f}" y2="{y_low:.1f}"'
                ' class="whisker"/>',
                f'<line x1="{x - 6:.1f}" y1="{y_high:.1f}" x2="{x + 6:.1f}" y2="{y_high:.1f}"'
                ' class="whisker"/>',
            ]
        marks.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" class="dot"/>')
        marks.append(svg_text(x + 8, y - 6, format_number(point.mean), "start", "value"))
    if len(line) > 1:
        parts.append(f'<polyline points="{" ".join(line)}" class="curve"/>')
    parts += marks
    parts.append(
        svg_text(left + plot_w / 2, height - 8, f"runs in the order given ({level}% CI)", "middle")
    )
    parts.append("</svg>")
    return "".join(parts)


def render_history(data: HistoryData) -> str:
    """The history page as one HTML string (no script, nothing loaded at view time)."""
    level = round(data.confidence * 100)
    charts = [trusted(history_chart(m, data.runs, level)) for m in data.metrics]
    return (
        environment()
        .get_template("history.html.j2")
        .render(
            data=data,
            charts=charts,
            version=__version__,
            level=level,
            css=trusted((TEMPLATES / "report.css").read_text("utf-8")),
        )
    )
