"""Semantic argument matching, I/O side: embeddings and judge verdicts made before scoring.

* :func:`prepare`: embed every string scoring compares by ``semantic`` matching (backends in
  :mod:`pathgrade.semantic.backends`, cache in :mod:`pathgrade.semantic.cache`).
* :func:`judge_verdicts`: the judge's verdict on every pair ``judge`` matching reads.
* :mod:`pathgrade.semantic.agreement`: a matcher against people's labels (Cohen's kappa,
  precision/recall, the threshold sweep).

The matchers (:mod:`pathgrade.metrics.trajectory.arguments`) only read what these made.
"""

from __future__ import annotations

from pathgrade.semantic.judging import judge_verdicts, undefined_runs
from pathgrade.semantic.prepass import prepare, uses_evidence

__all__ = ["judge_verdicts", "prepare", "undefined_runs", "uses_evidence"]
