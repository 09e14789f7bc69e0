"""The summary of ``pathgrade score`` over cases: per metric, and per slice of a case field.

The case is the unit (as in ``compare``, ``gate`` and ``report``): over the per-case means of
a :class:`~pathgrade.stats.case_sums.CaseTable` (each case's mean over its defined runs),

* :func:`case_rows`: per metric ``mean`` (the mean of per-case means), ``low``/``high`` (its
  percentile cluster-bootstrap interval: whole cases resampled), ``n_cases`` (cases with a
  defined run), ``runs`` (runs with a defined value) and ``undefined`` (runs without one);
* :func:`slice_rows`: the same per slice (:func:`pathgrade.stats.slices.slice_summaries`:
  slices under ``min_n`` cases get no interval), a case being in each slice of its keys;
* :func:`summary_over_cases`: both, as the entries ``by_case``, ``interval`` and ``slices``
  of the ``pathgrade score`` summary (in memory and partitioned alike).

:func:`case_intervals` equals :func:`pathgrade.stats.bootstrap.case_mean_interval` on each
column, seed for seed, up to floating-point rounding of the resample means: every column
draws the same resamples from a fresh generator of ``seed``, as ``case_mean_interval`` does.
It is vectorised for the summary's many metrics: columns with the same number of cases share
one draw of resampled case indices per block, turned into per-resample case counts ``W``
(``resamples x n``), and all their resample means are one matrix product ``W @ X / n``.
Columns that take the exact shortcuts of :func:`pathgrade.stats.bootstrap.bootstrap_mean_ci`
(all values equal; few distinct values) go through it directly.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pathgrade.stats._rng import as_generator
from pathgrade.stats.bootstrap import (
    _CHUNK_ELEMENTS,  # the block layout of resample_means, which this replicates
    _DISCRETE_MAX_VALUES,  # its few-distinct-values shortcut, taken through it
    CaseInterval,
    bootstrap_mean_ci,
)
from pathgrade.stats.case_sums import CaseTable
from pathgrade.stats.slice_keys import SliceKey
from pathgrade.stats.slices import MIN_SLICE_CASES, slice_summaries

__all__ = [
    "SLICE_METRICS",
    "SUMMARY_RESAMPLES",
    "CaseRow",
    "SummaryOptions",
    "case_intervals",
    "case_rows",
    "slice_rows",
    "summary_over_cases",
]

FloatArray = NDArray[np.float64]
#: Default resamples of the score summary's intervals (docs/experiments.md: their cost).
SUMMARY_RESAMPLES = 1_000
#: Columns sharing draws from which one matrix product beats a gather per column.
_PRODUCT_MIN_COLUMNS = 3
#: Metrics every slice table shows (when some run has a value), before those asked for.
SLICE_METRICS = ("path_score", "goal_success")


def _num(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


@dataclass(frozen=True)
class CaseRow:
    """One metric of the summary over cases (``nan`` when no case has a defined run)."""

    mean: float
    low: float
    high: float
    n_cases: int
    runs: int
    undefined: int

    def to_dict(self) -> dict[str, Any]:
        """``summary["by_case"][metric]`` (``nan`` becomes ``None``)."""
        return {
            "mean": _num(self.mean),
            "low": _num(self.low),
            "high": _num(self.high),
            "n_cases": self.n_cases,
            "runs": self.runs,
            "undefined": self.undefined,
        }


def _check(resamples: int, confidence: float) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an integer >= 1, got {resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def _shared_means(columns: FloatArray, resamples: int, seed: int) -> FloatArray:
    """Resample means (``resamples x columns``) of every column of ``columns`` (``n`` rows),
    from the draws :func:`pathgrade.stats.bootstrap.resample_means` makes for ``n`` values.

    Below :data:`_PRODUCT_MIN_COLUMNS` columns each is gathered as ``resample_means`` does
    (the same arithmetic); from there on the draws become per-resample case counts and one
    matrix product serves all columns (cheaper than a gather per column).
    """
    n, width = columns.shape
    gen = as_generator(seed)
    rows = max(1, _CHUNK_ELEMENTS // n)
    index_type = np.uint32 if n <= np.iinfo(np.uint32).max else np.int64
    out = np.empty((resamples, width), dtype=np.float64)
    product = width >= _PRODUCT_MIN_COLUMNS
    counts = np.empty((min(rows, resamples), n) if product else (0, n), dtype=np.float64)
    data = np.asfortranarray(columns)  # each column contiguous
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        index = gen.integers(0, n, size=(stop - start, n), dtype=index_type)
        if not product:
            for j in range(width):
                out[start:stop, j] = data[:, j][index].mean(axis=1)
            continue
        for row in range(stop - start):
            counts[row] = np.bincount(index[row], minlength=n)
        out[start:stop] = (counts[: stop - start] @ data) / n
    return out


def case_intervals(
    means: FloatArray,
    *,
    resamples: int = SUMMARY_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[CaseInterval]:
    """Per column of ``means`` (cases x metrics, ``nan`` = no defined run): the mean of the
    defined per-case means and its percentile bootstrap interval (module docstring).

    Raises:
        ValueError: bad ``resamples`` or ``confidence``, or ``means`` not two-dimensional.
    """
    _check(resamples, confidence)
    if means.ndim != 2:
        raise ValueError(f"means must be two-dimensional (cases x metrics), got {means.shape}")
    nan = float("nan")
    out: list[CaseInterval] = [CaseInterval(nan, nan, nan, 0)] * means.shape[1]
    shared: dict[int, list[tuple[int, FloatArray]]] = {}
    for j in range(means.shape[1]):
        data = means[~np.isnan(means[:, j]), j]
        n = int(data.size)
        if n == 0:
            continue
        distinct = int(np.unique(data).size)
        if distinct == 1 or (distinct <= _DISCRETE_MAX_VALUES and distinct < n):
            ci = bootstrap_mean_ci(data, resamples=resamples, confidence=confidence, rng=seed)
            out[j] = CaseInterval(ci.estimate, ci.low, ci.high, n)
        else:
            shared.setdefault(n, []).append((j, data))
    alpha = (1.0 - confidence) / 2.0
    for group in shared.values():
        columns = np.column_stack([data for _, data in group])
        bounds = np.quantile(_shared_means(columns, resamples, seed), [alpha, 1 - alpha], axis=0)
        for k, (j, data) in enumerate(group):
            low, high = float(bounds[0, k]), float(bounds[1, k])
            out[j] = CaseInterval(float(data.mean()), low, high, int(data.size))
    return out


def case_rows(
    table: CaseTable,
    *,
    resamples: int = SUMMARY_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, CaseRow]:
    """Per metric of ``table``, in its order: the summary over cases (module docstring)."""
    intervals = case_intervals(table.means, resamples=resamples, confidence=confidence, seed=seed)
    total = int(table.runs.sum())
    rows = {}
    for j, (name, ci) in enumerate(zip(table.names, intervals, strict=True)):
        runs = int(table.defined[:, j].sum())
        rows[name] = CaseRow(ci.mean, ci.low, ci.high, ci.n_cases, runs, total - runs)
    return rows


def slice_rows(
    table: CaseTable,
    keys: Sequence[Sequence[SliceKey]],
    metrics: Sequence[str],
    *,
    min_n: int = MIN_SLICE_CASES,
    resamples: int = SUMMARY_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, list[dict[str, Any]]]:
    """Per metric of ``metrics``, its slices in order of first appearance: ``slice``,
    ``n_cases``, ``runs`` (defined runs of the slice's cases), ``undefined`` (cases with no
    defined run), ``mean``, ``ci`` (``[None, None]`` when untested) and ``tested``.

    ``keys[i]`` are the slice keys of ``table``'s case ``i``: it counts in each of them.

    Raises:
        ValueError: ``keys`` not one entry per case, a metric ``table`` lacks, bad ``min_n``.
    """
    if len(keys) != table.codes.size:
        raise ValueError(f"{len(keys)} slice keys for {table.codes.size} cases")
    members = [(key, i) for i, case_keys in enumerate(keys) for key in case_keys]
    rows_of = np.array([i for _, i in members], dtype=np.int64)
    slice_of: dict[Hashable, Hashable] = {m: m[0] for m in members}
    out: dict[str, list[dict[str, Any]]] = {}
    for name in metrics:
        if name not in table.names:
            raise ValueError(f"metric {name!r} is not in the summary")
        means, defined = table.column(name)
        runs: dict[Hashable, int] = {}
        for (key, _), count in zip(members, defined[rows_of].tolist(), strict=True):
            runs[key] = runs.get(key, 0) + count
        found = slice_summaries(
            means[rows_of],
            members,
            slice_of,
            min_n=min_n,
            resamples=resamples,
            confidence=confidence,
            seed=seed,
        )
        out[name] = [{**row.to_dict(), "runs": runs[row.key]} for row in found]
    return out


@dataclass(frozen=True)
class SummaryOptions:
    """How the summary over cases is computed: interval ``resamples``, ``seed`` and
    ``confidence``; with ``by`` (a slice field), slices of :data:`SLICE_METRICS` and
    ``metrics``, those under ``min_n`` cases untested."""

    resamples: int = SUMMARY_RESAMPLES
    seed: int = 0
    confidence: float = 0.95
    by: str | None = None
    metrics: tuple[str, ...] = ()
    min_n: int = MIN_SLICE_CASES


def summary_over_cases(
    table: CaseTable,
    options: SummaryOptions,
    keys: Sequence[Sequence[SliceKey]] | None = None,
) -> dict[str, Any]:
    """``{"by_case": {metric: row}, "interval": {...}, "slices": {...}}`` (``slices`` only
    with ``options.by``; ``keys[i]`` are case ``i``'s slice keys).

    Raises:
        ValueError: a metric of ``options.metrics`` that ``table`` lacks, ``by`` without
            ``keys``, bad options.
    """
    rows = case_rows(
        table, resamples=options.resamples, confidence=options.confidence, seed=options.seed
    )
    out: dict[str, Any] = {
        "by_case": {name: row.to_dict() for name, row in rows.items()},
        "interval": {
            "unit": "case",
            "method": "percentile bootstrap",
            "confidence": options.confidence,
            "resamples": options.resamples,
            "seed": options.seed,
        },
    }
    if options.by is None:
        return out
    if keys is None:
        raise ValueError(f"slicing by {options.by!r} needs each case's slice keys")
    absent = [m for m in options.metrics if m not in table.names]
    if absent:
        raise ValueError(f"metric {absent[0]!r} is not in the results")
    has_values = [m for m in SLICE_METRICS if m in table.names and table.column(m)[1].any()]
    wanted = has_values + list(options.metrics)
    out["slices"] = {
        "by": options.by,
        "min_n": options.min_n,
        "metrics": slice_rows(
            table,
            keys,
            list(dict.fromkeys(wanted)),
            min_n=options.min_n,
            resamples=options.resamples,
            confidence=options.confidence,
            seed=options.seed,
        ),
    }
    return out
