"""Batch evaluation: qrels + run (or rankings) + metric specs -> per-query arrays and aggregates.

Every function returns a :class:`RetrievalResult`, whatever the number of metrics: per-query
values as one array per metric, the macro mean (each scored query weighs the same), the micro
value (pooled counts) where it is defined, and how many queries were scored, skipped for lack of
gold, or missing from the run.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pathgrade.core.errors import InputError
from pathgrade.metrics.registry import resolve
from pathgrade.metrics.retrieval.batch import (
    Duplicates,
    FloatArray,
    Qrels,
    RankedBatch,
    Rankings,
    Run,
    from_rankings,
    from_run,
)
from pathgrade.metrics.retrieval.kernels import Prefixes, compute, micro
from pathgrade.metrics.spec import MetricSpec

LAYER = "retrieval"


@dataclass(frozen=True, eq=False)
class MetricResult:
    """One metric over a batch.

    Attributes:
        spec: the resolved spec; ``str(spec)`` is the metric's name in every output.
        values: per-query values, aligned with :attr:`RetrievalResult.query_ids`; ``nan`` for
            queries skipped for lack of gold (``no_gold=skip``).
        mean: macro average over the non-``nan`` values (``nan`` when there are none).
        micro: pooled value over the same queries as ``mean`` (e.g. sum of hits / sum of
            |G|; see :func:`~pathgrade.metrics.retrieval.kernels.micro` for each metric and
            ``no_gold`` policy), ``None`` when the metric has no pooled form (mrr, ap, map,
            dcg, ndcg) or the pooled denominator is 0.
        scored: number of queries averaged; ``no_gold``: queries without gold (whatever the
            policy did with them); ``skipped``: those left out of the mean.
    """

    spec: MetricSpec
    values: FloatArray
    mean: float
    micro: float | None
    scored: int
    no_gold: int
    skipped: int

    @property
    def name(self) -> str:
        return str(self.spec)

    def __repr__(self) -> str:
        pooled = "None" if self.micro is None else f"{self.micro:.6f}"
        return (
            f"MetricResult({self.name}: mean={self.mean:.6f}, micro={pooled}, "
            f"scored={self.scored}, skipped={self.skipped})"
        )


@dataclass(frozen=True, eq=False)
class RetrievalResult:
    """All requested metrics over one batch of queries (see the module docstring)."""

    query_ids: tuple[str, ...]
    metrics: tuple[MetricResult, ...]
    missing_in_run: tuple[str, ...]
    not_in_gold: tuple[str, ...]
    duplicates_removed: int

    def __getitem__(self, name: str | MetricSpec) -> MetricResult:
        key = str(name) if isinstance(name, MetricSpec) else name
        for item in self.metrics:
            if item.name == key:
                return item
        with contextlib.suppress(InputError):  # an alias or non-canonical spelling
            key = str(resolve(key, LAYER))
        for item in self.metrics:
            if item.name == key:
                return item
        raise KeyError(f"{name!r} was not computed; computed: {[m.name for m in self.metrics]}")

    def __iter__(self) -> Iterator[MetricResult]:
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

    def summary(self) -> dict[str, float]:
        """``{metric: macro mean}``."""
        return {m.name: m.mean for m in self.metrics}

    def micro(self) -> dict[str, float]:
        """``{metric: micro value}`` for the metrics that have one."""
        return {m.name: m.micro for m in self.metrics if m.micro is not None}

    def per_query(self) -> dict[str, dict[str, float]]:
        """``{query: {metric: value}}`` (``nan`` for skipped queries)."""
        columns = [(m.name, m.values.tolist()) for m in self.metrics]
        return {
            q: {name: values[i] for name, values in columns} for i, q in enumerate(self.query_ids)
        }

    def to_dict(self, *, per_query: bool = True) -> dict[str, Any]:
        """The JSON document of ``pathgrade retrieval --json`` (``nan`` becomes ``None``)."""
        doc: dict[str, Any] = {
            "summary": {k: _json_float(v) for k, v in self.summary().items()},
            "micro": {k: _json_float(v) for k, v in self.micro().items()},
            "per_query": self._json_per_query() if per_query else {},
            "queries": len(self.query_ids),
            "missing_in_run": len(self.missing_in_run),
            "not_in_gold": len(self.not_in_gold),
            "duplicates_removed": self.duplicates_removed,
            "counts": {
                m.name: {"scored": m.scored, "no_gold": m.no_gold, "skipped": m.skipped}
                for m in self.metrics
            },
        }
        return doc

    def _json_per_query(self) -> dict[str, dict[str, float | None]]:
        """:meth:`per_query` with ``nan`` as ``None``, built a column at a time."""
        names = [m.name for m in self.metrics]
        columns = []
        for m in self.metrics:
            values = m.values.astype(object)
            values[np.isnan(m.values)] = None
            columns.append(values.tolist())
        return {
            q: dict(zip(names, row, strict=True))
            for q, row in zip(self.query_ids, zip(*columns, strict=True), strict=True)
        }

    def __repr__(self) -> str:
        names = ", ".join(m.name for m in self.metrics)
        return (
            f"RetrievalResult(queries={len(self.query_ids)}, metrics=[{names}], "
            f"missing_in_run={len(self.missing_in_run)})"
        )


def _json_float(value: float) -> float | None:
    return None if math.isnan(value) else value


def resolve_all(metrics: Iterable[str | MetricSpec]) -> tuple[MetricSpec, ...]:
    """Parse and check retrieval specs; a metric requested twice is an error."""
    specs = tuple(resolve(m, LAYER) for m in metrics)
    names = [str(s) for s in specs]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise InputError(f"metric requested twice: {', '.join(twice)}", field="metric")
    if not specs:
        raise InputError("no metric requested", field="metric")
    return specs


def evaluate_batch(batch: RankedBatch, metrics: Iterable[str | MetricSpec]) -> RetrievalResult:
    """Compute ``metrics`` over an already converted batch."""
    specs = resolve_all(metrics)
    prefixes = Prefixes(batch)
    results: list[MetricResult] = []
    for spec in specs:
        values, has_gold = compute(spec, prefixes)
        scored_mask = ~np.isnan(values)
        scored = int(scored_mask.sum())
        mean = float(values[scored_mask].mean()) if scored else math.nan
        results.append(
            MetricResult(
                spec=spec,
                values=values,
                mean=mean,
                micro=micro(spec, prefixes, values, has_gold),
                scored=scored,
                no_gold=int((~has_gold).sum()),
                skipped=int(values.size - scored),
            )
        )
    return RetrievalResult(
        query_ids=batch.query_ids,
        metrics=tuple(results),
        missing_in_run=batch.missing_in_run,
        not_in_gold=batch.not_in_gold,
        duplicates_removed=batch.duplicates_removed,
    )


def evaluate(
    qrels: Qrels,
    run: Run,
    metrics: Iterable[str | MetricSpec],
    *,
    parent_of: Mapping[str, str] | None = None,
) -> RetrievalResult:
    """Evaluate a scored run ``{query: {doc: score}}`` against ``qrels`` ``{query: {doc: gain}}``.

    Ranking is by score descending, ties by doc id descending (trec_eval). Queries are those of
    ``qrels``; a query missing from the run scores 0 and counts (``trec_eval -c``); run queries
    not in ``qrels`` are ignored and listed in ``not_in_gold``. Inputs are not modified.

    >>> result = evaluate({"q": {"A": 1, "C": 1, "D": 1}},
    ...                   {"q": {"B": 5, "A": 4, "E": 3, "C": 2, "F": 1}},
    ...                   ["precision@5", "recall@5", "hit_rate@5"])
    >>> {k: round(v, 6) for k, v in result.summary().items()}
    {'precision@5': 0.4, 'recall@5': 0.666667, 'hit_rate@5': 1.0}
    """
    specs = resolve_all(metrics)
    return evaluate_batch(from_run(qrels, run, parent_of=parent_of), specs)


def evaluate_rankings(
    qrels: Qrels,
    rankings: Rankings,
    metrics: Iterable[str | MetricSpec],
    *,
    duplicates: Duplicates = "first",
    parent_of: Mapping[str, str] | None = None,
) -> RetrievalResult:
    """Evaluate rankings already in rank order ``{query: [doc, ...]}`` (no scores needed).

    ``duplicates="first"`` (default) drops repeated ids after their first occurrence and counts
    them; ``"keep"`` keeps them (each occurrence then counts as retrieved).
    """
    specs = resolve_all(metrics)
    batch = from_rankings(qrels, rankings, duplicates=duplicates, parent_of=parent_of)
    return evaluate_batch(batch, specs)
