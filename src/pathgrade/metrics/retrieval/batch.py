"""Turn qrels and runs into small padded arrays once; every metric is then an array operation.

Only the retrieved documents that are in the gold matter to any metric, so a
:class:`RankedBatch` holds, for ``n`` queries:

* ``hit_pos[n, H]``: the 0-based rank of each retrieved gold document (any gain, even 0 or
  negative), ascending; padding is :data:`NO_RANK`;
* ``hit_gain[n, H]``: the gold gain of that document (``nan`` padding);
* ``n_ret[n]``: the length of each ranking (after duplicate and parent collapsing);
* ``gold[n, M]``: every gold gain of the query, sorted in decreasing order (``nan`` padding);
* ``in_run[n]``: whether the run has the query at all (missing queries score 0, as
  ``trec_eval -c``).

Ranking order for scored runs is trec_eval's: score descending, ties broken by document id
descending (code-point order, which is the byte order trec_eval's ``strcmp`` uses on UTF-8).
The rank of a gold document is the number of documents with a higher score plus the number with
the same score and a larger id, so runs are never sorted. The rank column of a TREC run is never
used.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from operator import methodcaller
from typing import Any, Literal

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
_values = methodcaller("values")


#: Rank given to padding slots of ``hit_pos`` (never below any cut-off).
NO_RANK = np.iinfo(np.int64).max // 4
_CHUNK = 1 << 22  # elements per comparison block when ranking gold documents


@dataclass(frozen=True, eq=False)
class RankedBatch:
    """Padded arrays for a batch of queries (see the module docstring)."""

    query_ids: tuple[str, ...]
    hit_pos: IntArray
    hit_gain: FloatArray
    n_ret: IntArray
    gold: FloatArray
    in_run: BoolArray
    duplicates_removed: int = 0
    not_in_gold: tuple[str, ...] = ()

    @classmethod
    def from_flat(
        cls,
        query_ids: tuple[str, ...],
        *,
        hit_pos: IntArray,
        hit_gain: FloatArray,
        hit_lens: IntArray,
        n_ret: IntArray,
        gold_gains: FloatArray,
        gold_lens: IntArray,
        in_run: BoolArray,
        duplicates_removed: int = 0,
        not_in_gold: tuple[str, ...] = (),
    ) -> RankedBatch:
        """Pad flat per-query arrays into a batch.

        Query ``i`` owns the next ``hit_lens[i]`` entries of ``hit_pos`` (0-based ranks of its
        retrieved gold documents) and ``hit_gain`` (their gains), and the next ``gold_lens[i]``
        entries of ``gold_gains`` (every gold gain); the other arrays have one entry a query.
        """
        positions, gains = _hits(
            _padded(hit_pos, hit_lens, NO_RANK), _padded(hit_gain, hit_lens, _NAN)
        )
        return cls(
            query_ids=query_ids,
            hit_pos=positions,
            hit_gain=gains,
            n_ret=n_ret,
            gold=_sorted_desc(_padded(gold_gains, gold_lens, _NAN)),
            in_run=in_run,
            duplicates_removed=duplicates_removed,
            not_in_gold=not_in_gold,
        )

    @property
    def missing_in_run(self) -> tuple[str, ...]:
        """Queries in the gold that the run does not have (each scores 0 and counts)."""
        pairs = zip(self.query_ids, self.in_run.tolist(), strict=True)
        return tuple(q for q, present in pairs if not present)

    def __repr__(self) -> str:
        return (
            f"RankedBatch(queries={len(self.query_ids)}, "
            f"max_retrieved={int(self.n_ret.max(initial=0))}, "
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


def _floats(values: Iterable[object], count: int, what: str) -> FloatArray:
    try:
        out = np.fromiter(values, np.float64, count)
    except (TypeError, ValueError) as error:
        raise InputError(f"every {what} must be a number ({error})") from None
    if what == "qrels gain" and np.isnan(out).any():
        raise InputError("a qrels gain is NaN; gains must be numbers")
    return out


def _padded(flat: npt.NDArray[Any], lens: IntArray, fill: float | int) -> npt.NDArray[Any]:
    """Rows of ``lens[i]`` consecutive values of ``flat``, right-padded with ``fill``."""
    width = max(int(lens.max(initial=0)), 1)
    out = np.full((lens.size, width), fill, dtype=flat.dtype)
    out[np.arange(width) < lens[:, None]] = flat
    return out


def _sorted_desc(gains: FloatArray) -> FloatArray:
    out = np.sort(-gains, axis=1)  # nan (padding) sorts last
    np.negative(out, out=out)
    return out


def _hits(positions: IntArray, gains: FloatArray) -> tuple[IntArray, FloatArray]:
    """Sort each row's (position, gain) slots by position; drop all-padding columns."""
    order = np.argsort(positions, axis=1, kind="stable")
    positions = np.take_along_axis(positions, order, axis=1)
    gains = np.take_along_axis(gains, order, axis=1)
    width = max(int((positions < NO_RANK).sum(axis=1).max(initial=0)), 1)
    return positions[:, :width], gains[:, :width]


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
    golds = list(map(qrels.__getitem__, qids))
    runs = list(map(run.get, qids, repeat(empty, n)))
    lens = np.fromiter(map(len, runs), np.int64, n)
    gold_lens = np.fromiter(map(len, golds), np.int64, n)
    n_gold = int(gold_lens.sum())
    scores = _floats(chain.from_iterable(map(_values, runs)), int(lens.sum()), "run score")
    if np.isnan(scores).any():
        raise InputError("a run score is NaN; scores must be numbers")
    gains = _floats(chain.from_iterable(map(_values, golds)), n_gold, "qrels gain")
    # The run score of each gold document (nan when it was not retrieved).
    gold_scores = _floats(
        chain.from_iterable(
            map(r.get, g, repeat(_NAN, len(g))) for r, g in zip(runs, golds, strict=True)
        ),
        n_gold,
        "run score",
    )
    full = n > 0 and bool((lens == lens[0]).all()) and int(lens[0]) > 0
    score_m = scores.reshape(n, int(lens[0])) if full else _padded(scores, lens, _NAN)
    gold_score_m = _padded(gold_scores, gold_lens, _NAN)
    gain_m = _padded(gains, gold_lens, _NAN)
    positions = _gold_ranks(score_m, gold_score_m, runs, golds)
    hit_pos, hit_gain = _hits(positions, np.where(positions < NO_RANK, gain_m, _NAN))
    return RankedBatch(
        query_ids=qids,
        hit_pos=hit_pos,
        hit_gain=hit_gain,
        n_ret=lens,
        gold=_sorted_desc(gain_m),
        in_run=np.fromiter(map(run.__contains__, qids), np.bool_, n),
        not_in_gold=tuple(sorted(set(run) - set(qrels))),
    )


def _gold_ranks(
    score_m: FloatArray,
    gold_score_m: FloatArray,
    runs: Sequence[Mapping[str, float]],
    golds: Sequence[Mapping[str, float]],
) -> IntArray:
    """0-based rank of each gold document in its run (``NO_RANK`` when not retrieved).

    rank = #{score > s} + #{score == s and id > doc}; the second term is computed one by one,
    only for the rare gold documents that share their score with another document.
    """
    n, width = gold_score_m.shape
    higher = np.empty((n, width), np.int64)
    equal = np.empty((n, width), np.int64)
    step = max(1, _CHUNK // max(1, width * score_m.shape[1]))
    for lo in range(0, n, step):
        block = score_m[lo : lo + step, None, :]
        target = gold_score_m[lo : lo + step, :, None]
        higher[lo : lo + step] = (block > target).sum(axis=2)
        equal[lo : lo + step] = (block == target).sum(axis=2)
    retrieved = ~np.isnan(gold_score_m)
    ranks = np.where(retrieved, higher, NO_RANK)
    for i, j in zip(*np.nonzero(retrieved & (equal > 1)), strict=True):
        docs = list(golds[i])
        doc, score = docs[j], float(gold_score_m[i, j])
        ranks[i, j] += sum(1 for other, s in runs[i].items() if s == score and other > doc)
    return ranks


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
    lens = np.zeros(n, np.int64)
    hit_lens = np.zeros(n, np.int64)
    positions: list[int] = []
    gains: list[object] = []
    empty: list[str] = []
    for i, q in enumerate(qids):
        docs: Sequence[str] = rankings.get(q, empty)
        if duplicates == "first" or parent_of is not None:
            unique = list(dict.fromkeys(docs))
            removed += len(docs) - len(unique)
            docs = unique
        gold = qrels[q]
        found = [(rank, gold[doc]) for rank, doc in enumerate(docs) if doc in gold]
        lens[i], hit_lens[i] = len(docs), len(found)
        positions.extend(rank for rank, _ in found)
        gains.extend(gain for _, gain in found)
    gold_lens = np.fromiter((len(qrels[q]) for q in qids), np.int64, n)
    gold_gains = _floats(
        chain.from_iterable(qrels[q].values() for q in qids), int(gold_lens.sum()), "qrels gain"
    )
    return RankedBatch.from_flat(
        qids,
        hit_pos=np.asarray(positions, dtype=np.int64),
        hit_gain=_floats(gains, len(gains), "qrels gain"),
        hit_lens=hit_lens,
        n_ret=lens,
        gold_gains=gold_gains,
        gold_lens=gold_lens,
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
