"""Retrieval metrics: exact, vectorised, conformant with trec_eval (see ``docs/retrieval.md``).

Pure functions over whole batches; no I/O. Start with :func:`evaluate` (a scored run) or
:func:`evaluate_rankings` (ids already in rank order); inside ``pathgrade score`` use
:func:`score_runs`.

``RunRetrieval`` and ``score_runs`` are loaded on first use: their module needs the pydantic
run model, which ``pathgrade retrieval`` never does (start-up, issue 21).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pathgrade.metrics.retrieval.batch import RankedBatch, from_rankings, from_run, rank_order
from pathgrade.metrics.retrieval.evaluate import (
    MetricResult,
    RetrievalResult,
    evaluate,
    evaluate_batch,
    evaluate_rankings,
)

if TYPE_CHECKING:
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

_LAZY = ("RunRetrieval", "score_runs")


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pathgrade.metrics.retrieval import per_run

    value = getattr(per_run, name)
    globals()[name] = value
    return value
