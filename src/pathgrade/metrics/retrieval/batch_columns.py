"""A :class:`~pathgrade.metrics.retrieval.batch.RankedBatch` built from columns, not dicts.

:func:`from_columns` gives, array for array, the batch that
:func:`~pathgrade.metrics.retrieval.batch.from_run` builds from the same rows as dicts
(``from_run(qrels.to_mapping("error"), run.to_mapping("max"))``), without a Python object a
row. Queries are coded against the sorted qrels queries; each query's scores and document
hashes are laid out in one row of a padded matrix, and each gold document is found in its
query's row by hash, then checked byte for byte. Ranks are counted as ``from_run`` counts
them: the documents with a higher score, plus those with the same score and a larger id (byte
order of UTF-8, which is code-point order).

Two layouts of the run are read without sorting it: each query's rows consecutive and no
(query, doc) repeated (every TREC run file in practice). Otherwise the rows are first sorted by
(query, doc) key, repeats keeping their largest score. Object id arrays (very long ids),
``parent_of`` and a key shared by two different pairs take the dict path, so the result is the
same in every case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pathgrade.core.errors import InputError
from pathgrade.metrics.retrieval.batch import (
    NO_RANK,
    BoolArray,
    FloatArray,
    IntArray,
    RankedBatch,
    _hits,
    _padded,
    _sorted_desc,
    from_run,
)
from pathgrade.metrics.retrieval.columns import (
    Columns,
    IdArray,
    KeyCollisionError,
    UInt64Array,
    block_codes,
    decode,
    group,
    keys,
    query_codes,
)

_NAN = float("nan")
_CHUNK = 1 << 22  # elements per comparison block when matching and ranking gold documents


def from_columns(
    qrels: Columns, run: Columns, *, parent_of: Mapping[str, str] | None = None
) -> RankedBatch:
    """Convert a run's rows against qrels rows (gains) into a batch.

    Queries are the qrels' queries in sorted order; run rows of other queries are ignored
    (listed in ``not_in_gold``). A (query, doc) repeated in ``run`` keeps its largest score (as
    :func:`pathgrade.io.trec.read_run` does); one repeated in ``qrels`` is an error. A query
    exists only through its rows (a dict's query without documents has none). The result
    equals ``from_run`` on the rows as dicts (see the module docstring), ``parent_of``
    included.
    """
    if parent_of is None and qrels.fixed and run.fixed:
        try:
            return _from_fixed(qrels, run)
        except KeyCollisionError:
            pass
    return from_run(qrels.to_mapping("error"), run.to_mapping("max"), parent_of=parent_of)


@dataclass(frozen=True, eq=False)
class _Layout:
    """A run's distinct rows of the gold's queries: query ``i`` holds rows
    ``start[i] .. start[i] + n_ret[i] - 1`` of ``docs``, ``scores`` and ``hashes``."""

    docs: IdArray
    scores: FloatArray
    hashes: UInt64Array
    start: IntArray
    n_ret: IntArray
    not_in_gold: tuple[str, ...]

    def matrix(self, values: npt.NDArray[Any], fill: float) -> npt.NDArray[Any]:
        """``values`` (scores or hashes, one a row) laid out one query a row, padded."""
        n = self.n_ret.size
        width = max(int(self.n_ret.max(initial=0)), 1)
        out = np.full((n, width), fill, dtype=values.dtype)
        if not values.size:
            return out
        kept = np.flatnonzero(self.n_ret)
        lens, start = self.n_ret[kept], self.start[kept]
        if values.size % width == 0 and bool(((lens == width) & (start % width == 0)).all()):
            out[kept] = values.reshape(-1, width)[start // width]  # whole rows of `width`
            return out
        query = np.repeat(kept, lens)
        offsets = np.cumsum(lens) - lens
        position = np.arange(int(lens.sum())) - np.repeat(offsets, lens)
        out[query, position] = values[np.repeat(self.start[kept], lens) + position]
        return out


def _blocks(run: Columns, vocabulary: IdArray) -> _Layout:
    """The run as it is: one run of rows a query, nothing repeated."""
    heads = run.query_heads
    codes, absent = block_codes(run.query[heads], vocabulary)
    present = codes >= 0
    start = np.zeros(vocabulary.size, np.int64)
    n_ret = np.zeros(vocabulary.size, np.int64)
    start[codes[present]] = heads[present]
    n_ret[codes[present]] = run.block_lengths[present]
    if absent:
        nan = np.flatnonzero(np.isnan(run.value))
        if nan.size and present[np.searchsorted(heads, nan, side="right") - 1].any():
            raise InputError("a run score is NaN; scores must be numbers")
    elif np.isnan(run.value).any():
        raise InputError("a run score is NaN; scores must be numbers")
    return _Layout(run.doc, run.value, run.doc_hashes, start, n_ret, absent)


def _sorted(run: Columns, vocabulary: IdArray) -> _Layout:
    """The run's rows sorted by (query, doc) key, each pair once with its largest score."""
    coded = query_codes(run, vocabulary)
    query, docs, scores, hashes = coded.codes, run.doc, run.value, run.doc_hashes
    if coded.absent:
        kept = np.flatnonzero(query >= 0)
        query, docs, scores, hashes = query[kept], docs[kept], scores[kept], hashes[kept]
    if np.isnan(scores).any():
        raise InputError("a run score is NaN; scores must be numbers")
    groups = group(keys(query, vocabulary.size, hashes), docs)
    firsts = groups.order[groups.starts]
    if groups.starts.size < scores.size:
        scores = np.maximum.reduceat(scores[groups.order], groups.starts)
    else:
        scores = scores[groups.order]
    n_ret = np.bincount(query[firsts], minlength=vocabulary.size).astype(np.int64, copy=False)
    start = np.cumsum(n_ret) - n_ret
    return _Layout(docs[firsts], scores, hashes[firsts], start, n_ret, coded.absent)


def _from_fixed(qrels: Columns, run: Columns) -> RankedBatch:
    vocabulary, gold_query = np.unique(qrels.query, return_inverse=True)
    gold_query = gold_query.reshape(-1).astype(np.int64, copy=False)
    n = vocabulary.size
    if qrels.repeats:
        qrels.to_mapping("error")  # raises, naming the first repeated judgment
    if run.one_block_a_query and run.repeats == 0:
        layout = _blocks(run, vocabulary)
    else:
        layout = _sorted(run, vocabulary)
    if np.isnan(qrels.value).any():
        raise InputError("a qrels gain is NaN; gains must be numbers")
    by_query = np.argsort(gold_query, kind="stable")
    gold_lens = np.bincount(gold_query, minlength=n).astype(np.int64, copy=False)
    gold_docs = qrels.doc[by_query]
    gain_m = _padded(qrels.value[by_query], gold_lens, _NAN)
    gold_hash_m = _padded(qrels.doc_hashes[by_query], gold_lens, 0)
    score_m: FloatArray = layout.matrix(layout.scores, _NAN)
    slot_m = _find(layout, gold_hash_m, gold_lens)
    retrieved = slot_m >= 0
    gold_start = np.cumsum(gold_lens) - gold_lens
    i, j = np.nonzero(retrieved)
    rows = layout.start[i] + slot_m[i, j]
    if not np.array_equal(layout.docs[rows], gold_docs[gold_start[i] + j]):
        raise KeyCollisionError
    gold_score_m = np.full(gain_m.shape, _NAN)
    gold_score_m[i, j] = layout.scores[rows]
    ties = _Ties(layout, gold_docs, gold_start)
    positions = _gold_ranks(score_m, gold_score_m, ties)
    hit_pos, hit_gain = _hits(positions, np.where(positions < NO_RANK, gain_m, _NAN))
    return RankedBatch(
        query_ids=tuple(decode(vocabulary)),
        hit_pos=hit_pos,
        hit_gain=hit_gain,
        n_ret=layout.n_ret,
        gold=_sorted_desc(gain_m),
        in_run=layout.n_ret > 0,
        not_in_gold=layout.not_in_gold,
    )


def _find(layout: _Layout, gold_hash_m: UInt64Array, gold_lens: IntArray) -> IntArray:
    """The position of each gold document in its query's rows (by hash), -1 when absent."""
    hash_m: UInt64Array = layout.matrix(layout.hashes, 0)
    n, width = hash_m.shape
    golds = gold_hash_m.shape[1]
    valid = np.arange(width) < layout.n_ret[:, None]
    gold_valid = np.arange(golds) < gold_lens[:, None]
    out = np.full((n, golds), -1, np.int64)
    step = max(1, _CHUNK // max(1, width * golds))
    for lo in range(0, n, step):
        same = hash_m[lo : lo + step, None, :] == gold_hash_m[lo : lo + step, :, None]
        same &= valid[lo : lo + step, None, :]
        hit = same.any(axis=2) & gold_valid[lo : lo + step]
        out[lo : lo + step] = np.where(hit, same.argmax(axis=2), -1)
    return out


class _Ties:
    """What breaking a score tie by document id needs: the run's rows and the gold ids."""

    def __init__(self, layout: _Layout, gold_docs: IdArray, gold_start: IntArray) -> None:
        self.layout, self.gold_docs, self.gold_start = layout, gold_docs, gold_start

    def larger_ids(self, query: int, slot: int, score: float) -> int:
        """How many of ``query``'s documents have ``score`` and an id above gold ``slot``'s."""
        lo = int(self.layout.start[query])
        hi = lo + int(self.layout.n_ret[query])
        doc = self.gold_docs[self.gold_start[query] + slot]
        same: BoolArray = self.layout.scores[lo:hi] == score
        return int(np.count_nonzero(self.layout.docs[lo:hi][same] > doc))


def _gold_ranks(score_m: FloatArray, gold_score_m: FloatArray, ties: _Ties) -> IntArray:
    """0-based rank of each gold document in its run (``NO_RANK`` when not retrieved):
    #{score > s} + #{score == s and id > doc}, the second term only where a score is shared."""
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
        ranks[i, j] += ties.larger_ids(int(i), int(j), float(gold_score_m[i, j]))
    return ranks
