"""CPU time of comparing 12 cases: SciPy's Wilcoxon (the old path) against the exact DP.

Run: ``python benchmarks/bench_compare_small.py`` (a benchmark, not a test).

The records: 12 cases, one trial each, 21 metrics like those ``pathgrade score`` writes: scores
on a coarse grid (ties, zero differences), continuous scores, counts and ``usage.*`` fields.
With ties or zeros and ``n <= 13``, ``scipy.stats.wilcoxon`` (``method="auto"``) runs
``permutation_test`` over all ``2^n`` sign patterns, which is what made ``pathgrade compare``
take seconds. The old path is timed by swapping the old function into
:mod:`pathgrade.stats.compare`; SciPy is imported (and each path run once) before timing, so
the numbers are computation only. Both paths are checked to give the same p-values.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from unittest import mock

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as sps

import pathgrade.stats.compare as compare_module
from pathgrade.stats.compare import Comparison, compare_records

CASES = 12
REPEAT = 3


def old_wilcoxon(differences: ArrayLike) -> float:
    """The former ``pathgrade.stats.paired.wilcoxon_signed_rank`` (SciPy, ``method="auto"``)."""
    data = np.asarray(differences, dtype=np.float64)
    if np.count_nonzero(data) == 0:
        return 1.0
    return float(sps.wilcoxon(data, zero_method="wilcox", alternative="two-sided").pvalue)


def _records(rng: np.random.Generator, shift: float) -> list[dict[str, Any]]:
    out = []
    for i in range(CASES):
        grid = {f"grid_{k}": float(rng.choice([0.0, 0.25, 0.5, 0.75, 1.0])) for k in range(8)}
        smooth = {f"score_{k}": float(rng.uniform(0, 1) + shift) for k in range(6)}
        counts = {f"count_{k}": int(rng.integers(0, 4)) for k in range(3)}
        usage = {
            "steps": int(rng.integers(3, 9)),
            "tokens": int(rng.integers(500, 2000)),
            "cost": round(float(rng.uniform(0.01, 0.05)), 3),
            "latency_ms": float(rng.integers(200, 900)),
        }
        out.append(
            {
                "case_id": f"c{i}",
                "trial": 0,
                "metrics": {**grid, **smooth, **counts},
                "usage": usage,
            }
        )
    return out


def _cpu(fn: Callable[[], Comparison]) -> tuple[float, Comparison]:
    result = fn()  # warm-up (first calls, caches)
    best = float("inf")
    for _ in range(REPEAT):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def main() -> None:
    rng = np.random.default_rng(7)
    base, var = _records(rng, 0.0), _records(rng, 0.05)

    def run() -> Comparison:
        return compare_records(base, var, seed=0)

    new_s, new = _cpu(run)
    with mock.patch.object(compare_module, "wilcoxon_signed_rank", old_wilcoxon):
        old_s, old = _cpu(run)
    worst = max(
        abs(new.metrics[n].p_value - old.metrics[n].p_value)
        for n in new.metrics
        if new.metrics[n].test == "wilcoxon"
    )
    tests = sum(1 for m in new.metrics.values() if m.test == "wilcoxon")
    print(f"compare, {CASES} cases, {len(new.metrics)} metrics ({tests} Wilcoxon tests), CPU s:")
    print(f"  old (scipy.stats.wilcoxon)  {old_s:8.3f}")
    print(f"  new (exact DP)              {new_s:8.3f}")
    print(f"  ratio old/new               {old_s / new_s:8.1f}x")
    print(f"  largest |p_new - p_old|     {worst:.2e}")


if __name__ == "__main__":
    main()
