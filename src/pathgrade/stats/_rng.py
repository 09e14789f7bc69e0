"""Turning a seed into a :class:`numpy.random.Generator` (never the global RNG)."""

from __future__ import annotations

import numpy as np

Seed = int | np.random.Generator


def as_generator(rng: Seed) -> np.random.Generator:
    """A Generator from an int seed, or the given Generator itself (its state advances)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, bool) or not isinstance(rng, int | np.integer):
        raise TypeError(f"rng must be an int seed or numpy.random.Generator, got {rng!r}")
    return np.random.default_rng(int(rng))
