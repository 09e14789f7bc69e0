"""Retrieval metrics: exact, vectorised, conformant with trec_eval (see ``docs/retrieval.md``).

Pure functions over whole batches; no I/O. Start with :func:`evaluate` (a scored run) or
:func:`evaluate_rankings` (ids already in rank order); inside ``pathgrade score`` use
:func:`score_runs`.
"""

from pathgrade.metrics.retrieval.batch import RankedBatch, from_rankings, from_run, rank_order
from pathgrade.metrics.retrieval.evaluate import (
    MetricResult,
    RetrievalResult,
    evaluate,
    evaluate_batch,
    evaluate_rankings,
)
from pathgrade.metrics.retrieval.per_run import RunRetrieval, score_runs

__all__ = [
    "MetricResult",
    "RankedBatch",
    "RetrievalResult",
    "RunRetrieval",
    "evaluate",
    "evaluate_batch",
    "evaluate_rankings",
    "from_rankings",
    "from_run",
    "rank_order",
    "score_runs",
]
