"""Holm's step-down correction for multiple comparisons (Holm, 1979).

Sort the ``m`` p-values ascending ``p_(1) <= ... <= p_(m)``; the adjusted value of the
``i``-th is ``max_{j <= i} min(1, (m - j + 1) * p_(j))``. It controls the family-wise error
rate without assuming independence and is uniformly more powerful than Bonferroni. ``nan``
entries (no test run) are left ``nan`` and do not count in ``m``.

Example:
    >>> [round(p, 3) for p in holm([0.01, 0.04, 0.03, 0.005])]
    [0.03, 0.06, 0.06, 0.02]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["holm"]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input order."""
    values = np.asarray(p_values, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"p_values must be a flat sequence, got shape {values.shape}")
    defined = ~np.isnan(values)
    if np.any((values[defined] < 0) | (values[defined] > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    adjusted = np.full(values.shape, np.nan)
    index = np.flatnonzero(defined)
    m = index.size
    if m == 0:
        return [float(v) for v in adjusted]
    order = index[np.argsort(values[index], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * values[order])
    adjusted[order] = np.maximum.accumulate(scaled)
    return [float(v) for v in adjusted]
