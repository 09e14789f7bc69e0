"""The primary family of a comparison, and the verdict words that read its numbers.

**Family.** Holm's correction runs over the *primary* metrics only: the question a comparison
answers. The other metrics compared are *secondary*: shown with their raw p-value, marked so,
never corrected and never silently promoted. The primary family is, in order of precedence:

1. the names given as ``primary`` (``pathgrade compare --primary NAME``, or the scoring
   config's ``[compare] primary`` list);
2. the names given as ``metrics`` (``-m``): asking for metrics is asking about them;
3. by default, :data:`ALWAYS_PRIMARY` (``path_score``, ``goal_success``) and each layer's
   headline metric (:data:`HEADLINES`), among the metrics with paired data;
4. when the default finds none of them (results with only custom metrics), every metric
   compared (pathgrade cannot tell which of them is the question).

A layer's headline is the first entry of its :data:`HEADLINES` row that has paired data; an
entry is a catalogue row name, so ``ndcg`` stands for ``ndcg@10``, ``ndcg@5`` ... and the
first such name in the records' order (the configured order of ``[retrieval] metrics``)
wins. Layers without a row (usage, defects, abstention, trials, judge) have no headline.

**Verdict.** With ``alpha = 1 - confidence``, an interval ``[low, high]`` of ``diff``, the raw
p-value ``p`` of the paired test and, for a primary metric, Holm's ``p_holm`` over the ``N``
primary metrics with a test:

=====================================  ===================================================
numbers                                verdict
=====================================  ===================================================
no pair defined                        ``no paired data``
``low <= 0 <= high``                   ``no detectable difference`` (the data cannot tell)
excludes 0, ``p >= alpha``             ``not significant`` (interval and test disagree)
primary, ``p < alpha <= p_holm``       ``not significant after correcting for N comparisons``
primary, ``p_holm < alpha``            ``improved`` / ``regressed`` / ``changed``
secondary, ``p < alpha``               ``improved (secondary, uncorrected)`` / ``regressed
                                       (secondary, uncorrected)`` / ``changed (secondary,
                                       uncorrected)``
=====================================  ===================================================

``improved`` / ``regressed`` follow the metric's better direction (its catalogue row);
``changed`` is a detected difference in a metric without one. So a verdict word never
contradicts the interval or the p-values printed next to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from pathgrade.metrics import catalogue
from pathgrade.metrics.catalogue_rows import Layer
from pathgrade.metrics.spec import Direction

__all__ = [
    "ALWAYS_PRIMARY",
    "CHANGED",
    "HEADLINES",
    "IMPROVED",
    "NOT_SIGNIFICANT",
    "NO_DATA",
    "NO_DIFFERENCE",
    "REGRESSED",
    "SECONDARY_MARK",
    "corrected_away",
    "default_primary",
    "headline",
    "primary_family",
    "significance_level",
    "verdict",
]

IMPROVED = "improved"
REGRESSED = "regressed"
CHANGED = "changed"
NO_DIFFERENCE = "no detectable difference"
NO_DATA = "no paired data"
NOT_SIGNIFICANT = "not significant"
#: Appended to a detected difference of a secondary metric.
SECONDARY_MARK = " (secondary, uncorrected)"

#: Always in the default primary family (when they have paired data).
ALWAYS_PRIMARY: tuple[str, ...] = ("path_score", "goal_success")
#: Per layer, the candidates for its headline metric, best first (catalogue row names).
HEADLINES: Mapping[Layer, tuple[str, ...]] = {
    "retrieval": ("ndcg", "recall", "ap", "map", "mrr", "precision", "hit_rate"),
    "tool": ("argument_correctness", "state_match", "schema_validity"),
    "answer": ("token_f1", "faithfulness", "exact_match"),
}


def significance_level(confidence: float) -> float:
    """``alpha = 1 - confidence``, rounded to 12 decimals: 0.95 gives exactly 0.05 (not
    0.050000000000000044, which a p-value of exactly 0.05 would pass)."""
    return round(1.0 - confidence, 12)


def corrected_away(family_size: int) -> str:
    """The verdict of a primary difference that only Holm's correction removes."""
    return f"not significant after correcting for {family_size} comparisons"


def headline(layer: Layer, names: Sequence[str]) -> str | None:
    """The headline metric of ``layer`` among ``names`` (module docstring), or None.

    Example (``ndcg`` comes before ``recall``; ``ndcg@5`` is listed first):
        >>> headline("retrieval", ["recall@20", "ndcg@5", "ndcg@10", "path_score"])
        'ndcg@5'
    """
    rows = [catalogue.find(n) for n in names]
    in_layer = [(n, r.name) for n, r in zip(names, rows, strict=True) if r and r.layer == layer]
    for candidate in HEADLINES.get(layer, ()):
        for name, row_name in in_layer:
            if row_name == candidate:
                return name
    return None


def default_primary(names: Sequence[str]) -> list[str]:
    """:data:`ALWAYS_PRIMARY` and each layer's headline among ``names``, in that order."""
    out = [n for n in ALWAYS_PRIMARY if n in names]
    for layer in HEADLINES:
        found = headline(layer, names)
        if found is not None and found not in out:
            out.append(found)
    return out


def primary_family(
    names: Sequence[str],
    *,
    metrics: Sequence[str] | None = None,
    primary: Sequence[str] | None = None,
    has_data: Callable[[str], bool] = lambda _: True,
) -> tuple[list[str], str]:
    """The primary family among the compared ``names`` and the rule that chose it.

    Args:
        names: the metrics compared.
        metrics: the metrics asked for (``-m``), if any.
        primary: the family asked for (``--primary`` / ``[compare] primary``), if any.
        has_data: whether a metric has paired data (the default family skips those without).

    Returns:
        ``(family, source)``, ``source`` one of ``"primary"``, ``"metrics"``, ``"default"``,
        ``"all"`` (rules 1-4 of the module docstring).
    """
    if primary is not None:
        return list(dict.fromkeys(primary)), "primary"
    if metrics is not None:
        return list(dict.fromkeys(metrics)), "metrics"
    found = default_primary([n for n in names if has_data(n)])
    if found:
        return found, "default"
    return list(names), "all"


def verdict(
    *,
    n: int,
    ci: tuple[float, float],
    diff: float,
    direction: Direction,
    p_value: float,
    p_holm: float | None,
    family_size: int,
    alpha: float,
) -> str:
    """The verdict of one comparison (the table of the module docstring).

    ``p_holm`` is None for a secondary metric; ``family_size`` is the ``N`` of the primary
    family (the number of its p-values Holm adjusted).

    Example (a CI that excludes 0 and raw p = 0.0078, but Holm over 21 metrics gives 0.164):
        >>> verdict(n=12, ci=(8.3, 22.1), diff=15.4, direction="higher", p_value=0.0078,
        ...         p_holm=0.164, family_size=21, alpha=0.05)
        'not significant after correcting for 21 comparisons'
        >>> verdict(n=12, ci=(8.3, 22.1), diff=15.4, direction="higher", p_value=0.0078,
        ...         p_holm=None, family_size=3, alpha=0.05)
        'improved (secondary, uncorrected)'
    """
    if n == 0:
        return NO_DATA
    low, high = ci
    if math.isnan(low) or math.isnan(high) or low <= 0.0 <= high:
        return NO_DIFFERENCE
    if math.isnan(p_value) or p_value >= alpha:
        return NOT_SIGNIFICANT
    if p_holm is not None and not p_holm < alpha:
        return corrected_away(family_size)
    if direction == "neither":
        word = CHANGED
    else:
        word = IMPROVED if (diff > 0) == (direction == "higher") else REGRESSED
    return word if p_holm is not None else word + SECONDARY_MARK
