"""pass@k and pass^k over repeated trials: a small chart and the rows of its table.

The values are the run summary's (:func:`pathgrade.stats.passk.passk_summary`): ``pass@k``
(one of ``k`` trials succeeds) rises with ``k``, ``pass^k`` (all ``k`` succeed) falls; both
are drawn against ``k`` on a [0, 1] axis, each point labelled in the table below it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pathgrade.report.number_text import format_number
from pathgrade.report.svg import finite, svg_open, svg_text

__all__ = ["TrialRow", "trial_rows", "trials_chart"]

_SERIES = (("pass@k", "at", "one of k trials succeeds"), ("pass^k", "hat", "all k succeed"))


@dataclass(frozen=True)
class TrialRow:
    """``k`` and the two estimates (``None``: not computed for this ``k``)."""

    k: int
    pass_at: float | None
    pass_hat: float | None


def trial_rows(
    pass_at: Mapping[str, object] | None, pass_hat: Mapping[str, object] | None
) -> list[TrialRow]:
    """One row per ``k`` of either map (keys are ``k`` as text), by ``k``."""
    at, hat = dict(pass_at or {}), dict(pass_hat or {})
    ks = sorted({int(k) for k in (*at, *hat)})
    return [TrialRow(k, finite(at.get(str(k))), finite(hat.get(str(k)))) for k in ks]


def trials_chart(rows: list[TrialRow]) -> str | None:
    """Both series against ``k`` (``None`` without rows)."""
    if not rows:
        return None
    left, top, plot_w, plot_h = 46.0, 14.0, 300.0, 150.0
    width, height = left + plot_w + 250, top + plot_h + 40
    k_max = rows[-1].k
    span = max(k_max - 1, 1)

    def x_of(k: int) -> float:
        return left + (k - 1) / span * plot_w if k_max > 1 else left + plot_w / 2

    def y_of(v: float) -> float:
        return top + plot_h - v * plot_h

    parts = [
        svg_open("passk", width, height, "pass@k and pass^k against k"),
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="frame"/>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = y_of(tick)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" class="grid"/>'
        )
        parts.append(svg_text(left - 6, y + 4, format_number(tick), "end", "tick-label"))
    every = max(1, round(k_max / 10))
    for row in rows:
        if row.k == 1 or row.k == k_max or row.k % every == 0:
            parts.append(svg_text(x_of(row.k), top + plot_h + 16, str(row.k), "middle"))
    parts.append(svg_text(left + plot_w / 2, height - 4, "k (trials drawn)", "middle"))
    for index, (name, attr, meaning) in enumerate(_SERIES):
        points = [
            (x_of(r.k), y_of(v))
            for r in rows
            if (v := r.pass_at if attr == "at" else r.pass_hat) is not None
        ]
        if not points:
            continue
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(f'<polyline points="{line}" class="series series-{attr}"/>')
        parts += [
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="dot series-{attr}"/>'
            for x, y in points
        ]
        legend_y = top + 12 + 18 * index
        parts.append(
            f'<line x1="{left + plot_w + 12}" y1="{legend_y - 4}" x2="{left + plot_w + 30}"'
            f' y2="{legend_y - 4}" class="series series-{attr}"/>'
        )
        parts.append(svg_text(left + plot_w + 34, legend_y, f"{name}: {meaning}", "start"))
    parts.append("</svg>")
    return "".join(parts)
