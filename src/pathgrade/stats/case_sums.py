"""Per-case sums of metric values, exact and mergeable: the case-level summary's input.

The summary's unit is the case: each case contributes the mean of its defined runs. A
partitioned run sums each case's runs partition by partition and adds the partitions' sums
on the coordinator. Plain floating-point sums would depend on where the partitions split a
case's runs (``(a + b) + c`` and ``a + (b + c)`` can differ in the last bit), and a last-bit
difference can change a bootstrap interval (it decides whether the few-distinct-values
shortcut of :func:`pathgrade.stats.bootstrap.resample_means` applies). So every sum is kept
as an unevaluated pair ``hi + lo`` built with error-free transformations (Knuth's TwoSum:
``s = a + b``, ``e = (a - (s - b')) + (b - b')`` with ``b' = s - a``, so ``s + e == a + b``
exactly). The pair is the exact sum whenever the sum's bits fit in two doubles: the bits from
the largest partial sum down to the smallest bit of any value span fewer than
``106 - log2(runs)``, which holds for any metric pathgrade emits (for instance values between
1e-6 and 1e3 in magnitude, or 0, and up to 1,000 runs per case). A case's sum is then
``fl(hi + lo)``, the exact sum rounded once: the same value in any run order and under any
partitioning, and therefore the same per-case means.

* :func:`case_sums`: the sums of one batch of runs (a partition, or all runs in memory);
  cases are identified by integer codes (a partition uses the case's position in the cases
  file; in memory, the order of first appearance).
* :class:`CaseTotals`: the sums of many batches, added in any order (dense by code).
* :meth:`CaseTotals.table`: the per-case means, in a given case order
  (:class:`CaseTable`), which :mod:`pathgrade.stats.case_summary` bootstraps.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["CaseSums", "CaseTable", "CaseTotals", "case_sums", "case_table", "first_seen"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
_T = TypeVar("_T", bound=np.generic)


def _grown(array: NDArray[_T], capacity: int) -> NDArray[_T]:
    out = np.zeros(capacity, dtype=array.dtype)
    out[: array.size] = array
    return out


def _two_sum(a: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(s, e)`` with ``s = fl(a + b)`` and ``s + e == a + b`` exactly (Knuth)."""
    s = a + b
    b_virtual = s - a
    e = s - b_virtual
    np.subtract(a, e, out=e)  # a - (s - b')
    np.subtract(b, b_virtual, out=b_virtual)  # b - b'
    e += b_virtual
    return s, e


@dataclass(frozen=True)
class CaseSums:
    """One batch's sums: per distinct case code (ascending), its runs and, per metric of
    ``names`` (columns), its defined runs and the exact sum ``hi + lo`` of their values
    (``lo`` is ``None`` when it is 0 everywhere, as it mostly is: less to send)."""

    names: tuple[str, ...]
    codes: IntArray
    runs: IntArray
    hi: FloatArray
    lo: FloatArray | None
    defined: NDArray[np.int32]


def case_sums(codes: Sequence[int] | IntArray, metrics: Mapping[str, FloatArray]) -> CaseSums:
    """The exact per-case sums of a batch of runs (module docstring).

    ``codes[r]`` is run ``r``'s case code (``>= 0``); ``metrics[name][r]`` its value, ``nan``
    when undefined (counted in ``runs``, not in ``defined``).

    Raises:
        ValueError: a column whose length is not the number of runs, or a negative code.
    """
    code_array = np.asarray(codes, dtype=np.int64)
    n = int(code_array.size)
    names = tuple(metrics)
    for name in names:
        if metrics[name].shape != (n,):
            raise ValueError(f"metric {name!r} has {metrics[name].size} values for {n} runs")
    if n and int(code_array.min()) < 0:
        raise ValueError("case codes must be >= 0")
    uniques, inverse = np.unique(code_array, return_inverse=True)
    k, m = int(uniques.size), len(names)
    runs = np.bincount(inverse, minlength=k).astype(np.int64)
    values = np.empty((n, m), dtype=np.float64)
    for column, name in enumerate(names):
        values[:, column] = metrics[name]
    ok = ~np.isnan(values)
    defined = np.zeros((k, m), dtype=np.int32)
    for column in range(m):
        defined[:, column] = np.bincount(inverse[ok[:, column]], minlength=k)
    values[~ok] = 0.0  # adds nothing, exactly
    # The j-th run of every case is added in step j: within a step each case appears once,
    # so the TwoSum updates are plain vector operations.
    by_case = np.argsort(inverse, kind="stable")
    starts = np.cumsum(runs) - runs
    rank = np.empty(n, dtype=np.int64)
    rank[by_case] = np.arange(n) - np.repeat(starts, runs)
    by_rank = np.argsort(rank, kind="stable")
    step_sizes = np.bincount(rank) if n else np.zeros(0, np.int64)
    hi = np.zeros((k, m), dtype=np.float64)
    lo = np.zeros((k, m), dtype=np.float64)
    at = 0
    for step, size in enumerate(step_sizes.tolist()):
        runs_here = by_rank[at : at + size]
        at += size
        rows = inverse[runs_here]
        if step == 0:  # every case's first run: 0 + x is exact
            hi[rows] = values[runs_here]
            continue
        s, e = _two_sum(hi[rows], values[runs_here])
        hi[rows] = s
        lo[rows] += e
    return CaseSums(names, uniques.astype(np.int64), runs, hi, lo if lo.any() else None, defined)


@dataclass(frozen=True)
class CaseTable:
    """Per-case means over defined runs, one row per case in ``codes`` order.

    ``means[i, j]`` is case ``codes[i]``'s mean of metric ``names[j]`` (``nan``: no defined
    run), ``defined[i, j]`` its defined runs and ``runs[i]`` all its runs.
    """

    names: tuple[str, ...]
    codes: IntArray
    means: FloatArray
    defined: IntArray
    runs: IntArray

    def column(self, name: str) -> tuple[FloatArray, IntArray]:
        """``(means, defined)`` of one metric."""
        j = self.names.index(name)
        return self.means[:, j], self.defined[:, j]


@dataclass
class CaseTotals:
    """Sums of any number of :class:`CaseSums` batches, dense by case code; adding is exact,
    so the order batches are added in does not change :meth:`table`."""

    runs: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    hi: dict[str, FloatArray] = field(default_factory=dict)
    lo: dict[str, FloatArray] = field(default_factory=dict)
    defined: dict[str, IntArray] = field(default_factory=dict)

    def _grow(self, size: int) -> None:
        if size <= self.runs.size:
            return
        capacity = max(size, 2 * self.runs.size)
        self.runs = _grown(self.runs, capacity)
        for name in self.hi:
            self.hi[name] = _grown(self.hi[name], capacity)
            self.lo[name] = _grown(self.lo[name], capacity)
            self.defined[name] = _grown(self.defined[name], capacity)

    def _column(self, name: str) -> None:
        if name not in self.hi:
            size = self.runs.size
            self.hi[name] = np.zeros(size, np.float64)
            self.lo[name] = np.zeros(size, np.float64)
            self.defined[name] = np.zeros(size, np.int64)

    def add(self, sums: CaseSums) -> None:
        """Add one batch's sums."""
        if sums.codes.size == 0:
            for name in sums.names:
                self._column(name)
            return
        self._grow(int(sums.codes[-1]) + 1)
        codes = sums.codes
        fresh = not self.runs[codes].any()  # no sums yet: adding to 0 is exact
        self.runs[codes] += sums.runs
        for column, name in enumerate(sums.names):
            self._column(name)
            hi, lo = self.hi[name], self.lo[name]
            if fresh:
                hi[codes] = sums.hi[:, column]
                if sums.lo is not None:
                    lo[codes] = sums.lo[:, column]
            else:
                s, e = _two_sum(hi[codes], sums.hi[:, column])
                hi[codes] = s
                lo[codes] += e if sums.lo is None else sums.lo[:, column] + e
            self.defined[name][codes] += sums.defined[:, column]

    def absorb(self, other: CaseTotals) -> None:
        """Add all of ``other``'s sums."""
        codes = np.flatnonzero(other.runs).astype(np.int64)
        names = tuple(other.hi)
        k, m = int(codes.size), len(names)
        hi, lo = np.zeros((k, m)), np.zeros((k, m))
        defined = np.zeros((k, m), dtype=np.int32)
        for column, name in enumerate(names):
            hi[:, column] = other.hi[name][codes]
            lo[:, column] = other.lo[name][codes]
            defined[:, column] = other.defined[name][codes]
        self.add(CaseSums(names, codes, other.runs[codes], hi, lo, defined))

    def table(self, order: Sequence[int] | IntArray) -> CaseTable:
        """The per-case means of the cases ``order`` (codes, each with runs), in that order."""
        codes = np.asarray(order, dtype=np.int64)
        names = tuple(self.hi)
        k, m = int(codes.size), len(names)
        means = np.full((k, m), np.nan)
        defined = np.zeros((k, m), dtype=np.int64)
        for column, name in enumerate(names):
            count = self.defined[name][codes]
            total = self.hi[name][codes] + self.lo[name][codes]  # the exact sum, rounded once
            with np.errstate(invalid="ignore", divide="ignore"):
                means[:, column] = np.where(count > 0, total / np.maximum(count, 1), np.nan)
            defined[:, column] = count
        return CaseTable(names, codes, means, defined, self.runs[codes].copy())


def first_seen(case_ids: Sequence[Hashable]) -> tuple[IntArray, list[Hashable]]:
    """Integer codes of ``case_ids`` in order of first appearance, and the distinct ids."""
    order: dict[Hashable, int] = {}
    codes = np.fromiter(
        (order.setdefault(c, len(order)) for c in case_ids), dtype=np.int64, count=len(case_ids)
    )
    return codes, list(order)


def case_table(case_ids: Sequence[Hashable], metrics: Mapping[str, FloatArray]) -> CaseTable:
    """Per-case means of runs held in memory, cases in order of first appearance."""
    codes, distinct = first_seen(case_ids)
    totals = CaseTotals()
    totals.add(case_sums(codes, metrics))
    return totals.table(np.arange(len(distinct), dtype=np.int64))
