"""Rates of the reference-free scores per time window, and which windows got worse beyond
chance (``pathgrade monitor``; docs/production.md, "Watching over time").

**Windows.** Each run carries the start of its window in seconds since the epoch (UTC); a
``width`` coarsens them to ``floor(start / width) * width``, so windows of 1 h, 6 h or 1 d
are aligned on UTC hours and midnight. Only windows that hold a run are listed.

**Rates.** For each score of :data:`RATES` and each (window, group), ``k`` runs with a value
``> 0`` among the ``n`` runs where it is defined (undefined values are left out of ``n``);
the rate ``k / n`` with its Wilson score interval (no continuity correction; SciPy's
``binomtest(k, n).proportion_ci(method="wilson")``)::

    centre = (k + z^2 / 2) / (n + z^2),   half = z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4)

``z`` the normal quantile of ``1 - (1 - confidence) / 2``. ``n = 0`` gives no rate (``None``).

**Amounts.** ``latency_ms`` and ``cost``: the type-7 p50 and p95 of the defined values
(:func:`pathgrade.stats.percentiles.quantiles`).

**The flag.** A window's rate is compared with its baseline: the same group's runs pooled
over the ``baseline`` windows before it in the timeline (all of them by default), ``k0`` of
``n0``. The test is Fisher's exact test, one-sided (is the window's rate greater?), i.e.
``p = P(X >= k)`` for ``X`` hypergeometric: ``n`` draws from ``n + n0`` runs of which
``k + k0`` have the defect (SciPy's ``fisher_exact(..., alternative="greater")``). No test
without a baseline (the first window, or ``n0 = 0``) or when ``n = 0``. A table with
``k + k0 = 0`` has ``p = 1`` and can never reject: it is reported but not counted in the
family. Within one (window, group) row the p-values of the rates tested are Holm-adjusted
(:func:`pathgrade.stats.holm.holm`); a rate is **flagged** when its adjusted p is at most
``alpha``. Windows are not corrected against each other: each new window is a new look, so
with ``W`` windows about ``alpha * W`` rows may be flagged by chance at worst.

A window identical to its baseline (``k / n = k0 / n0``) is never flagged: ``k`` is then the
mean of ``X``, which is also its median, so ``p >= 1/2``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats as sps

from pathgrade.stats.holm import holm
from pathgrade.stats.percentiles import quantiles

__all__ = [
    "AMOUNTS",
    "LEVELS",
    "RATES",
    "Amount",
    "Monitor",
    "Rate",
    "WindowRow",
    "by_tool",
    "iso_time",
    "monitor",
    "parse_window",
    "wilson_interval",
    "worse_p_value",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
#: The scores whose share of runs with a value > 0 is monitored, in the table's order.
RATES: tuple[str, ...] = (
    "repeated_calls",
    "loops",
    "retries_without_change",
    "tool_errors",
    "unrecovered_errors",
    "over_budget",
    "forbidden_action_count",
)
#: The amounts whose percentiles are shown, and the levels.
AMOUNTS: tuple[str, ...] = ("latency_ms", "cost")
LEVELS: tuple[float, ...] = (0.5, 0.95)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_WINDOW = re.compile(r"^([1-9][0-9]*)([smhd])$")


def parse_window(text: str) -> int:
    """Seconds of a window written ``<n><unit>``, unit ``s``, ``m``, ``h`` or ``d``.

    Example:
        >>> parse_window("30m"), parse_window("2h"), parse_window("1d")
        (1800, 7200, 86400)

    Raises:
        ValueError: anything else (``1.5h``, ``0h``, ``h``).
    """
    match = _WINDOW.match(text.strip())
    if match is None:
        raise ValueError(
            f"a window is <n><unit>, unit s, m, h or d (30m, 1h, 6h, 1d), got {text!r}"
        )
    return int(match.group(1)) * _UNITS[match.group(2)]


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` (module docstring).

    Example (``k = 2``, ``n = 10``, ``z = 1.95996``: centre ``3.9207 / 13.8414 = 0.28326``,
    half ``0.14160 * sqrt(1.6 + 0.96036) = 0.22657``):
        >>> [round(x, 4) for x in wilson_interval(2, 10)]
        [0.0567, 0.5098]

    Raises:
        ValueError: ``n < 1``, ``k`` outside ``0..n`` or ``confidence`` outside (0, 1).
    """
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n >= 1, got k={k}, n={n}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    ci = sps.binomtest(int(k), int(n)).proportion_ci(confidence, method="wilson")
    return float(ci.low), float(ci.high)


def worse_p_value(k: int, n: int, k0: int, n0: int) -> float:
    """One-sided Fisher exact p that ``k / n`` is greater than the baseline ``k0 / n0``.

    Example (4 of 4 against 0 of 8: the 4 defects all fall in the window's 4 runs with
    probability ``1 / C(12, 4) = 1 / 495``):
        >>> round(worse_p_value(4, 4, 0, 8), 6)
        0.00202
    """
    if n < 1 or n0 < 1 or not (0 <= k <= n and 0 <= k0 <= n0):
        raise ValueError(f"need 0 <= k <= n, 0 <= k0 <= n0, n, n0 >= 1; got {k, n, k0, n0}")
    table = [[int(k), int(n - k)], [int(k0), int(n0 - k0)]]
    return float(sps.fisher_exact(table, alternative="greater").pvalue)


@dataclass(frozen=True)
class Rate:
    """One score's rate in one row: ``defects`` of ``runs``, its interval, its baseline and
    the flag test (``None`` where not defined; module docstring)."""

    metric: str
    defects: int
    runs: int
    rate: float | None
    low: float | None
    high: float | None
    baseline_defects: int | None = None
    baseline_runs: int | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    flagged: bool = False

    @property
    def baseline_rate(self) -> float | None:
        """``baseline_defects / baseline_runs`` (``None`` without a baseline)."""
        if not self.baseline_runs or self.baseline_defects is None:
            return None
        return self.baseline_defects / self.baseline_runs

    def to_dict(self) -> dict[str, Any]:
        """The rate as the JSON document writes it."""
        return {
            "defects": self.defects,
            "runs": self.runs,
            "rate": self.rate,
            "low": self.low,
            "high": self.high,
            "baseline_defects": self.baseline_defects,
            "baseline_runs": self.baseline_runs,
            "baseline_rate": self.baseline_rate,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "flagged": self.flagged,
        }


@dataclass(frozen=True)
class Amount:
    """An amount's type-7 p50 and p95 over the ``runs`` where it is defined."""

    p50: float | None
    p95: float | None
    runs: int


@dataclass(frozen=True)
class WindowRow:
    """One window (its start, seconds since the epoch, UTC) of one group (``None``: all)."""

    start: int
    group: str | None
    runs: int
    rates: tuple[Rate, ...]
    amounts: Mapping[str, Amount]

    @property
    def flagged(self) -> list[str]:
        """The scores flagged in this row."""
        return [r.metric for r in self.rates if r.flagged]

    def to_dict(self) -> dict[str, Any]:
        """The row as the JSON document writes it."""
        return {
            "start": iso_time(self.start),
            "group": self.group,
            "runs": self.runs,
            "rates": {r.metric: r.to_dict() for r in self.rates},
            **{
                name: {"p50": a.p50, "p95": a.p95, "runs": a.runs}
                for name, a in self.amounts.items()
            },
            "flagged": self.flagged,
        }


@dataclass(frozen=True)
class Monitor:
    """Every row, windows in time order and groups sorted within each window."""

    rows: tuple[WindowRow, ...]
    width: int | None
    baseline: int | None
    alpha: float
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """The settings and the rows, as ``monitor --json`` writes them."""
        return {
            "window_s": self.width,
            "baseline_windows": self.baseline,
            "alpha": self.alpha,
            "confidence": self.confidence,
            "interval": "wilson",
            "test": "fisher exact, one-sided (greater), vs the pooled baseline windows;"
            " Holm-adjusted over the rates of each row",
            "percentiles": "type 7",
            "windows": [row.to_dict() for row in self.rows],
        }


def iso_time(seconds: int) -> str:
    """``2026-12-08T00:00:00Z`` for seconds since the epoch."""
    return f"{np.datetime64(int(seconds), 's')}Z"


def _counts(values: FloatArray) -> tuple[int, int]:
    defined = ~np.isnan(values)
    return int(np.count_nonzero(values[defined] > 0)), int(np.count_nonzero(defined))


def _rate(metric: str, k: int, n: int, k0: int | None, n0: int | None, confidence: float) -> Rate:
    if n == 0:
        return Rate(metric, 0, 0, None, None, None, k0, n0)
    low, high = wilson_interval(k, n, confidence)
    p = worse_p_value(k, n, k0, n0) if k0 is not None and n0 else None
    return Rate(metric, k, n, k / n, low, high, k0, n0, p)


def _flag(rates: list[Rate], alpha: float) -> tuple[Rate, ...]:
    """Holm over the rates whose test can reject (``k + k0 > 0``); flag at ``alpha``."""
    family = [
        i
        for i, r in enumerate(rates)
        if r.p_value is not None and r.defects + (r.baseline_defects or 0) > 0
    ]
    adjusted = holm([rates[i].p_value or 0.0 for i in family])
    out = list(rates)
    for i, p in zip(family, adjusted, strict=True):
        out[i] = Rate(**{**rates[i].__dict__, "p_adjusted": p, "flagged": p <= alpha})
    return tuple(out)


def _amount(values: FloatArray) -> Amount:
    p50, p95 = (float(v) for v in quantiles(values, LEVELS))
    runs = int(np.count_nonzero(~np.isnan(values)))
    return Amount(None if math.isnan(p50) else p50, None if math.isnan(p95) else p95, runs)


def monitor(
    starts: ArrayLike,
    values: Mapping[str, ArrayLike],
    *,
    groups: Sequence[str | None] | None = None,
    width: int | None = None,
    baseline: int | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
) -> Monitor:
    """The rows of ``pathgrade monitor`` (module docstring).

    Args:
        starts: each run's window start, seconds since the epoch.
        values: per score name, each run's value (``nan``: undefined); a score of
            :data:`RATES` or :data:`AMOUNTS` not given is undefined for every run.
        groups: each run's group (``None``: every run in one group, shown as ``None``).
        width: coarsen the windows to this many seconds (``None``: as given).
        baseline: the previous windows pooled as the baseline (``None``: all).
        alpha: the level of the Holm-adjusted test.
        confidence: the intervals' level.

    Raises:
        ValueError: lengths that differ, or a bad ``width``, ``baseline``, ``alpha`` or
            ``confidence``.
    """
    start = np.asarray(starts, dtype=np.int64)
    n = start.size
    if width is not None and width < 1:
        raise ValueError(f"width must be >= 1 second, got {width}")
    if baseline is not None and baseline < 1:
        raise ValueError(f"baseline must be >= 1 window, got {baseline}")
    if not 0.0 < alpha < 1.0 or not 0.0 < confidence < 1.0:
        raise ValueError(f"alpha and confidence must be in (0, 1), got {alpha}, {confidence}")
    columns: dict[str, FloatArray] = {}
    for name in (*RATES, *AMOUNTS):
        given = values.get(name)
        column = np.full(n, np.nan) if given is None else np.asarray(given, dtype=np.float64)
        if column.shape != (n,):
            raise ValueError(f"{name}: {column.size} values for {n} runs")
        columns[name] = column
    labels = list(groups) if groups is not None else [None] * n
    if len(labels) != n:
        raise ValueError(f"{len(labels)} groups for {n} runs")
    if width is not None:
        start = start // width * width
    timeline = sorted(set(start.tolist()))
    at = {s: i for i, s in enumerate(timeline)}
    window_of = np.asarray([at[s] for s in start.tolist()], dtype=np.int64)
    names = sorted({g for g in labels if g is not None})
    keys: list[str | None] = [*names, None] if None in labels else list(names)
    rows: list[WindowRow] = []
    per_group = {}
    for key in keys:
        mask = np.asarray([g == key for g in labels], dtype=bool)
        counts = np.zeros((len(timeline), len(RATES), 2), dtype=np.int64)
        for w in range(len(timeline)):
            here = mask & (window_of == w)
            for j, name in enumerate(RATES):
                counts[w, j] = _counts(columns[name][here])
        per_group[key] = (mask, counts)
    for w, window_start in enumerate(timeline):
        first = 0 if baseline is None else max(0, w - baseline)
        for key in keys:
            mask, counts = per_group[key]
            here = mask & (window_of == w)
            if not here.any():
                continue
            pooled = counts[first:w].sum(axis=0)
            rates = [
                _rate(
                    name,
                    int(counts[w, j, 0]),
                    int(counts[w, j, 1]),
                    int(pooled[j, 0]) if w > 0 else None,
                    int(pooled[j, 1]) if w > 0 else None,
                    confidence,
                )
                for j, name in enumerate(RATES)
            ]
            amounts = {name: _amount(columns[name][here]) for name in AMOUNTS}
            rows.append(
                WindowRow(int(window_start), key, int(here.sum()), _flag(rates, alpha), amounts)
            )
    return Monitor(tuple(rows), width, baseline, alpha, confidence)


def by_tool(
    starts: ArrayLike,
    values: Mapping[str, ArrayLike],
    calls: Sequence[Sequence[tuple[str, bool]]],
) -> tuple[IntArray, dict[str, FloatArray], list[str | None]]:
    """``monitor``'s inputs with one row per (run, tool it called), grouped by the tool.

    ``calls[r]``: run ``r``'s calls in order, each ``(tool, failed)``. A row keeps its run's
    values, except ``tool_errors``: the run's failed calls *of that tool*. So a tool's
    ``tool_errors`` rate is the share of the runs calling it in which a call of it failed;
    every other rate is the share of the runs calling it that had the (run-level) defect.
    A run without calls has no row.
    """
    start = np.asarray(starts, dtype=np.int64)
    index: list[int] = []
    tools: list[str | None] = []
    failed: list[float] = []
    for run, steps in enumerate(calls):
        errors: dict[str, int] = {}
        for tool, bad in steps:
            errors[tool] = errors.get(tool, 0) + int(bad)
        for tool in sorted(errors):
            index.append(run)
            tools.append(tool)
            failed.append(float(errors[tool]))
    picked = np.asarray(index, dtype=np.int64)
    out = {name: np.asarray(col, dtype=np.float64)[picked] for name, col in values.items()}
    out["tool_errors"] = np.asarray(failed, dtype=np.float64)
    return start[picked], out, tools
