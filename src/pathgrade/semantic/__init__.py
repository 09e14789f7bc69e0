"""Semantic argument matching, I/O side: embeddings and judge verdicts made before scoring.

* :func:`prepare`: embed every string scoring compares by ``semantic`` matching (backends in
  :mod:`pathgrade.semantic.backends`, cache in :mod:`pathgrade.semantic.cache`).
* :func:`judge_verdicts`: the judge's verdict on every pair ``judge`` matching reads.
* :mod:`pathgrade.semantic.agreement`: a matcher against people's labels (Cohen's kappa,
  precision/recall, the threshold sweep).
* :mod:`pathgrade.semantic.guards`: the pure guards (numbers, entities, negation) the
  matchers apply before the cosine.

The matchers (:mod:`pathgrade.metrics.trajectory.arguments`) only read what these made. The
names below are imported on first use (PEP 562), so that the pure matchers can import
:mod:`pathgrade.semantic.guards` without loading the judge client or the embedding backends.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathgrade.semantic.judging import judge_verdicts, undefined_runs
    from pathgrade.semantic.prepass import prepare, uses_evidence

__all__ = ["judge_verdicts", "prepare", "undefined_runs", "uses_evidence"]

_WHERE = {
    "judge_verdicts": "pathgrade.semantic.judging",
    "undefined_runs": "pathgrade.semantic.judging",
    "prepare": "pathgrade.semantic.prepass",
    "uses_evidence": "pathgrade.semantic.prepass",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'pathgrade.semantic' has no attribute {name!r}")
    return getattr(import_module(module), name)
