"""``compare --by FIELD``: the paired difference of each primary metric, slice by slice.

For each metric, :func:`pathgrade.stats.slices.paired_slices` gives, per slice of the paired
cases (:mod:`pathgrade.stats.slice_keys`: a case with several keys, such as tags, is in each of
those slices), ``n``, the means, ``diff``, its paired bootstrap interval, the exact Wilcoxon
p-value and Holm's adjustment across the metric's tested slices. Slices with fewer than
``min_n`` cases are shown but neither given an interval nor tested.

Each slice's verdict reads its numbers by the table of :mod:`pathgrade.stats.family`, the
family being the metric's tested slices (``N`` = their number): ``improved`` / ``regressed``
/ ``changed`` need an interval that excludes 0 and ``p_holm < 1 - confidence``; ``not
significant after correcting for N comparisons`` when only the correction removes it;
``not tested (n < min_n)`` for a small slice; ``no paired data`` for a slice with no pair
defined.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pathgrade.metrics.spec import Direction
from pathgrade.stats.family import NO_DATA, significance_level, verdict
from pathgrade.stats.records import run_values
from pathgrade.stats.slices import MIN_SLICE_CASES, SliceDiff, paired_slices

__all__ = ["SliceComparison", "SliceRow", "compare_slices", "not_tested"]

Records = Sequence[Mapping[str, Any]]


def not_tested(min_n: int) -> str:
    """The verdict of a slice too small to test."""
    return f"not tested (n < {min_n})"


@dataclass(frozen=True)
class SliceRow:
    """One slice of one metric: its statistics and its verdict."""

    stats: SliceDiff
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        """:meth:`SliceDiff.to_dict` plus ``verdict``."""
        return {**self.stats.to_dict(), "verdict": self.verdict}


@dataclass(frozen=True)
class SliceComparison:
    """Per metric, its slices in order of first appearance (``by`` is the field)."""

    by: str
    min_n: int
    metrics: dict[str, list[SliceRow]]

    def to_dict(self) -> dict[str, Any]:
        """The ``slices`` entry of ``pathgrade compare --json``."""
        return {
            "by": self.by,
            "min_n": self.min_n,
            "metrics": {name: [r.to_dict() for r in rows] for name, rows in self.metrics.items()},
        }


def _expanded(
    records: Records, name: str, side: str, keys: Mapping[str, Sequence[Hashable]]
) -> tuple[list[float], list[Hashable]]:
    """Per-run values and ``(key, case_id)`` ids, one entry per run and slice of its case."""
    runs = run_values(records, name, side)
    values: list[float] = []
    ids: list[Hashable] = []
    for case_id, value in zip(runs.case_ids, runs.values.tolist(), strict=True):
        for key in keys.get(case_id, ()):
            values.append(value)
            ids.append((key, case_id))
    return values, ids


def _verdict(row: SliceDiff, direction: Direction, tested: int, alpha: float, min_n: int) -> str:
    if row.n == 0:
        return NO_DATA
    if not row.tested or row.p_value is None:
        return not_tested(min_n)
    return verdict(
        n=row.n,
        ci=(row.low, row.high),
        diff=row.diff,
        direction=direction,
        p_value=row.p_value,
        p_holm=row.p_holm,
        family_size=tested,
        alpha=alpha,
    )


def compare_slices(
    baseline: Records,
    variant: Records,
    names: Sequence[str],
    keys: Mapping[str, Sequence[Hashable]],
    *,
    by: str,
    direction: Callable[[str], Direction],
    min_n: int = MIN_SLICE_CASES,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> SliceComparison:
    """The per-slice comparison of each metric of ``names`` (module docstring).

    Args:
        baseline, variant: result records; cases are paired by ``case_id``.
        names: the metrics to slice (``compare`` passes its primary family).
        keys: each case's slice keys (:func:`pathgrade.stats.slice_keys.slice_keys`); a
            case it lacks is in no slice.
        by: the field's name, for the output.
        direction: a metric's better direction by name.
        min_n: the smallest slice that is tested.
        resamples, confidence, seed: as for :func:`pathgrade.stats.compare.compare_records`.

    Raises:
        MissingMetricError: a metric that one side does not carry.
        ValueError: bad ``min_n``.
    """
    slice_of: dict[Hashable, Hashable] = {
        (key, case_id): key for case_id, ks in keys.items() for key in ks
    }
    alpha = significance_level(confidence)
    out: dict[str, list[SliceRow]] = {}
    for name in names:
        b_values, b_ids = _expanded(baseline, name, "baseline", keys)
        v_values, v_ids = _expanded(variant, name, "variant", keys)
        rows = paired_slices(
            b_values,
            b_ids,
            v_values,
            v_ids,
            slice_of,
            min_n=min_n,
            resamples=resamples,
            confidence=confidence,
            seed=seed,
        )
        tested = sum(1 for r in rows if r.tested)
        out[name] = [SliceRow(r, _verdict(r, direction(name), tested, alpha, min_n)) for r in rows]
    return SliceComparison(by, min_n, out)
