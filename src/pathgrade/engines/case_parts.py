"""What a partition sends for the summary over cases: exact per-case sums, slice keys.

The coordinator adds them up (:class:`pathgrade.stats.partial.SummaryPartial`) and runs the
bootstrap over the per-case means (:mod:`pathgrade.stats.case_summary`), so the partitioned
``pathgrade score`` gives the summary that scoring in memory gives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from pathgrade.core.types import Case
from pathgrade.stats.partial import SummaryPartial
from pathgrade.stats.slice_keys import SliceKey, case_slice_keys

__all__ = ["add_case_parts"]


def add_case_parts(
    partial: SummaryPartial,
    codes: NDArray[np.int64],
    case_ids: Sequence[str],
    metrics: Mapping[str, NDArray[np.float64]],
    cases: Mapping[str, Case],
    slice_by: str | None,
) -> None:
    """Add a scored batch's per-case sums (runs' case ``codes``, positions in the cases
    file) and, with ``slice_by``, its cases' slice keys by code."""
    partial.add_case_sums(codes, metrics)
    if slice_by is None:
        return
    keys: dict[int, tuple[SliceKey, ...]] = {}
    found = False
    for code, case_id in zip(codes.tolist(), case_ids, strict=True):
        if code not in keys:
            keys[code], has = case_slice_keys(cases[case_id], slice_by)
            found = found or has
    partial.add_slice_keys(keys, field_found=found)
