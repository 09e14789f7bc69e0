"""Dataset splits without leakage: by group, by time, and a near-duplicate check.

* :func:`group_split`: whole groups (incident, service, runbook) go to one split, so no group
  crosses splits. Groups are shuffled with the seed, then placed largest first, each into the
  split furthest below its target share (``(target - assigned) / target``); the result is
  reproducible for a seed and close to the ratios whenever groups are small relative to splits.
* :func:`time_split`: items ordered by a time value (ties by input order); the earliest
  ``ratios[0]`` share is ``train``, and so on: later data is never used to predict earlier.
  Boundaries are ``round(cumsum(ratios) * n)``.
* :func:`near_duplicates`: pairs of texts in *different* splits whose rapidfuzz ``ratio``
  (after rapidfuzz's default processing: lower case, non-alphanumerics to spaces, trimmed) is at
  least ``threshold`` (0..100, default 90). Exact duplicates score 100.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process, utils

from pathgrade.stats._rng import Seed, as_generator

__all__ = ["Leak", "group_split", "near_duplicates", "split_names", "time_split", "validate_ratios"]


def validate_ratios(ratios: Sequence[float]) -> tuple[float, ...]:
    """Two or three non-negative ratios summing to 1 (within 1e-6)."""
    values = tuple(float(r) for r in ratios)
    if len(values) not in (2, 3):
        raise ValueError(f"give 2 (train, test) or 3 (train, dev, test) ratios, got {len(values)}")
    if any(r < 0 or not np.isfinite(r) for r in values):
        raise ValueError(f"ratios must be non-negative, got {values}")
    if abs(sum(values) - 1.0) > 1e-6:
        raise ValueError(f"ratios must sum to 1, got {sum(values):g}")
    return values


def split_names(count: int) -> tuple[str, ...]:
    """``("train", "test")`` or ``("train", "dev", "test")``."""
    return ("train", "test") if count == 2 else ("train", "dev", "test")


def group_split(groups: Sequence[Hashable], ratios: Sequence[float], rng: Seed = 0) -> list[int]:
    """Split index of each item; items of one group always share a split."""
    shares = validate_ratios(ratios)
    members: dict[Hashable, list[int]] = {}
    for i, group in enumerate(groups):
        members.setdefault(group, []).append(i)
    keys = list(members)
    order = as_generator(rng).permutation(len(keys))
    shuffled = [keys[i] for i in order]
    shuffled.sort(key=lambda g: -len(members[g]))  # stable: the shuffle breaks ties
    total = len(groups)
    targets = np.array(shares) * total
    assigned = np.zeros(len(shares))
    usable = np.array(shares) > 0
    out = [0] * total
    for group in shuffled:
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(usable, (targets - assigned) / np.where(usable, targets, 1.0), -np.inf)
        choice = int(np.argmax(room))
        assigned[choice] += len(members[group])
        for i in members[group]:
            out[i] = choice
    return out


def time_split(times: Sequence[Any], ratios: Sequence[float]) -> list[int]:
    """Split index of each item, chronologically (earliest first)."""
    shares = validate_ratios(ratios)
    try:
        order = sorted(range(len(times)), key=lambda i: (times[i], i))
    except TypeError:
        raise ValueError(
            "time values must all be comparable (all numbers or all strings)"
        ) from None
    bounds = np.rint(np.cumsum(shares) * len(times)).astype(int)
    bounds[-1] = len(times)
    out = [0] * len(times)
    for rank, i in enumerate(order):
        out[i] = int(np.searchsorted(bounds, rank, side="right"))
    return out


@dataclass(frozen=True)
class Leak:
    """Two near-duplicate texts in different splits (indices into the input)."""

    first: int
    second: int
    score: float


def near_duplicates(
    texts: Sequence[str | None],
    splits: Sequence[int],
    threshold: float = 90.0,
    *,
    block: int = 512,
) -> list[Leak]:
    """Near-duplicate pairs across splits, highest score first (``None`` texts skipped)."""
    if len(texts) != len(splits):
        raise ValueError(f"texts and splits differ in length: {len(texts)} and {len(splits)}")
    if not 0.0 <= threshold <= 100.0:
        raise ValueError(f"threshold must be in [0, 100], got {threshold!r}")
    processed: dict[int, list[tuple[int, str]]] = {}
    for i, (text, split) in enumerate(zip(texts, splits, strict=True)):
        if text is not None:
            processed.setdefault(split, []).append((i, utils.default_process(text)))
    leaks: list[Leak] = []
    labels = sorted(processed)
    for a_pos, a in enumerate(labels):
        for b in labels[a_pos + 1 :]:
            left, right = processed[a], processed[b]
            right_texts = [t for _, t in right]
            for start in range(0, len(left), block):
                chunk = left[start : start + block]
                scores = process.cdist(
                    [t for _, t in chunk],
                    right_texts,
                    scorer=fuzz.ratio,
                    score_cutoff=threshold,
                    dtype=np.float32,
                )
                for row, col in zip(*np.nonzero(scores >= threshold), strict=True):
                    first, second = chunk[int(row)][0], right[int(col)][0]
                    leaks.append(Leak(first, second, float(scores[row, col])))
    leaks.sort(key=lambda leak: (-leak.score, leak.first, leak.second))
    return leaks
