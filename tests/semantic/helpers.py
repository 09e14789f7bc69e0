"""Small evidence for semantic matching tests: hand-made unit vectors."""

from __future__ import annotations

import math

import numpy as np

from pathgrade.metrics.trajectory.evidence import ArgumentEvidence, Embeddings


def angle_vectors(angles: dict[str, float]) -> Embeddings:
    """Each text at ``angle`` degrees on the unit circle: cos(a - b) is their cosine."""
    texts = list(angles)
    rows = [[math.cos(math.radians(angles[t])), math.sin(math.radians(angles[t]))] for t in texts]
    return Embeddings({t: i for i, t in enumerate(texts)}, np.asarray(rows, np.float32))


def evidence(angles: dict[str, float], **kwargs: object) -> ArgumentEvidence:
    return ArgumentEvidence(embeddings=angle_vectors(angles), **kwargs)  # type: ignore[arg-type]
