"""A 2x2 ablation: baseline R0, change A alone (RA), change B alone (RB), both (RAB).

The four runs must cover the same cases; each arm contributes its per-case mean over defined
trials (the case is the unit). Per metric, over the cases where all four arms are defined, with
per-case values ``r0, ra, rb, rab``:

* main effect of A: ``mean(((ra - r0) + (rab - rb)) / 2)`` (A's effect averaged over B off/on);
* main effect of B: ``mean(((rb - r0) + (rab - ra)) / 2)``;
* interaction: ``mean(rab - ra - rb + r0)`` (0 when the effects add up);
* simple effects: ``mean(ra - r0)``, ``mean(rb - r0)``, ``mean(rab - r0)``;
* conditional effects: A with B present ``mean(rab - rb)``, B with A present ``mean(rab - ra)``.

Intervals: paired percentile bootstrap over cases, the four arms of a case resampled together
(one set of drawn cases per resample serves all eight effects). p-values: the paired sign-flip
permutation test of each per-case contrast (:func:`pathgrade.stats.paired.sign_flip_permutation`:
exact up to 32 non-zero values, Monte Carlo with ``resamples`` draws above). Holm's correction
runs over the family: the two main effects and the interaction of every *primary* metric; the
simple and conditional effects, and every effect of a secondary metric, keep raw p-values only
(``p_holm`` is ``None``). An effect is *detected* when its interval excludes 0 and its p-value
(Holm-adjusted in the family, raw otherwise) is below ``1 - confidence``.

The plain-words reading of each metric is :func:`pathgrade.stats.ablation_reading.reading`.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pathgrade.metrics import catalogue
from pathgrade.metrics.spec import Direction
from pathgrade.stats.ablation_reading import reading
from pathgrade.stats.compare import metric_direction
from pathgrade.stats.family import ALWAYS_PRIMARY, default_primary
from pathgrade.stats.holm import holm
from pathgrade.stats.paired import sign_flip_permutation
from pathgrade.stats.records import case_values, metric_names

__all__ = [
    "ARMS",
    "EFFECTS",
    "EFFECT_LABELS",
    "FAMILY",
    "Ablation",
    "CaseSetMismatchError",
    "Effect",
    "MetricAblation",
    "ablation_effects",
    "ablation_records",
]

FloatArray = NDArray[np.float64]
Records = Sequence[Mapping[str, Any]]

#: Arm names, in the order of :func:`ablation_records`'s arguments.
ARMS = ("baseline", "a", "b", "ab")
#: Effects reported per metric; the first three form the Holm family.
EFFECTS = (
    "main_a",
    "main_b",
    "interaction",
    "simple_a",
    "simple_b",
    "simple_ab",
    "a_with_b",
    "b_with_a",
)

#: How tables and reports name each effect of :data:`EFFECTS`.
EFFECT_LABELS = {
    "main_a": "main effect of A",
    "main_b": "main effect of B",
    "interaction": "interaction",
    "simple_a": "A alone (RA - R0)",
    "simple_b": "B alone (RB - R0)",
    "simple_ab": "A+B (RAB - R0)",
    "a_with_b": "A with B present (RAB - RB)",
    "b_with_a": "B with A present (RAB - RA)",
}
FAMILY = EFFECTS[:3]
#: Always primary when none are named (those present); with them, each layer's headline
#: (:func:`pathgrade.stats.family.default_primary`, as ``compare``); all metrics when none is.
DEFAULT_PRIMARY = ALWAYS_PRIMARY
_CHUNK_ELEMENTS = 1 << 18


class CaseSetMismatchError(ValueError):
    """The four runs do not cover the same cases; ``missing[arm]`` lists the absent ones."""

    def __init__(self, missing: Mapping[str, Sequence[str]]) -> None:
        self.missing = {arm: list(ids) for arm, ids in missing.items() if ids}
        parts = []
        for arm, ids in self.missing.items():
            shown = ", ".join(ids[:10]) + (f" ... ({len(ids) - 10} more)" if len(ids) > 10 else "")
            parts.append(f"{arm} lacks {shown}")
        super().__init__("the four runs must cover the same cases: " + "; ".join(parts))


@dataclass(frozen=True)
class Effect:
    """One effect: the mean per-case contrast, its interval and p-values."""

    estimate: float
    ci: tuple[float, float]
    p_value: float
    p_holm: float | None = None
    detected: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``nan`` becomes ``None``."""
        return {
            "estimate": _num(self.estimate),
            "ci": [_num(self.ci[0]), _num(self.ci[1])],
            "p_value": _num(self.p_value),
            "p_holm": None if self.p_holm is None else _num(self.p_holm),
            "detected": self.detected,
        }


def _num(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


@dataclass(frozen=True)
class MetricAblation:
    """The effects of one metric; ``means`` are the arms' means over the cases used."""

    name: str
    direction: Direction
    primary: bool
    n: int
    undefined: int
    means: dict[str, float]
    effects: dict[str, Effect]
    reading: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``nan`` becomes ``None``."""
        return {
            "direction": self.direction,
            "primary": self.primary,
            "n": self.n,
            "undefined": self.undefined,
            "means": {arm: _num(v) for arm, v in self.means.items()},
            "effects": {name: e.to_dict() for name, e in self.effects.items()},
            "reading": self.reading,
        }


@dataclass(frozen=True)
class Ablation:
    """Every metric's effects; ``family_size`` is the number of tests Holm corrected for."""

    cases: int
    metrics: dict[str, MetricAblation]
    family_size: int
    confidence: float
    resamples: int
    seed: int

    def to_dict(self) -> dict[str, Any]:
        """The ``pathgrade ablation --json`` document."""
        return {
            "cases": self.cases,
            "family_size": self.family_size,
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
            "settings": {
                "confidence": self.confidence,
                "resamples": self.resamples,
                "seed": self.seed,
                "ci_method": "percentile",
                "test": "sign_flip",
            },
        }


def _contrasts(r0: FloatArray, ra: FloatArray, rb: FloatArray, rab: FloatArray) -> FloatArray:
    """Per-case contrasts, one column per entry of :data:`EFFECTS`."""
    return np.column_stack(
        (
            ((ra - r0) + (rab - rb)) / 2.0,
            ((rb - r0) + (rab - ra)) / 2.0,
            rab - ra - rb + r0,
            ra - r0,
            rb - r0,
            rab - r0,
            rab - rb,
            rab - ra,
        )
    )


def _joint_resample_means(
    columns: FloatArray, resamples: int, gen: np.random.Generator
) -> FloatArray:
    """``resamples`` x ``k`` means of the columns over cases drawn with replacement, the same
    drawn cases for every column."""
    n, k = columns.shape
    out = np.empty((resamples, k), dtype=np.float64)
    rows = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, resamples, rows):
        size = min(rows, resamples - start)
        index = gen.integers(0, n, size=(size, n))
        counts = np.bincount((index + n * np.arange(size)[:, None]).ravel(), minlength=size * n)
        out[start : start + size] = (counts.reshape(size, n) @ columns) / n
    return out


def ablation_effects(
    r0: Sequence[float] | FloatArray,
    ra: Sequence[float] | FloatArray,
    rb: Sequence[float] | FloatArray,
    rab: Sequence[float] | FloatArray,
    *,
    resamples: int = 10_000,
    confidence: float = 0.95,
    rng: np.random.Generator | int = 0,
) -> dict[str, Effect]:
    """The effects of :data:`EFFECTS` from per-case values of the four arms (finite,
    paired by position), with bootstrap intervals and raw sign-flip p-values (no Holm)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an integer >= 1, got {resamples!r}")
    arms = [np.asarray(x, dtype=np.float64) for x in (r0, ra, rb, rab)]
    if any(a.ndim != 1 or a.shape != arms[0].shape for a in arms):
        raise ValueError("the four arms must be one-dimensional and of the same length")
    if arms[0].size == 0:
        raise ValueError("no case: an ablation needs at least one case")
    if not all(np.all(np.isfinite(a)) for a in arms):
        raise ValueError("arm values contain nan or inf: drop undefined cases first")
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    columns = _contrasts(*arms)
    means = _joint_resample_means(columns, resamples, gen)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=0)
    effects = {}
    for j, name in enumerate(EFFECTS):
        column = columns[:, j]
        effects[name] = Effect(
            estimate=float(column.mean()),
            ci=(float(low[j]), float(high[j])),
            p_value=sign_flip_permutation(column, resamples, gen),
        )
    return effects


def _metric_seed(seed: int, name: str) -> np.random.Generator:
    # One stream per metric, so a metric's numbers do not depend on which others are analysed.
    return np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])


def _case_ids(records: Records) -> list[str]:
    return list(dict.fromkeys(str(r.get("case_id")) for r in records))


def _check_case_sets(arms: Sequence[Records]) -> list[str]:
    ids = [_case_ids(records) for records in arms]
    union = list(dict.fromkeys(c for arm_ids in ids for c in arm_ids))
    missing = {
        arm: [c for c in union if c not in set(arm_ids)]
        for arm, arm_ids in zip(ARMS, ids, strict=True)
    }
    if any(missing.values()):
        raise CaseSetMismatchError(missing)
    if not union:
        raise ValueError("the runs contain no case")
    return union


def _analyse(
    name: str,
    arms: Sequence[Records],
    cases: list[str],
    *,
    primary: bool,
    resamples: int,
    confidence: float,
    seed: int,
    direction: Direction,
) -> MetricAblation:
    per_arm = [case_values(records, name, arm) for records, arm in zip(arms, ARMS, strict=True)]
    values = np.array([[v.means[c] for c in cases] for v in per_arm], dtype=np.float64)
    ok = ~np.any(np.isnan(values), axis=0)
    n = int(np.count_nonzero(ok))
    nan = float("nan")
    if n == 0:
        empty = Effect(nan, (nan, nan), nan)
        return MetricAblation(
            name,
            direction,
            primary,
            0,
            len(cases),
            dict.fromkeys(ARMS, nan),
            dict.fromkeys(EFFECTS, empty),
        )
    used = values[:, ok]
    effects = ablation_effects(
        used[0],
        used[1],
        used[2],
        used[3],
        resamples=resamples,
        confidence=confidence,
        rng=_metric_seed(seed, name),
    )
    means = {arm: float(row.mean()) for arm, row in zip(ARMS, used, strict=True)}
    return MetricAblation(name, direction, primary, n, len(cases) - n, means, effects)


def _detected(effect: Effect, p: float, alpha: float) -> bool:
    low, high = effect.ci
    return not math.isnan(p) and p < alpha and not (low <= 0.0 <= high)


def ablation_records(
    baseline: Records,
    a: Records,
    b: Records,
    ab: Records,
    *,
    metrics: Sequence[str] | None = None,
    primary: Sequence[str] | None = None,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    direction: Callable[[str], Direction] = metric_direction,
) -> Ablation:
    """The 2x2 ablation of four sets of result records (module docstring).

    Args:
        baseline, a, b, ab: records of R0, RA, RB and RAB.
        metrics: names to analyse (:mod:`pathgrade.stats.records`; a deprecated spelling,
            ``usage.latency_ms``, is read as its one name with a note); default every metric
            on all four.
        primary: the Holm family's metrics; default: ``metrics`` when given, else those of
            :func:`pathgrade.stats.family.default_primary` (``path_score``, ``goal_success``
            and each layer's headline) that are analysed, else every analysed metric.
        resamples: bootstrap (and Monte Carlo permutation) resamples.
        confidence: interval level; ``1 - confidence`` is the significance level.
        seed: the seed every random stream is derived from (one stream per metric).
        direction: a metric's better direction by name (default: its catalogue row's;
            ``neither`` for a name the catalogue does not know).

    Raises:
        CaseSetMismatchError: the four runs do not cover the same cases.
        MissingMetricError: a requested metric that an arm does not carry.
    """
    arms = (baseline, a, b, ab)
    cases = _check_case_sets(arms)
    if metrics is None:
        common = [set(metric_names(records)) for records in arms[1:]]
        names = [m for m in metric_names(baseline) if all(m in s for s in common)]
    else:
        names = list(dict.fromkeys(map(catalogue.canonical, metrics)))
    if primary is None:
        chosen = names if metrics is not None else default_primary(names)
        primary_set = set(chosen or names)
    else:
        primary_set = set(map(catalogue.canonical, primary))
    results = [
        _analyse(
            name,
            arms,
            cases,
            primary=name in primary_set,
            resamples=resamples,
            confidence=confidence,
            seed=seed,
            direction=direction(name),
        )
        for name in names
    ]
    alpha = 1.0 - confidence
    family = [(i, e) for i, m in enumerate(results) if m.primary for e in FAMILY]
    adjusted = holm([results[i].effects[e].p_value for i, e in family])
    family_size = sum(1 for p in adjusted if not math.isnan(p))
    holm_of = dict(zip(family, adjusted, strict=True))
    final: dict[str, MetricAblation] = {}
    for i, m in enumerate(results):
        effects = {}
        for e, effect in m.effects.items():
            p_holm = holm_of.get((i, e))
            p = effect.p_value if p_holm is None else p_holm
            effects[e] = replace(effect, p_holm=p_holm, detected=_detected(effect, p, alpha))
        done = replace(m, effects=effects)
        final[m.name] = replace(done, reading=reading(done, family_size))
    return Ablation(len(cases), final, family_size, confidence, resamples, seed)
