"""Per-slice statistics: a summary per slice, and a paired difference per slice with Holm.

A *slice* is the set of cases sharing one value of a case field (difficulty, service, a tag,
``metadata.KEY``): ``slice_of[case_id]`` gives each case's key (any hashable, ``None``
included). Values are per run; each case contributes its mean over defined trials (the case is
the unit), and cases with no defined trial are counted as ``undefined``, not used. Slices are
listed in order of first appearance of their cases.

* :func:`slice_summaries`: per slice, ``n_cases``, the mean of per-case means and its cluster
  bootstrap interval (:func:`pathgrade.stats.bootstrap.bootstrap_mean_ci` over the slice's
  per-case means).
* :func:`paired_slices`: cases paired by ``case_id`` (baseline order; the slice is the
  baseline-side key); per slice ``n`` pairs defined on both sides, the means,
  ``diff = mean(variant - baseline)``, its paired bootstrap interval, the exact Wilcoxon
  signed-rank p-value (:func:`pathgrade.stats.paired.wilcoxon_signed_rank`; with one trial of
  a boolean metric the differences are -1/0/1 and this is McNemar's exact test), and Holm's
  adjustment across the tested slices.

A slice with fewer than ``min_n`` cases (default 5) is shown (``n``, means) but neither given
an interval nor tested: ``low``/``high`` are ``nan``, ``p_value``/``p_holm`` ``None``,
``tested`` false. Each slice draws from its own random stream (from ``seed`` and the slice key),
so a slice's interval does not depend on the other slices.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pathgrade.stats.bootstrap import bootstrap_mean_ci
from pathgrade.stats.holm import holm
from pathgrade.stats.paired import wilcoxon_signed_rank
from pathgrade.stats.trials import case_means

__all__ = ["MIN_SLICE_CASES", "SliceDiff", "SliceSummary", "paired_slices", "slice_summaries"]

Values = Sequence[float | bool | None] | NDArray[np.generic]
#: Default smallest slice that gets an interval and a test.
MIN_SLICE_CASES = 5


def _num(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


@dataclass(frozen=True)
class SliceSummary:
    """One slice of a summary: cases used, their mean and its interval (``nan`` untested)."""

    key: Hashable
    n_cases: int
    undefined: int
    mean: float
    low: float
    high: float
    tested: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``nan`` becomes ``None``)."""
        return {
            "slice": self.key,
            "n_cases": self.n_cases,
            "undefined": self.undefined,
            "mean": _num(self.mean),
            "ci": [_num(self.low), _num(self.high)],
            "tested": self.tested,
        }


@dataclass(frozen=True)
class SliceDiff:
    """One slice of a paired comparison (``p_value``/``p_holm`` are ``None`` when untested)."""

    key: Hashable
    n: int
    undefined: int
    baseline: float
    variant: float
    diff: float
    low: float
    high: float
    p_value: float | None
    p_holm: float | None
    tested: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``nan`` becomes ``None``)."""
        return {
            "slice": self.key,
            "n": self.n,
            "undefined": self.undefined,
            "baseline": _num(self.baseline),
            "variant": _num(self.variant),
            "diff": _num(self.diff),
            "ci": [_num(self.low), _num(self.high)],
            "p_value": _num(self.p_value),
            "p_holm": _num(self.p_holm),
            "tested": self.tested,
        }


def _check(min_n: int) -> None:
    if isinstance(min_n, bool) or not isinstance(min_n, int) or min_n < 1:
        raise ValueError(f"min_n must be an integer >= 1, got {min_n!r}")


def _key(slice_of: Mapping[Hashable, Hashable], case_id: Hashable) -> Hashable:
    try:
        return slice_of[case_id]
    except KeyError:
        raise ValueError(f"case {case_id!r} has no slice key") from None


def _stream(seed: int, key: Hashable) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(repr(key).encode("utf-8"))])


def slice_summaries(
    values: Values,
    case_ids: Sequence[Hashable],
    slice_of: Mapping[Hashable, Hashable],
    *,
    min_n: int = MIN_SLICE_CASES,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[SliceSummary]:
    """Per-slice mean of per-case means with a cluster bootstrap interval (module docstring).

    Raises:
        ValueError: a case without a slice key, mismatched lengths, bad ``min_n``.
    """
    _check(min_n)
    per_case = case_means(case_ids, values)
    groups: dict[Hashable, list[float]] = {}
    for case_id, mean in zip(per_case.case_ids, per_case.means.tolist(), strict=True):
        groups.setdefault(_key(slice_of, case_id), []).append(mean)
    out = []
    nan = float("nan")
    for key, means in groups.items():
        array = np.array(means, dtype=np.float64)
        defined = array[~np.isnan(array)]
        n = int(defined.size)
        undefined = int(array.size) - n
        mean = float(defined.mean()) if n else nan
        if n < min_n:
            out.append(SliceSummary(key, n, undefined, mean, nan, nan, False))
            continue
        ci = bootstrap_mean_ci(
            defined, resamples=resamples, confidence=confidence, rng=_stream(seed, key)
        )
        out.append(SliceSummary(key, n, undefined, mean, ci.low, ci.high, True))
    return out


def paired_slices(
    baseline_values: Values,
    baseline_case_ids: Sequence[Hashable],
    variant_values: Values,
    variant_case_ids: Sequence[Hashable],
    slice_of: Mapping[Hashable, Hashable],
    *,
    min_n: int = MIN_SLICE_CASES,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[SliceDiff]:
    """Per-slice paired difference, interval, exact p-value and Holm (module docstring).

    Raises:
        ValueError: a paired case without a slice key, mismatched lengths, bad ``min_n``.
    """
    _check(min_n)
    base = case_means(baseline_case_ids, baseline_values)
    var = case_means(variant_case_ids, variant_values)
    var_mean = dict(zip(var.case_ids, var.means.tolist(), strict=True))
    groups: dict[Hashable, list[tuple[float, float]]] = {}
    for case_id, b in zip(base.case_ids, base.means.tolist(), strict=True):
        if case_id in var_mean:
            groups.setdefault(_key(slice_of, case_id), []).append((b, var_mean[case_id]))
    rows = []
    nan = float("nan")
    for key, pairs in groups.items():
        array = np.array(pairs, dtype=np.float64).reshape(-1, 2)
        ok = ~np.isnan(array).any(axis=1)
        b, v = array[ok, 0], array[ok, 1]
        n = int(b.size)
        undefined = len(pairs) - n
        means = (float(b.mean()), float(v.mean()), float((v - b).mean())) if n else (nan,) * 3
        if n < min_n:
            rows.append(SliceDiff(key, n, undefined, *means, nan, nan, None, None, False))
            continue
        d = v - b
        ci = bootstrap_mean_ci(
            d, resamples=resamples, confidence=confidence, rng=_stream(seed, key)
        )
        p = wilcoxon_signed_rank(d)
        rows.append(SliceDiff(key, n, undefined, *means, ci.low, ci.high, p, None, True))
    tested = [(i, r.p_value) for i, r in enumerate(rows) if r.p_value is not None]
    adjusted = holm([p for _, p in tested])
    for (i, _), p_holm in zip(tested, adjusted, strict=True):
        rows[i] = replace(rows[i], p_holm=p_holm)
    return rows
