"""The retrieval layer of ``pathgrade score``: each run's ``retrieved`` list against its gold.

One call scores a whole batch of runs with the same vectorised kernels as
:func:`~pathgrade.metrics.retrieval.evaluate.evaluate`; run ``i`` is query ``i``. The common
case (list order, no ``parent_of``, ``str`` ids) is converted without a loop a run by
:mod:`~pathgrade.metrics.retrieval.coded`, with the same result; any other input goes one run at
a time, as it always has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from pathgrade.core.errors import InputError
from pathgrade.core.types import RetrievedItem
from pathgrade.metrics.retrieval.batch import BoolArray, Duplicates, FloatArray, rank_order
from pathgrade.metrics.retrieval.coded import code_runs
from pathgrade.metrics.retrieval.evaluate import (
    RetrievalResult,
    evaluate_batch,
    evaluate_rankings,
    resolve_all,
)
from pathgrade.metrics.spec import MetricSpec


class HasId(Protocol):
    """What a retrieved item needs: ``pathgrade.core.types.RetrievedItem`` fits."""

    @property
    def id(self) -> str: ...

    @property
    def score(self) -> float | None: ...


Retrieved = str | HasId | Mapping[str, object]
Gold = Sequence[str] | Mapping[str, float]
Order = Literal["list", "score"]
_STR = frozenset({str})


@dataclass(frozen=True, eq=False)
class RunRetrieval:
    """Retrieval metrics for a batch of runs.

    Attributes:
        result: the batch result over the runs that have gold (query ids are run indices as
            zero-padded strings, so they sort in run order).
        values: ``{metric: array of length n_runs}``; ``nan`` for a run whose case has no
            ``gold_evidence`` (the layer does not apply) and for queries skipped by ``no_gold``.
        applicable: runs whose case has ``gold_evidence`` (not None).
        missing_retrieved: runs with ``retrieved`` None (scored as an empty ranking: 0).
    """

    result: RetrievalResult
    values: dict[str, FloatArray]
    applicable: BoolArray
    missing_retrieved: BoolArray

    def run_values(self, index: int) -> dict[str, float]:
        """``{metric: value}`` for run ``index``."""
        return {name: float(column[index]) for name, column in self.values.items()}


def _item(entry: Retrieved, run: int) -> tuple[str, float | None]:
    if isinstance(entry, str) and entry:
        return entry, None
    if isinstance(entry, Mapping):
        ident, score = entry.get("id"), entry.get("score")
    else:
        ident, score = getattr(entry, "id", None), getattr(entry, "score", None)
    if not isinstance(ident, str) or not ident:
        raise InputError(f"run {run}: a retrieved item needs a non-empty string id, got {entry!r}")
    if score is not None and not isinstance(score, int | float):
        raise InputError(f"run {run}: score must be a number, got {score!r}")
    return ident, None if score is None else float(score)


def _ranking(items: Iterable[Retrieved], order: Order, run: int) -> list[str]:
    if order == "list" and type(items) is tuple:
        # Fast paths for validated runs: bare ids (non-empty strings) and RetrievedItems.
        kinds = set(map(type, items))
        if kinds <= _STR and "" not in items:
            return list(items)
        ids = [
            entry if type(entry) is str else entry.id if type(entry) is RetrievedItem else None
            for entry in items
        ]
        if None not in ids and "" not in ids:
            return ids  # type: ignore[return-value]
    pairs = [_item(entry, run) for entry in items]
    if order == "list":
        return [ident for ident, _ in pairs]
    scores: dict[str, float] = {}
    for ident, score in pairs:
        if score is None:
            raise InputError(f"run {run}: order='score' needs a score on every item ({ident!r})")
        scores.setdefault(ident, score)  # first occurrence, as with duplicates="first"
    return rank_order(scores)


def _gold(gold: Gold, run: int) -> dict[str, float]:
    if isinstance(gold, Mapping):
        out: dict[str, float] = {}
        for ident, gain in gold.items():
            if isinstance(gain, bool) or not isinstance(gain, int | float):
                raise InputError(f"run {run}: gain of {ident!r} must be a number, got {gain!r}")
            out[str(ident)] = float(gain)
        return out
    if isinstance(gold, str):
        raise InputError(f"run {run}: gold_evidence must be a list of ids or {{id: gain}}")
    if type(gold) is tuple and set(map(type, gold)) <= _STR:
        return dict.fromkeys(gold, 1.0)
    return dict.fromkeys((str(ident) for ident in gold), 1.0)


def score_runs(
    retrieved: Sequence[Iterable[Retrieved] | None],
    gold: Sequence[Gold | None],
    metrics: Iterable[str | MetricSpec],
    *,
    order: Order = "list",
    duplicates: Duplicates = "first",
    parent_of: Mapping[str, str] | None = None,
) -> RunRetrieval:
    """Score run ``i``'s ``retrieved[i]`` against ``gold[i]`` for every metric.

    Args:
        retrieved: per run, the retrieved items in rank order (``str`` ids, objects with ``id``
            and ``score`` such as ``RetrievedItem``, or ``{"id", "score"}`` mappings); None when
            the run recorded no retrieval (it then scores as an empty ranking).
        gold: per run, the case's ``gold_evidence``: a sequence of ids (gain 1 each), a mapping
            ``{id: gain}``, or None when the case has none (the run's values are ``nan``).
        metrics: specs such as ``"recall@5"`` or ``"ndcg@10(gain=linear)"``.
        order: ``list`` ranks by list position (default); ``score`` by score descending, ties
            by id descending (trec_eval).
        duplicates: ``first`` drops repeated ids after their first occurrence; ``keep``.
        parent_of: chunk id -> parent id, to count chunks of one document once.

    Returns:
        A :class:`RunRetrieval` with one array of length ``len(retrieved)`` per metric.
    """
    if len(retrieved) != len(gold):
        raise InputError(f"{len(retrieved)} retrieved lists but {len(gold)} gold entries")
    specs = resolve_all(metrics)
    if order == "list" and parent_of is None:
        coded = code_runs(retrieved, gold, duplicates=duplicates)
        if coded is not None:  # the common case, without a loop a run (same result)
            result = evaluate_batch(coded.batch, specs)
            return _per_run(result, coded.applicable, coded.missing)
    return _score_general(retrieved, gold, specs, order, duplicates, parent_of)


def _score_general(
    retrieved: Sequence[Iterable[Retrieved] | None],
    gold: Sequence[Gold | None],
    specs: tuple[MetricSpec, ...],
    order: Order,
    duplicates: Duplicates,
    parent_of: Mapping[str, str] | None,
) -> RunRetrieval:
    """:func:`score_runs` for any input, one run at a time."""
    n = len(retrieved)
    # Zero-padded run numbers: sorted as text, they keep the runs' order.
    width = max(len(str(n)), 1)
    keys = [f"{i:0{width}d}" for i in range(n)]
    qrels: dict[str, dict[str, float]] = {}
    rankings: dict[str, list[str]] = {}
    applicable = np.zeros(n, np.bool_)
    missing = np.zeros(n, np.bool_)
    for i, (items, evidence) in enumerate(zip(retrieved, gold, strict=True)):
        key = keys[i]
        if items is None:
            missing[i] = True
        else:
            rankings[key] = _ranking(items, order, i)
        if evidence is not None:
            applicable[i] = True
            qrels[key] = _gold(evidence, i)
    result = evaluate_rankings(qrels, rankings, specs, duplicates=duplicates, parent_of=parent_of)
    return _per_run(result, applicable, missing)


def _per_run(result: RetrievalResult, applicable: BoolArray, missing: BoolArray) -> RunRetrieval:
    """Spread the values of the applicable runs' queries over all runs (``nan`` elsewhere)."""
    rows = np.flatnonzero(applicable)
    values: dict[str, FloatArray] = {}
    for metric in result.metrics:
        column = np.full(applicable.size, np.nan)
        column[rows] = metric.values
        values[metric.name] = column
    return RunRetrieval(result, values, applicable, missing & applicable)
