"""Annotation agreement for gold labels: Cohen's kappa and Krippendorff's alpha.

* :func:`cohen_kappa`: two annotators, nominal labels, ``kappa = (p_o - p_e) / (1 - p_e)``
  with ``p_o`` the observed agreement and ``p_e`` the agreement expected from each
  annotator's label frequencies (Cohen, 1960). Unweighted; equals scikit-learn's
  ``cohen_kappa_score`` without weights. When ``p_e = 1`` (both annotators used one and the
  same label throughout) kappa is undefined and ``nan`` is returned.
* :func:`krippendorff_alpha`: any number of coders, missing values allowed, levels
  ``nominal``, ``ordinal``, ``interval`` (and ``ratio``). Computed by the maintained
  ``krippendorff`` package (Castro, PyPI), which reproduces Krippendorff's published worked
  example (2011, "Computing Krippendorff's Alpha-Reliability"): nominal 0.743,
  ordinal 0.815, interval 0.849, ratio 0.797.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal

import krippendorff
import numpy as np

__all__ = ["Level", "cohen_kappa", "krippendorff_alpha"]

Level = Literal["nominal", "ordinal", "interval", "ratio"]


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float:
    """Cohen's kappa of two annotators' labels for the same items (parallel sequences).

    Example:
        >>> # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 (Wikipedia's example)
        >>> a = ["y"] * 25 + ["n"] * 25
        >>> b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
        >>> round(cohen_kappa(a, b), 6)
        0.4
    """
    if len(first) != len(second):
        raise ValueError(
            f"both annotators must label the same items, got {len(first)} and {len(second)}"
        )
    if len(first) == 0:
        raise ValueError("no items to compare")
    labels = {label: i for i, label in enumerate(dict.fromkeys([*first, *second]))}
    size = len(labels)
    a = np.fromiter((labels[x] for x in first), dtype=np.int64, count=len(first))
    b = np.fromiter((labels[x] for x in second), dtype=np.int64, count=len(second))
    n = a.size
    observed = float(np.count_nonzero(a == b)) / n
    expected = float(np.dot(np.bincount(a, minlength=size), np.bincount(b, minlength=size))) / (
        n * n
    )
    if expected >= 1.0:
        return float("nan")
    return (observed - expected) / (1.0 - expected)


def krippendorff_alpha(
    reliability_data: Sequence[Sequence[float | None]],
    level: Level = "nominal",
) -> float:
    """Krippendorff's alpha; rows are coders, columns units, ``None``/``nan`` missing.

    Values must be numeric codes (map text labels to integers first; for ``ordinal`` the codes'
    order is the scale's order).

    Raises:
        ValueError: an unknown level, ragged rows, or fewer than two distinct values overall
            (alpha is undefined when there is no variation).
    """
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise ValueError(f"level must be nominal, ordinal, interval or ratio, got {level!r}")
    widths = {len(row) for row in reliability_data}
    if len(widths) > 1:
        raise ValueError(f"every coder row must have one entry per unit, got widths {widths}")
    data = np.array(
        [[np.nan if v is None else float(v) for v in row] for row in reliability_data],
        dtype=np.float64,
    )
    if data.ndim != 2 or data.shape[0] < 2:
        raise ValueError("reliability data needs at least two coders (rows)")
    distinct = np.unique(data[~np.isnan(data)])
    if distinct.size < 2:
        raise ValueError("alpha is undefined: fewer than two distinct values were coded")
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
