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
  ``wilcoxon`` (signed-rank, SciPy), with the sign-flip permutation p-value alongside
  (``p_permutation``);
* ``p_holm``: Holm-adjusted over all metrics compared;
* ``verdict``: ``improved`` / ``regressed`` when the interval excludes 0 *and*
  ``p_holm < 1 - confidence``, in the metric's better direction (its row of
  :mod:`pathgrade.metrics.catalogue`: a rise in a lower-is-better count such as
  ``missing_steps`` is ``regressed``); ``changed`` for such a difference in a metric with no
  better direction (``neither``, or a name the catalogue does not know); otherwise
  ``no detectable difference`` (the data cannot tell); ``no paired data`` when no pair is
  defined.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from pathgrade.metrics import catalogue
from pathgrade.metrics.spec import Direction
from pathgrade.stats.bootstrap import CIMethod, bootstrap_mean_ci
from pathgrade.stats.holm import holm
from pathgrade.stats.paired import (
    cohens_dz,
    mcnemar_exact,
    sign_flip_permutation,
    wilcoxon_signed_rank,
)
from pathgrade.stats.records import case_values, metric_names

__all__ = ["Comparison", "MetricComparison", "compare_records", "metric_direction"]

IMPROVED = "improved"
REGRESSED = "regressed"
CHANGED = "changed"
NO_DIFFERENCE = "no detectable difference"
NO_DATA = "no paired data"


def metric_direction(name: str) -> Direction:
    """The catalogue's direction of ``name``; ``neither`` for a name it does not know (a
    plug-in or a custom key): pathgrade never guesses which way such a metric is better."""
    found = catalogue.find(name)
    return found.direction if found is not None else "neither"


def _json_float(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


@dataclass(frozen=True)
class MetricComparison:
    """The comparison of one metric over the paired cases (``direction`` from the catalogue)."""

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

    @property
    def higher_is_better(self) -> bool | None:
        """True / False for a higher- / lower-is-better metric, None without a direction."""
        return None if self.direction == "neither" else self.direction == "higher"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``nan`` becomes ``null``."""
        doc: dict[str, Any] = {
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
        }
        if self.p_permutation is not None:
            doc["p_permutation"] = _json_float(self.p_permutation)
        if self.discordant is not None:
            doc["discordant"] = {"b": self.discordant[0], "c": self.discordant[1]}
        return doc


@dataclass(frozen=True)
class Comparison:
    """All metrics compared; ``unpaired`` lists ``{"case_id", "only_in"}`` entries."""

    paired_cases: int
    unpaired: list[dict[str, str]]
    metrics: dict[str, MetricComparison]
    confidence: float
    resamples: int
    ci_method: CIMethod
    seed: int
    settings: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The ``pathgrade compare --json`` document."""
        return {
            "paired_cases": self.paired_cases,
            "unpaired": self.unpaired,
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
            "settings": {
                "confidence": self.confidence,
                "resamples": self.resamples,
                "ci_method": self.ci_method,
                "seed": self.seed,
            },
        }


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
) -> MetricComparison:
    base = case_values(baseline, name, "baseline")
    var = case_values(variant, name, "variant")
    b = np.array([base.means[c] for c in paired], dtype=np.float64)
    v = np.array([var.means[c] for c in paired], dtype=np.float64)
    ok = ~(np.isnan(b) | np.isnan(v))
    n = int(np.count_nonzero(ok))
    undefined = len(paired) - n
    nan = float("nan")
    if n == 0:
        return MetricComparison(
            name, direction, 0, undefined, nan, nan, nan, (nan, nan), nan, None, nan
        )
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
        return replace(
            common,
            test="mcnemar_exact",
            p_value=mcnemar_exact(wins, losses),
            discordant=(wins, losses),
        )
    return replace(
        common,
        test="wilcoxon",
        p_value=wilcoxon_signed_rank(d),
        p_permutation=sign_flip_permutation(d, resamples, gen),
    )


def _verdict(m: MetricComparison, p_holm: float, alpha: float) -> str:
    if m.n == 0:
        return NO_DATA
    low, high = m.ci
    if math.isnan(p_holm) or p_holm >= alpha or low <= 0.0 <= high:
        return NO_DIFFERENCE
    if m.direction == "neither":
        return CHANGED
    better = (m.diff > 0) == (m.direction == "higher")
    return IMPROVED if better else REGRESSED


def compare_records(
    baseline: Sequence[Mapping[str, Any]],
    variant: Sequence[Mapping[str, Any]],
    *,
    metrics: Sequence[str] | None = None,
    resamples: int = 10_000,
    confidence: float = 0.95,
    ci_method: CIMethod = "percentile",
    seed: int = 0,
) -> Comparison:
    """Compare two sets of result records paired by ``case_id``.

    Args:
        baseline: records of the baseline system.
        variant: records of the variant.
        metrics: names to compare (see :mod:`pathgrade.stats.records`); default: every metric
            and ``usage.*`` field found on both sides.
        resamples: bootstrap (and permutation) resamples.
        confidence: interval level; the verdict's significance level is ``1 - confidence``.
        ci_method: ``"percentile"`` or ``"bca"``.
        seed: the seed every random stream is derived from (one stream per metric).

    Each metric's better direction is its catalogue row's (:func:`metric_direction`).

    Raises:
        ValueError: no case in common.
        MissingMetricError: a requested metric that one side does not carry.
    """
    base_ids = list(dict.fromkeys(str(r.get("case_id")) for r in baseline))
    var_ids = list(dict.fromkeys(str(r.get("case_id")) for r in variant))
    var_set, base_set = set(var_ids), set(base_ids)
    paired = [c for c in base_ids if c in var_set]
    if not paired:
        raise ValueError("baseline and variant have no case_id in common")
    unpaired = [{"case_id": c, "only_in": "baseline"} for c in base_ids if c not in var_set]
    unpaired += [{"case_id": c, "only_in": "variant"} for c in var_ids if c not in base_set]
    if metrics is None:
        in_variant = set(metric_names(variant))
        names = [m for m in metric_names(baseline) if m in in_variant]
    else:
        names = list(metrics)
    results = [
        _compare_metric(
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
    ]
    adjusted = holm([m.p_value for m in results])
    alpha = 1.0 - confidence
    final = {
        m.name: replace(m, p_holm=p, verdict=_verdict(m, p, alpha))
        for m, p in zip(results, adjusted, strict=True)
    }
    return Comparison(len(paired), unpaired, final, confidence, resamples, ci_method, seed)
