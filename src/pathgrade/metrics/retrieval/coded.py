"""The common case of :func:`~pathgrade.metrics.retrieval.per_run.score_runs`, without a loop a run.

Applies to rankings in list order without ``parent_of``, where every run's ``retrieved`` is a
tuple or list of non-empty ``str`` ids (or ``RetrievedItem`` objects, of which only the id
counts) or None, and every gold is a tuple or list of ``str`` ids (gain 1 each) or None.

Every id, retrieved or gold, is replaced by an integer code, equal within a run if and only if
the strings are equal (one dict a block of runs), and run ``r``'s id of code ``c`` by the key
``r * K + c`` (``K`` above every code). The sorted distinct gold keys give each run's distinct
gold ids; a retrieved entry is gold when its key is among them (binary search); it is the first
occurrence of its id in its run when it leads its run's entries of that code once they are
sorted by (code, position). The result is the :class:`RankedBatch` that ``from_rankings``
builds from the same input, array for array."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import chain, compress, islice, repeat
from operator import is_not
from typing import cast

import numpy as np

from pathgrade.core.types import RetrievedItem
from pathgrade.metrics.retrieval.batch import BoolArray, Duplicates, IntArray, RankedBatch

_STR = frozenset({str})
_ITEMS = frozenset({str, RetrievedItem})
_LISTS_OR_NONE = frozenset({tuple, list, type(None)})
_MAX_KEY = 1 << 62
_BLOCK = 1 << 13  # ids a dict: small enough to stay in the cache
_VALUES = tuple(range(2 * _BLOCK))


@dataclass(frozen=True, eq=False)
class CodedRuns:
    """The batch of the runs with gold, and two masks over all runs.

    Attributes:
        batch: one query per run whose gold is not None, in run order; query ``j`` is named
            by its run index zero-padded to ``len(str(n_runs))`` digits.
        applicable: runs whose gold is not None.
        missing: runs whose ``retrieved`` is None.
    """

    batch: RankedBatch
    applicable: BoolArray
    missing: BoolArray


def _ids(entries: list[object]) -> list[str] | None:
    """``entries`` as ids when each is a ``str`` or a ``RetrievedItem`` with a ``str`` id."""
    kinds = set(map(type, entries))
    if kinds <= _STR:
        return entries  # type: ignore[return-value]
    if not kinds <= _ITEMS:
        return None
    ids = [e if type(e) is str else e.id for e in entries]  # type: ignore[attr-defined]
    return ids if set(map(type, ids)) <= _STR else None


def code_runs(
    retrieved: Sequence[Iterable[object] | None],
    gold: Sequence[object],
    *,
    duplicates: Duplicates,
) -> CodedRuns | None:
    """The batch ``from_rankings`` would build for these runs, or None outside the common case.

    Run ``i`` is ranked ``retrieved[i]`` (an empty ranking when None) against the gold ids
    ``gold[i]`` (each distinct id gain 1; the run is not a query when None). With
    ``duplicates="first"`` an id after its first occurrence in a run is dropped and later ranks
    close up; with ``"keep"`` nothing is dropped. None is returned, before any error is raised,
    when an input falls outside the common case (see the module docstring), so the general path
    can score it, or reject it, as it always has.
    """
    n = len(retrieved)
    if n == 0 or len(gold) != n:
        return None
    if not set(map(type, retrieved)) <= _LISTS_OR_NONE:
        return None
    if not set(map(type, gold)) <= _LISTS_OR_NONE:
        return None
    has_gold = list(map(is_not, gold, repeat(None)))
    golds = cast(list[Sequence[str]], list(compress(gold, has_gold)))
    if not golds:
        return None
    gold_flat: list[object] = list(chain.from_iterable(golds))
    # Every entry is now a tuple, a list or None.
    rankings = cast(list[Sequence[object]], [() if r is None else r for r in retrieved])
    ids = list(chain.from_iterable(rankings))
    lens = np.fromiter(map(len, rankings), np.int64, n)
    applicable = np.fromiter(has_gold, np.bool_, n)
    missing = np.fromiter(map(is_not, retrieved, repeat(None)), np.bool_, n)
    np.logical_not(missing, out=missing)
    m = len(golds)
    gold_lens = np.fromiter(map(len, golds), np.int64, m)
    gold_all = np.zeros(n, np.int64)
    gold_all[applicable] = gold_lens
    coded = _encode(ids, gold_flat, lens, gold_all)
    if coded is None:
        return None  # e.g. an empty id: the general path names the run in its error
    codes, gold_codes, width = coded
    if max(m * width, width << max(len(ids) - 1, 0).bit_length()) >= _MAX_KEY:
        return None  # the integer keys would overflow (far beyond any real batch)
    run_of = np.repeat(np.arange(n, dtype=np.int64), lens)
    if m < n:  # keep the runs with gold, renumbered 0..m-1
        query_of = np.cumsum(applicable) - 1
        kept = applicable[run_of]
        codes, run_of, lens = codes[kept], query_of[run_of[kept]], lens[applicable]
    gold_run = np.repeat(np.arange(m, dtype=np.int64), gold_lens)
    batch = _batch(codes, run_of, lens, gold_codes, gold_run, width, duplicates)
    rows = np.flatnonzero(applicable)
    fmt = f"%0{len(str(n))}d".__mod__  # the general path's query names: f"{i:0{width}d}"
    no_gold = np.flatnonzero(~applicable & ~missing)
    batch = replace(
        batch,
        query_ids=tuple(map(fmt, rows.tolist())),
        in_run=~missing[rows],
        not_in_gold=tuple(map(fmt, no_gold.tolist())),
    )
    return CodedRuns(batch, applicable, missing)


def _encode(
    ids: list[object], gold_flat: list[object], lens: IntArray, gold_lens: IntArray
) -> tuple[IntArray, IntArray, int] | None:
    """``(codes of ids, codes of gold_flat, width)``; None unless every retrieved entry is a
    non-empty id (a ``str``, or a ``RetrievedItem``'s id) and every gold entry a ``str``.

    Run ``i`` owns the next ``lens[i]`` ids and ``gold_lens[i]`` gold ids. Runs are taken in
    blocks of about ``_BLOCK`` ids, each checked then coded with its own dict (while its strings
    are still in the cache; a dict of a whole large batch misses the cache on every look-up).
    In a block of ``r`` retrieved ids, an id's code is the position of its first occurrence,
    counting the block's retrieved ids ``0..r-1`` then its gold ids ``r, r+1, ...``. So two ids
    of one run have equal codes if and only if they are equal strings; every code is below
    ``width``, the largest block.
    """
    offsets = np.zeros(lens.size + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    gold_offsets = np.zeros(lens.size + 1, np.int64)
    np.cumsum(gold_lens, out=gold_offsets[1:])
    # Block edges: the first run starting at or after each multiple of _BLOCK ids.
    both = offsets + gold_offsets
    firsts = np.searchsorted(both, np.arange(0, both[-1], _BLOCK))
    edges = [e for e in np.unique(firsts).tolist() if 0 < e < lens.size]
    codes = np.empty(len(ids), np.int64)
    gold_codes = np.empty(len(gold_flat), np.int64)
    starts, gold_starts = offsets.tolist(), gold_offsets.tolist()
    lo = width = 0
    for hi in [*edges, lens.size]:
        a, b, ga, gb = starts[lo], starts[hi], gold_starts[lo], gold_starts[hi]
        block, gold_block = _ids(ids[a:b]), gold_flat[ga:gb]
        if block is None or not set(map(type, gold_block)) <= _STR:
            return None
        size = b - a + gb - ga
        # Ready-made ints when the block fits: no int object is created a look-up.
        values: Iterable[int] = _VALUES if size <= len(_VALUES) else range(size)
        seen: dict[object, int] = {}
        codes[a:b] = np.fromiter(map(seen.setdefault, block, values), np.int64, b - a)
        if "" in seen:
            return None
        gold_values = islice(values, b - a, None)
        gold_codes[ga:gb] = np.fromiter(
            map(seen.setdefault, gold_block, gold_values), np.int64, gb - ga
        )
        width = max(width, size)
        lo = hi
    return codes, gold_codes, width


def _batch(
    codes: IntArray,
    run_of: IntArray,
    lens: IntArray,
    gold_codes: IntArray,
    gold_run: IntArray,
    width: int,
    duplicates: Duplicates,
) -> RankedBatch:
    """The batch of ``m = lens.size`` queries, unnamed and all in the run.

    ``codes[j]`` is the id code of retrieved entry ``j``, of query ``run_of[j]`` (queries in
    order, ranks in order within one); likewise ``gold_codes`` and ``gold_run``; every code is
    below ``width``; neither ``m * width`` nor ``width * 2**b`` (``2**b >= codes.size``) reaches
    ``2**62``.
    """
    m, n_ret = lens.size, codes.size
    # Distinct (query, gold id) keys, sorted.
    gold_keys = np.sort(gold_run * width + gold_codes)
    distinct = np.ones(gold_keys.size, np.bool_)
    np.not_equal(gold_keys[1:], gold_keys[:-1], out=distinct[1:])
    gold_keys = gold_keys[distinct]
    gold_lens = np.bincount(gold_keys // width, minlength=m).astype(np.int64, copy=False)
    # Retrieved entries that are gold: those whose id is gold somewhere (a table look-up),
    # then those whose (query, id) key is among the gold keys (a binary search).
    gold_code = np.zeros(width, np.bool_)
    gold_code[gold_codes] = True
    hit = np.flatnonzero(gold_code[codes])
    if hit.size:
        keys = run_of[hit] * width + codes[hit]
        slot = np.searchsorted(gold_keys, keys)
        np.minimum(slot, gold_keys.size - 1, out=slot)
        hit = hit[gold_keys[slot] == keys]
    offsets = np.zeros(m + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    if duplicates == "first":
        first = _first_in_run(codes, run_of)
        kept = np.zeros(n_ret + 1, np.int64)  # kept[j]: entries kept before entry j
        np.cumsum(first, out=kept[1:])
        hit = hit[first[hit]]
        hit_run = run_of[hit]
        hit_pos = kept[hit] - kept[offsets[hit_run]]
        n_kept = kept[offsets[1:]] - kept[offsets[:-1]]
        removed = n_ret - int(n_kept.sum())
    else:
        hit_run = run_of[hit]
        hit_pos = hit - offsets[hit_run]
        n_kept, removed = lens, 0
    return RankedBatch.from_flat(
        ("",) * m,
        hit_pos=hit_pos,
        hit_gain=np.ones(hit_pos.size),
        hit_lens=np.bincount(hit_run, minlength=m).astype(np.int64, copy=False),
        n_ret=n_kept,
        gold_gains=np.ones(gold_keys.size),
        gold_lens=gold_lens,
        in_run=np.ones(m, np.bool_),
        duplicates_removed=removed,
    )


def _first_in_run(codes: IntArray, run_of: IntArray) -> BoolArray:
    """Whether entry ``j`` is the first of its query with its code.

    Sorting ``code * 2**b + j`` (``j < 2**b``; one plain sort, no argsort) puts each code's
    entries together in entry order, hence each query's entries of that code together, first
    occurrence leading.
    """
    size = codes.size
    first = np.ones(size, np.bool_)
    if size < 2:
        return first
    bits = (size - 1).bit_length()
    packed = codes << bits
    packed |= np.arange(size, dtype=np.int64)
    packed.sort()
    entry = packed & ((1 << bits) - 1)
    packed >>= bits  # the codes, in sorted order
    run = run_of[entry]
    leads = np.empty(size, np.bool_)
    leads[0] = True
    np.not_equal(packed[1:], packed[:-1], out=leads[1:])
    leads[1:] |= run[1:] != run[:-1]
    first[entry] = leads
    return first
