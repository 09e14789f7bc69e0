"""How well a matcher agrees with people: labelled pairs against its decisions.

A labelled pair is ``{"tool", "field", "reference", "agent", "equivalent": bool}``. The
matcher's decision on a pair is that of the ``semantic`` matcher of ``tool`` on the one field
(:meth:`~pathgrade.metrics.trajectory.arguments.ToolMatcher.explain`): ``decided`` when no
cosine entered it (equal after normalisation, not free text, or the number guard), else
``cosine >= threshold``. :func:`agreement` reports, at a threshold, Cohen's kappa
(:func:`pathgrade.stats.agreement.cohen_kappa`; ``nan`` when undefined) and the precision and
recall of "equivalent"; :func:`sweep` does so at every threshold of a grid and names the one
with the highest kappa (ties: the lowest threshold).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pathgrade.stats.agreement import cohen_kappa


@dataclass(frozen=True)
class Scored:
    """One pair: the people's label, and the cosine (None: the matcher decided ``decided``)."""

    equivalent: bool
    cosine: float | None
    decided: bool = False

    def predicted(self, threshold: float) -> bool:
        return self.decided if self.cosine is None else self.cosine >= threshold


@dataclass(frozen=True)
class Agreement:
    """Figures at one threshold (precision/recall ``nan`` when their denominator is 0)."""

    threshold: float
    kappa: float
    precision: float
    recall: float
    accuracy: float
    n: int

    def to_dict(self) -> dict[str, Any]:
        def clean(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 4)

        return {
            "threshold": round(self.threshold, 4),
            "kappa": clean(self.kappa),
            "precision": clean(self.precision),
            "recall": clean(self.recall),
            "accuracy": clean(self.accuracy),
            "n": self.n,
        }


def agreement(pairs: Sequence[Scored], threshold: float) -> Agreement:
    """Kappa, precision, recall and accuracy of the decisions at ``threshold``.

    Example:
        >>> pairs = [Scored(True, 0.9), Scored(True, 0.7), Scored(False, 0.75), Scored(False, 0.2)]
        >>> # at 0.72: predicted T, F, T, F; tp=1 fp=1 fn=1 -> precision 1/2, recall 1/2
        >>> a = agreement(pairs, 0.72)
        >>> (a.precision, a.recall, a.kappa)
        (0.5, 0.5, 0.0)
    """
    if not pairs:
        raise ValueError("no labelled pairs")
    truth = [p.equivalent for p in pairs]
    guess = [p.predicted(threshold) for p in pairs]
    tp = sum(1 for t, g in zip(truth, guess, strict=True) if t and g)
    fp = sum(1 for t, g in zip(truth, guess, strict=True) if g and not t)
    fn = sum(1 for t, g in zip(truth, guess, strict=True) if t and not g)
    same = sum(1 for t, g in zip(truth, guess, strict=True) if t == g)
    return Agreement(
        threshold=threshold,
        kappa=cohen_kappa(truth, guess),
        precision=tp / (tp + fp) if tp + fp else math.nan,
        recall=tp / (tp + fn) if tp + fn else math.nan,
        accuracy=same / len(pairs),
        n=len(pairs),
    )


def grid(start: float = 0.30, stop: float = 0.95, step: float = 0.05) -> list[float]:
    """Thresholds ``start, start + step, ..., stop`` (rounded to 4 places)."""
    count = round((stop - start) / step)
    return [round(start + k * step, 4) for k in range(count + 1)]


def sweep(pairs: Sequence[Scored], thresholds: Sequence[float]) -> tuple[list[Agreement], float]:
    """The figures at each threshold, and the best-kappa threshold (lowest on ties; a
    ``nan`` kappa never wins)."""
    rows = [agreement(pairs, t) for t in thresholds]
    best = max(
        (r for r in rows if not math.isnan(r.kappa)),
        key=lambda r: (r.kappa, -r.threshold),
        default=rows[0],
    )
    return rows, best.threshold
