"""Power of a paired comparison: the minimum detectable effect and the cases needed.

For per-case paired differences ``d`` (``n`` cases, mean ``m``, sample sd ``s``, ``ddof = 1``),
a two-sided test at level ``alpha`` with power ``1 - beta``:

* minimum detectable effect ``MDE = (q(1 - alpha/2) + q(power)) * s / sqrt(n)``;
* cases needed to detect ``m``: the smallest ``n`` with ``n >= ((q(1 - alpha/2) + q(power))
  * s / |m|)^2``.

``q`` is the Student-t quantile with ``n - 1`` degrees of freedom (default,
``quantiles="t"``) or the standard normal quantile (``quantiles="normal"``). The t version is
the usual refinement of the normal formula for the paired t-test; its power at the returned
``n`` is close to the nominal (checked against the noncentral t by a slow test). For the cases
needed, the t quantiles depend on the ``n`` being solved for: the search starts at the normal
answer (a lower bound, since t quantiles exceed normal ones) and moves up one case at a time
until the inequality holds, which is the smallest such ``n`` because its right-hand side
decreases with ``n``. At least 2 cases are needed (one degree of freedom).

Undefined results are ``None`` with a reason: fewer than two cases; ``s = 0`` (all
differences equal: no spread, the test is degenerate); ``m = 0`` (no difference to detect;
``|m| <= 1e-12 max |d|`` counts as 0, the rounding of a zero sum).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["PowerResult", "Quantiles", "cases_needed", "minimum_detectable_effect", "paired_power"]

Quantiles = Literal["t", "normal"]
#: A mean difference within this share of ``max |d|`` is 0 (float rounding of a zero sum).
_ROUNDING = 1e-12


def _check(alpha: float, power: float, quantiles: str) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be in (0, 1), got {power!r}")
    if quantiles not in ("t", "normal"):
        raise ValueError(f"quantiles must be 't' or 'normal', got {quantiles!r}")


def _multiplier(n: int, alpha: float, power: float, quantiles: Quantiles) -> float:
    """``q(1 - alpha/2) + q(power)`` for ``n`` cases."""
    from scipy.special import ndtri, stdtrit  # imported on use: scipy is slow to import

    if quantiles == "normal":
        return float(ndtri(1.0 - alpha / 2.0) + ndtri(power))
    df = n - 1
    return float(stdtrit(df, 1.0 - alpha / 2.0) + stdtrit(df, power))


def minimum_detectable_effect(
    sd: float,
    n: int,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    quantiles: Quantiles = "t",
) -> float:
    """``(q(1 - alpha/2) + q(power)) * sd / sqrt(n)`` (module docstring); ``n >= 2``.

    Example (normal quantiles: 1.959964 + 0.841621 = 2.801585; times 0.3 / sqrt(36)):
        >>> round(minimum_detectable_effect(0.3, 36, quantiles="normal"), 6)
        0.140079
    """
    _check(alpha, power, quantiles)
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n!r}")
    if not sd >= 0.0:
        raise ValueError(f"sd must be non-negative, got {sd!r}")
    return _multiplier(n, alpha, power, quantiles) * sd / math.sqrt(n)


def cases_needed(
    mean_diff: float,
    sd: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    quantiles: Quantiles = "t",
) -> int:
    """Smallest ``n >= 2`` with ``n >= ((q(1 - alpha/2) + q(power)) * sd / |mean_diff|)^2``.

    Raises:
        ValueError: ``mean_diff = 0`` or ``sd <= 0`` (undefined; see :func:`paired_power`).

    Example (normal: (2.801585 * 0.3 / 0.1)^2 = 70.64, so 71):
        >>> cases_needed(0.1, 0.3, quantiles="normal")
        71
    """
    _check(alpha, power, quantiles)
    if mean_diff == 0 or not math.isfinite(mean_diff):
        raise ValueError(f"mean_diff must be finite and non-zero, got {mean_diff!r}")
    if not sd > 0 or not math.isfinite(sd):
        raise ValueError(f"sd must be finite and positive, got {sd!r}")
    ratio = sd / abs(mean_diff)
    n = max(2, math.ceil((_multiplier(2, alpha, power, "normal") * ratio) ** 2))
    if quantiles == "normal":
        return n
    # t quantiles exceed normal ones, so the normal answer is a lower bound; the required n
    # decreases as n grows, so the first n that meets it is the smallest.
    while n < (_multiplier(n, alpha, power, "t") * ratio) ** 2:
        n += 1
    return n


@dataclass(frozen=True)
class PowerResult:
    """Power figures of one paired comparison; ``None`` figures come with their reason."""

    n: int
    mean_diff: float
    sd: float
    alpha: float
    power: float
    quantiles: Quantiles
    mde: float | None
    n_needed: int | None
    mde_reason: str | None = None
    n_needed_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``nan`` becomes ``None``)."""

        def num(value: float) -> float | None:
            return None if math.isnan(value) else value

        return {
            "n": self.n,
            "mean_diff": num(self.mean_diff),
            "sd": num(self.sd),
            "alpha": self.alpha,
            "power": self.power,
            "quantiles": self.quantiles,
            "mde": self.mde,
            "n_needed": self.n_needed,
            "mde_reason": self.mde_reason,
            "n_needed_reason": self.n_needed_reason,
        }


def paired_power(
    differences: ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    quantiles: Quantiles = "t",
) -> PowerResult:
    """MDE at the observed ``sd`` and ``n``, and the cases needed to detect the observed mean.

    ``differences`` are per-case paired differences (finite; drop undefined pairs first).
    """
    _check(alpha, power, quantiles)
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1:
        raise ValueError(f"differences must be one-dimensional, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences contain nan or inf: drop undefined pairs first")
    n = int(d.size)
    mean = float(d.mean()) if n else float("nan")
    # exact zeros when every difference is equal (the float formulas leave ~1e-17)
    flat = n >= 1 and bool(np.all(d == d[0]))
    sd = 0.0 if flat and n >= 2 else (float(d.std(ddof=1)) if n >= 2 else float("nan"))
    if n and abs(mean) <= _ROUNDING * float(np.abs(d).max()):
        mean = 0.0

    def result(
        mde: float | None, needed: int | None, why: str | None, why_n: str | None
    ) -> PowerResult:
        return PowerResult(n, mean, sd, alpha, power, quantiles, mde, needed, why, why_n)

    if n < 2:
        reason = f"needs at least 2 cases, got {n}"
        return result(None, None, reason, reason)
    if sd == 0.0:
        reason = "the paired differences have no spread (sd = 0)"
        return result(None, None, reason, reason)
    mde = minimum_detectable_effect(sd, n, alpha=alpha, power=power, quantiles=quantiles)
    if mean == 0.0:
        return result(mde, None, None, "the observed mean difference is 0")
    needed = cases_needed(mean, sd, alpha=alpha, power=power, quantiles=quantiles)
    return result(mde, needed, None, None)
