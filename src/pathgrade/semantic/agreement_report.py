"""Everything ``pathgrade matcher-agreement`` reports, as one JSON-ready dict. Pure.

In-sample (the figures at the configured threshold and the sweep over the grid, on the same
pairs: :mod:`pathgrade.semantic.agreement`) and held-out (:mod:`pathgrade.semantic.crossval`):
stratified k-fold, and leave-one-domain-out when every pair names a domain and there are at
least two. The recommended threshold and band are the k-fold's (chosen most often across its
folds); their figures on all pairs are reported as ``in_sample_at_recommended``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pathgrade.semantic.agreement import Scored, agreement, sweep
from pathgrade.semantic.crossval import (
    BandRule,
    arrays,
    cross_validate,
    figures,
    group_folds,
    stratified_folds,
    summarise,
)
from pathgrade.semantic.threshold_grid import Band, decided, predictions


@dataclass(frozen=True)
class Settings:
    """How the held-out figures are made (the command's options)."""

    threshold: float  # the configured (current default) threshold
    grid: Sequence[float]
    folds: int = 5
    seed: int = 0
    resamples: int = 1000
    rule: BandRule = BandRule()  # noqa: RUF009 -- frozen, never mutated


def _band_in_sample(pairs: Sequence[Scored], band: Band) -> dict[str, Any]:
    truth, cosine, fixed = arrays(pairs)
    keep = decided(cosine, band)
    guess = predictions(cosine, fixed, [band.high])[0]
    fig = figures(truth[keep], guess[keep]).to_dict()
    return {
        "band": band.to_list(),
        "coverage": round(float(keep.mean()), 4),
        **{f"decided_{k}": v for k, v in fig.items()},
    }


def agreement_report(
    pairs: Sequence[Scored],
    settings: Settings,
    *,
    domains: Sequence[str | None],
    kinds: Sequence[str | None],
) -> dict[str, Any]:
    """The in-sample sweep and the held-out figures of ``pairs`` (cosines already made)."""
    at = agreement(pairs, settings.threshold)
    rows, best = sweep(pairs, settings.grid)
    truth, _, _ = arrays(pairs)
    has_kind = any(k is not None for k in kinds)
    report: dict[str, Any] = {
        "pairs": len(pairs),
        "equivalent": int(truth.sum()),
        "at_threshold": at.to_dict(),
        "sweep": [row.to_dict() for row in rows],
        "best_kappa_threshold": best,
    }
    if len(pairs) < max(settings.folds, 2):
        report["k_fold"] = {"skipped": f"fewer pairs than folds ({settings.folds})"}
    else:
        folds = stratified_folds(truth, settings.folds, settings.seed)
        cv = cross_validate(pairs, folds, settings.grid, settings.threshold, rule=settings.rule)
        report["k_fold"] = {
            "k": settings.folds,
            "seed": settings.seed,
            **summarise(
                pairs,
                cv,
                settings.threshold,
                domains=domains,
                kinds=kinds if has_kind else None,
                resamples=settings.resamples,
                seed=settings.seed,
            ),
        }
    named = [d for d in domains if d is not None]
    if len(named) < len(domains) or len(set(named)) < 2:
        report["leave_one_domain_out"] = {
            "skipped": "needs a domain on every pair and at least two domains"
        }
    else:
        folds, names = group_folds(named)
        cv = cross_validate(
            pairs, folds, settings.grid, settings.threshold, names=names, rule=settings.rule
        )
        report["leave_one_domain_out"] = summarise(
            pairs,
            cv,
            settings.threshold,
            domains=domains,
            kinds=kinds if has_kind else None,
            resamples=settings.resamples,
            seed=settings.seed,
        )
    recommended = report["k_fold"].get("recommended")
    if recommended is not None:
        t = float(recommended["threshold"])
        low, high = recommended["band"]
        report["in_sample_at_recommended"] = {
            "threshold": agreement(pairs, t).to_dict(),
            **_band_in_sample(pairs, Band(float(low), float(high))),
        }
    report["settings"] = {
        "threshold": settings.threshold,
        "grid": [float(g) for g in np.asarray(settings.grid)],
        "band_target_kappa": settings.rule.target_kappa,
        "band_min_coverage": settings.rule.min_coverage,
    }
    return report
