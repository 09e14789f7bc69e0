"""Limits on what a user may ask for, shared by the statistics, the gates file and the CLI.

A light module (no NumPy): the command line reads it to bound its options.
"""

from __future__ import annotations

#: The most bootstrap or permutation resamples one statistic may draw: 100 times the default
#: of 10,000. Beyond it the Monte Carlo error is far below any reported digit, and a typo
#: (``resamples = 1e10``) would otherwise run for hours.
MAX_RESAMPLES = 1_000_000


def check_resamples(value: object, name: str = "resamples") -> int:
    """``value`` when it is an integer from 1 to :data:`MAX_RESAMPLES`, else a ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_RESAMPLES:
        raise ValueError(f"{name} must be an integer from 1 to {MAX_RESAMPLES:,}, got {value!r}")
    return value
