"""Baseline vs variant on the same cases: paired differences, intervals, tests, verdicts.

Cases are paired by ``case_id``; with repeated trials each side contributes its per-case mean
(the case is the unit). Cases present on one side only are listed in ``unpaired``, never
dropped silently. For each metric, pairs where either side is undefined are excluded and
counted (``undefined``). Per metric:

* ``baseline``/``variant``: means over the paired, defined cases; ``diff = variant - baseline``
  (the mean paired difference);
* ``ci``: paired bootstrap interval of ``diff`` (:mod:`pathgrade.stats.bootstrap`);
* ``effect_size``: Cohen's ``d_z`` of the paired differences;
* ``test``: ``mcnemar_exact`` for binary metrics with one trial per case on both sides, else
  ``wilcoxon`` (signed-rank, exact for small samples: :mod:`pathgrade.stats.exact`), with the
  sign-flip permutation p-value alongside (``p_permutation``);
* ``family``: ``primary`` or ``secondary`` (:func:`pathgrade.stats.family.primary_family`:
  ``primary`` names, else the ``metrics`` asked for, else ``path_score``, ``goal_success`` and
  each layer's headline metric);
* ``p_holm``: Holm-adjusted over the primary family only (``N`` = its metrics with a test);
  ``nan`` (``null`` in JSON) for a secondary metric, which keeps its raw ``p_value``;
* ``verdict``: the table of :mod:`pathgrade.stats.family`, in the metric's better direction
  (its row of :mod:`pathgrade.metrics.catalogue`: a rise in a lower-is-better count such as
  ``missing_steps`` is ``regressed``; ``changed`` for a metric with no better direction):
  ``improved`` / ``regressed`` / ``changed`` need an interval that excludes 0 *and*
  ``p_holm < 1 - confidence``; a secondary metric says ``improved (secondary,
  uncorrected)`` on its raw p; ``not significant after correcting for N comparisons`` when
  only the correction removes it; ``not significant`` when the interval excludes 0 but the
  raw p does not pass; ``no detectable difference`` when the interval spans 0;
* ``power`` (primary metrics): :func:`pathgrade.stats.power.paired_power` of the per-case
  differences at ``alpha = 1 - confidence`` and 80% power: the minimum detectable effect for
  the observed sd and ``n``, and the cases needed to detect the observed ``diff`` (the paired
  t-test's formula: a guide to the sample size, not the test the p-value comes from).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from pathgrade.metrics import catalogue
from pathgrade.metrics.spec import Direction
from pathgrade.stats.bootstrap import CIMethod, bootstrap_mean_ci
from pathgrade.stats.family import NO_DATA, primary_family, significance_level, verdict
from pathgrade.stats.holm import holm
from pathgrade.stats.paired import (
    cohens_dz,
    mcnemar_exact,
    sign_flip_permutation,
    wilcoxon_signed_rank,
)
from pathgrade.stats.power import PowerResult, paired_power
from pathgrade.stats.records import case_values, metric_names

__all__ = [
    "POWER",
    "Comparison",
    "Family",
    "MetricComparison",
    "compare_records",
    "metric_direction",
    "power_dict",
]

Family = Literal["primary", "secondary"]
#: The power at which the minimum detectable effect and the cases needed are computed.
POWER = 0.8


def metric_direction(name: str) -> Direction:
    """The catalogue's direction of ``name``; ``neither`` for a name it does not know (a
    plug-in or a custom key): pathgrade never guesses which way such a metric is better."""
    found = catalogue.find(name)
    return found.direction if found is not None else "neither"


def _json_float(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def power_dict(power: PowerResult) -> dict[str, Any]:
    """``{"mde", "cases_needed", "reason", "n", "sd", "alpha", "target_power"}``: ``reason``
    says why ``mde`` (or, when only it is undefined, ``cases_needed``) is ``None``."""
    return {
        "mde": power.mde,
        "cases_needed": power.n_needed,
        "reason": power.mde_reason or power.n_needed_reason,
        "n": power.n,
        "sd": _json_float(power.sd),
        "alpha": power.alpha,
        "target_power": power.power,
    }


@dataclass(frozen=True)
class MetricComparison:
    """The comparison of one metric over the paired cases (``direction`` from the catalogue;
    ``p_holm`` is ``nan`` and ``power`` ``None`` for a secondary metric)."""

    name: str
    direction: Direction
    n: int
    undefined: int
    baseline: float
    variant: float
    diff: float
    ci: tuple[float, float]
    effect_size: float
    test: str | None
    p_value: float
    p_permutation: float | None = None
    discordant: tuple[int, int] | None = None
    p_holm: float = float("nan")
    verdict: str = NO_DATA
    family: Family = "primary"
    power: PowerResult | None = None

    @property
    def higher_is_better(self) -> bool | None:
        """True / False for a higher- / lower-is-better metric, None without a direction."""
        return None if self.direction == "neither" else self.direction == "higher"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``nan`` becomes ``null``."""
        doc: dict[str, Any] = {
            "family": self.family,
            "baseline": _json_float(self.baseline),
            "variant": _json_float(self.variant),
            "diff": _json_float(self.diff),
            "ci": [_json_float(self.ci[0]), _json_float(self.ci[1])],
            "test": self.test,
            "p_value": _json_float(self.p_value),
            "p_holm": _json_float(self.p_holm),
            "verdict": self.verdict,
            "effect_size": _json_float(self.effect_size),
            "n": self.n,
            "undefined": self.undefined,
            "direction": self.direction,
            "higher_is_better": self.higher_is_better,
            "power": power_dict(self.power) if self.power is not None else None,
        }
        if self.p_permutation is not None:
            doc["p_permutation"] = _json_float(self.p_permutation)
        if self.discordant is not None:
            doc["discordant"] = {"b": self.discordant[0], "c": self.discordant[1]}
        return doc


@dataclass(frozen=True)
class Comparison:
    """All metrics compared, primary family first; ``unpaired`` lists ``{"case_id",
    "only_in"}`` entries; ``family_size`` is the ``N`` Holm corrected for."""

    paired_cases: int
    unpaired: list[dict[str, str]]
    metrics: dict[str, MetricComparison]
    confidence: float
    resamples: int
    ci_method: CIMethod
    seed: int
    settings: dict[str, Any] = field(default_factory=dict)
    primary: tuple[str, ...] = ()
    family_source: str = "all"
    family_size: int = 0

    @property
    def alpha(self) -> float:
        """The significance level of every verdict, ``1 - confidence`` (rounded)."""
        return significance_level(self.confidence)

    def to_dict(self) -> dict[str, Any]:
        """The ``pathgrade compare --json`` document."""
        return {
            "paired_cases": self.paired_cases,
            "unpaired": self.unpaired,
            "family": {
                "primary": list(self.primary),
                "size": self.family_size,
                "source": self.family_source,
            },
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
            "settings": {
                "confidence": self.confidence,
                "alpha": self.alpha,
                "power": POWER,
                "resamples": self.resamples,
                "ci_method": self.ci_method,
                "seed": self.seed,
            },
        }


FloatArray = NDArray[np.float64]


def _metric_seed(seed: int, name: str) -> np.random.Generator:
    # One stream per metric, so a metric's interval does not depend on which others are compared.
    return np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])


def _compare_metric(
    name: str,
    baseline: Sequence[Mapping[str, Any]],
    variant: Sequence[Mapping[str, Any]],
    paired: list[str],
    *,
    direction: Direction,
    resamples: int,
    confidence: float,
    ci_method: CIMethod,
    seed: int,
) -> tuple[MetricComparison, FloatArray]:
    """The metric's comparison (before family, Holm and verdict) and its paired differences."""
    base = case_values(baseline, name, "baseline")
    var = case_values(variant, name, "variant")
    b = np.array([base.means[c] for c in paired], dtype=np.float64)
    v = np.array([var.means[c] for c in paired], dtype=np.float64)
    ok = ~(np.isnan(b) | np.isnan(v))
    n = int(np.count_nonzero(ok))
    undefined = len(paired) - n
    nan = float("nan")
    if n == 0:
        empty = MetricComparison(
            name, direction, 0, undefined, nan, nan, nan, (nan, nan), nan, None, nan
        )
        return empty, np.empty(0)
    b, v = b[ok], v[ok]
    d = v - b
    gen = _metric_seed(seed, name)
    ci = bootstrap_mean_ci(d, resamples=resamples, confidence=confidence, method=ci_method, rng=gen)
    kept = [c for c, keep in zip(paired, ok.tolist(), strict=True) if keep]
    one_trial = all(base.trials[c] == 1 and var.trials[c] == 1 for c in kept)
    common = MetricComparison(
        name=name,
        direction=direction,
        n=n,
        undefined=undefined,
        baseline=float(b.mean()),
        variant=float(v.mean()),
        diff=float(d.mean()),
        ci=(ci.low, ci.high),
        effect_size=cohens_dz(d),
        test=None,
        p_value=nan,
    )
    if base.binary and var.binary and one_trial:
        wins = int(np.count_nonzero((b == 0) & (v == 1)))
        losses = int(np.count_nonzero((b == 1) & (v == 0)))
        tested = replace(
            common,
            test="mcnemar_exact",
            p_value=mcnemar_exact(wins, losses),
            discordant=(wins, losses),
        )
        return tested, d
    tested = replace(
        common,
        test="wilcoxon",
        p_value=wilcoxon_signed_rank(d),
        p_permutation=sign_flip_permutation(d, resamples, gen),
    )
    return tested, d


def _paired_ids(
    baseline: Sequence[Mapping[str, Any]], variant: Sequence[Mapping[str, Any]]
) -> tuple[list[str], list[dict[str, str]]]:
    base_ids = list(dict.fromkeys(str(r.get("case_id")) for r in baseline))
    var_ids = list(dict.fromkeys(str(r.get("case_id")) for r in variant))
    var_set, base_set = set(var_ids), set(base_ids)
    paired = [c for c in base_ids if c in var_set]
    if not paired:
        raise ValueError("baseline and variant have no case_id in common")
    unpaired = [{"case_id": c, "only_in": "baseline"} for c in base_ids if c not in var_set]
    unpaired += [{"case_id": c, "only_in": "variant"} for c in var_ids if c not in base_set]
    return paired, unpaired


def compare_records(
    baseline: Sequence[Mapping[str, Any]],
    variant: Sequence[Mapping[str, Any]],
    *,
    metrics: Sequence[str] | None = None,
    primary: Sequence[str] | None = None,
    resamples: int = 10_000,
    confidence: float = 0.95,
    ci_method: CIMethod = "percentile",
    seed: int = 0,
) -> Comparison:
    """Compare two sets of result records paired by ``case_id``.

    Args:
        baseline: records of the baseline system.
        variant: records of the variant.
        metrics: names to compare (see :mod:`pathgrade.stats.records`; a deprecated
            spelling, ``usage.latency_ms``, is compared under its one name, ``latency_ms``,
            with a note); default: every metric found on both sides, each once. Given, they
            are the primary family (unless ``primary`` is given too).
        primary: the primary family (Holm runs over it only); names it has that ``metrics``
            lacks are compared too. Default: :func:`pathgrade.stats.family.primary_family`.
        resamples: bootstrap (and permutation) resamples.
        confidence: interval level; the verdict's significance level is ``1 - confidence``.
        ci_method: ``"percentile"`` or ``"bca"``.
        seed: the seed every random stream is derived from (one stream per metric).

    Each metric's better direction is its catalogue row's (:func:`metric_direction`).

    Raises:
        ValueError: no case in common.
        MissingMetricError: a requested (or primary) metric that one side does not carry.
    """
    paired, unpaired = _paired_ids(baseline, variant)
    if metrics is not None:
        metrics = [catalogue.canonical(m) for m in metrics]
    if primary is not None:
        primary = [catalogue.canonical(p) for p in primary]
    if metrics is None:
        in_variant = set(metric_names(variant))
        names = [m for m in metric_names(baseline) if m in in_variant]
    else:
        names = list(dict.fromkeys(metrics))
    names += [p for p in dict.fromkeys(primary or ()) if p not in names]
    computed = {
        name: _compare_metric(
            name,
            baseline,
            variant,
            paired,
            direction=metric_direction(name),
            resamples=resamples,
            confidence=confidence,
            ci_method=ci_method,
            seed=seed,
        )
        for name in names
    }
    family, source = primary_family(
        names, metrics=metrics, primary=primary, has_data=lambda n: computed[n][0].n > 0
    )
    adjusted = dict(zip(family, holm([computed[n][0].p_value for n in family]), strict=True))
    size = sum(1 for p in adjusted.values() if not math.isnan(p))
    alpha = significance_level(confidence)
    final: dict[str, MetricComparison] = {}
    for name in [*family, *(n for n in names if n not in adjusted)]:
        m, d = computed[name]
        p_holm = adjusted.get(name)
        power = paired_power(d, alpha=alpha, power=POWER) if p_holm is not None else None
        final[name] = replace(
            m,
            family="primary" if p_holm is not None else "secondary",
            p_holm=float("nan") if p_holm is None else p_holm,
            power=power,
            verdict=verdict(
                n=m.n,
                ci=m.ci,
                diff=m.diff,
                direction=m.direction,
                p_value=m.p_value,
                p_holm=p_holm,
                family_size=size,
                alpha=alpha,
            ),
        )
    return Comparison(
        len(paired),
        unpaired,
        final,
        confidence,
        resamples,
        ci_method,
        seed,
        primary=tuple(family),
        family_source=source,
        family_size=size,
    )
