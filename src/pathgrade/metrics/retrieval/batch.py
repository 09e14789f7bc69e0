"""Turn qrels and runs into padded arrays once; every metric is then an array operation.

A :class:`RankedBatch` holds, for ``n`` queries:

* ``gains[n, L]``: the gold gain of the document at each rank (``nan`` for a document that is not
  in the gold, and for padding past the end of a ranking);
* ``n_ret[n]``: the length of each ranking (after duplicate and parent collapsing);
* ``gold[n, M]``: every gold gain of the query, sorted in decreasing order (``nan`` padding);
* ``in_run[n]``: whether the run has the query at all (missing queries score 0, as
  ``trec_eval -c``).

Ranking order for scored runs is trec_eval's: score descending, ties broken by document id
descending (code-point order, which is the byte order trec_eval's ``strcmp`` uses on UTF-8).
The rank column of a TREC run is never used.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Literal

import numpy as np
import numpy.typing as npt

from pathgrade.core.errors import InputError

Qrels = Mapping[str, Mapping[str, float]]
Run = Mapping[str, Mapping[str, float]]
Rankings = Mapping[str, Sequence[str]]
Duplicates = Literal["first", "keep"]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_NAN = math.nan


@dataclass(frozen=True, eq=False)
class RankedBatch:
    """Padded arrays for a batch of queries (see the module docstring)."""

    query_ids: tuple[str, ...]
    gains: FloatArray
    n_ret: IntArray
    gold: FloatArray
    in_run: BoolArray
    duplicates_removed: int = 0
    not_in_gold: tuple[str, ...] = ()

    @property
    def missing_in_run(self) -> tuple[str, ...]:
        """Queries in the gold that the run does not have (each scores 0 and counts)."""
        pairs = zip(self.query_ids, self.in_run.tolist(), strict=True)
        return tuple(q for q, present in pairs if not present)

    def __repr__(self) -> str:
        return (
            f"RankedBatch(queries={len(self.query_ids)}, depth={self.gains.shape[1]}, "
            f"missing_in_run={int((~self.in_run).sum())})"
        )


def rank_order(docs: Mapping[str, float]) -> list[str]:
    """Document ids by score descending, ties by id descending (trec_eval's order)."""
    return sorted(docs, key=lambda doc: (docs[doc], doc), reverse=True)


def _check_qrels(qrels: Qrels) -> None:
    if not isinstance(qrels, Mapping):
        raise InputError(
            f"qrels must be a mapping query -> {{doc: gain}}, got {type(qrels).__name__}"
        )


def _gold_matrix(qrels: Qrels, qids: Sequence[str]) -> FloatArray:
    golds = [qrels[q] for q in qids]
    lens = np.fromiter(map(len, golds), np.int64, len(golds))
    flat = _floats(chain.from_iterable(g.values() for g in golds), int(lens.sum()), "qrels gain")
    width = max(int(lens.max(initial=0)), 1)
    matrix = np.full((len(golds), width), _NAN)
    rows, cols = _positions(lens)
    matrix[rows, cols] = -flat
    matrix.sort(axis=1)  # ascending of negated gains = descending gains; nan stays last
    np.negative(matrix, out=matrix)
    return matrix


def _floats(values: Iterable[object], count: int, what: str) -> FloatArray:
    try:
        out = np.fromiter(values, np.float64, count)
    except (TypeError, ValueError) as error:
        raise InputError(f"every {what} must be a number ({error})") from None
    return out


def _positions(lens: IntArray) -> tuple[IntArray, IntArray]:
    total = int(lens.sum())
    rows = np.repeat(np.arange(lens.size, dtype=np.int64), lens)
    starts = np.cumsum(lens) - lens
    cols = np.arange(total, dtype=np.int64) - np.repeat(starts, lens)
    return rows, cols


def from_run(
    qrels: Qrels,
    run: Run,
    *,
    parent_of: Mapping[str, str] | None = None,
) -> RankedBatch:
    """Convert a scored run ``{query: {doc: score}}`` against ``qrels`` ``{query: {doc: gain}}``.

    Queries are those of ``qrels`` in sorted order; run queries absent from the qrels are
    ignored (listed in ``not_in_gold``), as trec_eval does. With ``parent_of`` the ranking is
    first put in rank order, then collapsed to parents (see :func:`from_rankings`).
    """
    _check_qrels(qrels)
    if parent_of is not None:
        rankings = {q: rank_order(docs) for q, docs in run.items()}
        return from_rankings(qrels, rankings, parent_of=parent_of)
    qids = tuple(sorted(qrels))
    n = len(qids)
    empty: dict[str, float] = {}
    runs = [run.get(q, empty) for q in qids]
    in_run = np.fromiter((q in run for q in qids), np.bool_, n)
    lens = np.fromiter(map(len, runs), np.int64, n)
    total = int(lens.sum())
    scores = _floats(chain.from_iterable(r.values() for r in runs), total, "run score")
    if np.isnan(scores).any():
        raise InputError("a run score is NaN; scores must be numbers")
    gains = _floats(
        chain.from_iterable(
            map(qrels[q].get, r, repeat(_NAN, len(r))) for q, r in zip(qids, runs, strict=True)
        ),
        total,
        "qrels gain",
    )
    depth = max(int(lens.max(initial=0)), 1)
    rows, cols = _positions(lens)
    score_m = np.full((n, depth), -np.inf)
    score_m[rows, cols] = scores
    gain_m = np.full((n, depth), _NAN)
    gain_m[rows, cols] = gains
    gain_m = _sort_rows(score_m, gain_m, lens, runs, [qrels[q] for q in qids])
    return RankedBatch(
        query_ids=qids,
        gains=gain_m,
        n_ret=lens,
        gold=_gold_matrix(qrels, qids),
        in_run=in_run,
        not_in_gold=tuple(sorted(q for q in run if q not in qrels)),
    )


def _sort_rows(
    score_m: FloatArray,
    gain_m: FloatArray,
    lens: IntArray,
    runs: Sequence[Mapping[str, float]],
    golds: Sequence[Mapping[str, float]],
) -> FloatArray:
    """Reorder each row of ``gain_m`` by score descending, ties by doc id descending."""
    descending = (score_m[:, 1:] <= score_m[:, :-1]).all(axis=1)
    unsorted = np.flatnonzero(~descending)
    if unsorted.size:
        sub = score_m[unsorted]
        order = np.argsort(-sub, axis=1, kind="stable")
        gain_m[unsorted] = np.take_along_axis(gain_m[unsorted], order, axis=1)
        score_m[unsorted] = np.take_along_axis(sub, order, axis=1)
    # Rows with equal adjacent scores (among real entries) need the doc-id tie-break: rare, so
    # they are redone one by one with the exact trec_eval key.
    width = score_m.shape[1]
    if width > 1:
        real = np.arange(1, width) < lens[:, None]
        ties = np.flatnonzero(((score_m[:, 1:] == score_m[:, :-1]) & real).any(axis=1))
        for i in ties.tolist():
            get = golds[i].get
            ordered = [get(doc, _NAN) for doc in rank_order(runs[i])]
            gain_m[i, : len(ordered)] = _floats(ordered, len(ordered), "qrels gain")
    return gain_m


def from_rankings(
    qrels: Qrels,
    rankings: Rankings,
    *,
    duplicates: Duplicates = "first",
    parent_of: Mapping[str, str] | None = None,
) -> RankedBatch:
    """Convert rankings already in rank order ``{query: [doc, ...]}`` against ``qrels``.

    Args:
        qrels: ``{query: {doc: gain}}``; the queries evaluated, in sorted order.
        rankings: ``{query: [doc, ...]}`` best first. Queries not in ``qrels`` are ignored.
        duplicates: ``first`` keeps the first occurrence of a repeated id and drops the others
            (counted in ``duplicates_removed``); ``keep`` keeps every occurrence.
        parent_of: chunk id -> parent document id. Each retrieved id and each gold id is
            replaced by its parent (ids not in the map are their own parent); a parent's gold
            gain is the largest gain of its chunks; a parent retrieved several times counts once
            (its first position), whatever ``duplicates`` says.
    """
    _check_qrels(qrels)
    if parent_of is not None:
        qrels = {q: _collapse_gold(g, parent_of) for q, g in qrels.items()}
        rankings = {q: [parent_of.get(d, d) for d in docs] for q, docs in rankings.items()}
    qids = tuple(sorted(qrels))
    n = len(qids)
    removed = 0
    lists: list[Sequence[str]] = []
    empty: list[str] = []
    for q in qids:
        docs = rankings.get(q, empty)
        if duplicates == "first" or parent_of is not None:
            unique = list(dict.fromkeys(docs))
            removed += len(docs) - len(unique)
            docs = unique
        lists.append(docs)
    lens = np.fromiter(map(len, lists), np.int64, n)
    gains = _floats(
        chain.from_iterable(
            map(qrels[q].get, d, repeat(_NAN, len(d))) for q, d in zip(qids, lists, strict=True)
        ),
        int(lens.sum()),
        "qrels gain",
    )
    depth = max(int(lens.max(initial=0)), 1)
    gain_m = np.full((n, depth), _NAN)
    rows, cols = _positions(lens)
    gain_m[rows, cols] = gains
    return RankedBatch(
        query_ids=qids,
        gains=gain_m,
        n_ret=lens,
        gold=_gold_matrix(qrels, qids),
        in_run=np.fromiter((q in rankings for q in qids), np.bool_, n),
        duplicates_removed=removed,
        not_in_gold=tuple(sorted(q for q in rankings if q not in qrels)),
    )


def _collapse_gold(gold: Mapping[str, float], parent_of: Mapping[str, str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for doc, gain in gold.items():
        parent = parent_of.get(doc, doc)
        previous = out.get(parent)
        out[parent] = gain if previous is None else max(previous, gain)
    return out
