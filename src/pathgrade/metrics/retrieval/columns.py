"""Qrels and runs as columns: one row per (query, document, value), ids as UTF-8 bytes.

A :class:`Columns` holds three aligned arrays: ``query`` and ``doc`` (NumPy fixed-width bytes,
dtype ``S``, NUL padded; or, for ids too long for one fixed width or ending in a NUL byte,
object arrays of ``bytes``) and ``value`` (float64: a gain in qrels, a score in a run). It is
what the TREC reader produces without building a dict per query, and what
:func:`~pathgrade.metrics.retrieval.batch_columns.from_columns` turns into a
:class:`~pathgrade.metrics.retrieval.batch.RankedBatch` directly. The arrays are never
modified, so what is derived from them (hashes, the runs of equal queries, the count of
repeated rows) is computed once, on first use.

Rows are grouped by (query, doc) through a 64-bit key: a code of the query in the high bits,
a hash of the doc's bytes below. Rows with equal keys are compared byte for byte, so a hash
collision is never taken for a repeated document: the functions then take the dict path
(:meth:`Columns.to_mapping`), which is exact and slower.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from pathgrade.core.errors import InputError
from pathgrade.metrics.retrieval.batch import FloatArray, IntArray

#: ``S`` (fixed-width bytes) or object (``bytes``) array of ids.
IdArray = npt.NDArray[Any]
Repeated = Literal["max", "error"]
UInt64Array = npt.NDArray[np.uint64]

#: An id array is fixed width while rows x width stays within this many bytes (or 4 bytes a
#: row, whichever is larger); beyond, an object array of ``bytes`` is used.
FIXED_WIDTH_BYTES = 1 << 26
_HASH_ROWS = 1 << 16  # rows hashed at a time (the temporaries stay in the cache)
_GOLDEN = np.arange(1, 65, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


class KeyCollisionError(Exception):
    """Two different (query, doc) pairs got one key; the caller takes the exact dict path."""


@dataclass(frozen=True, eq=False)
class Columns:
    """Rows ``(query[i], doc[i], value[i])`` (see the module docstring).

    Attributes:
        query: UTF-8 query ids, ``S`` or object dtype.
        doc: UTF-8 document ids, ``S`` or object dtype.
        value: float64 gains (qrels) or scores (runs).
    """

    query: IdArray
    doc: IdArray
    value: FloatArray

    def __post_init__(self) -> None:
        sizes = {self.query.shape, self.doc.shape, self.value.shape}
        if len(sizes) != 1 or self.value.ndim != 1:
            raise InputError(f"columns must be 1-D and aligned, got shapes {sorted(sizes)}")

    def __len__(self) -> int:
        return int(self.value.size)

    def __repr__(self) -> str:
        return f"Columns(rows={len(self)}, query={self.query.dtype}, doc={self.doc.dtype})"

    @property
    def fixed(self) -> bool:
        """Whether both id arrays are fixed-width bytes (the vectorised paths apply)."""
        return self.query.dtype.kind == "S" and self.doc.dtype.kind == "S"

    @cached_property
    def doc_hashes(self) -> UInt64Array:
        """:func:`doc_hash` of ``doc``."""
        return doc_hash(self.doc)

    @cached_property
    def query_heads(self) -> IntArray:
        """The first row of each run of equal consecutive queries."""
        n = self.query.size
        if n == 0:
            return _no_rows()
        change = np.empty(n, np.bool_)
        change[0] = True
        np.not_equal(self.query[1:], self.query[:-1], out=change[1:])
        return np.flatnonzero(change)

    @cached_property
    def block_lengths(self) -> IntArray:
        """The number of rows of each run of equal consecutive queries."""
        return np.diff(np.append(self.query_heads, len(self)))

    @cached_property
    def queries(self) -> IdArray:
        """The distinct queries, sorted (byte order of UTF-8: code-point order)."""
        return sorted_distinct(self.query[self.query_heads])

    @property
    def one_block_a_query(self) -> bool:
        """Whether each query's rows are consecutive (as in every TREC file trec_eval writes)."""
        return bool(self.queries.size == self.query_heads.size)

    @cached_property
    def repeats(self) -> int:
        """How many rows repeat the (query, doc) of an earlier row."""
        if len(self) < 2:
            return 0
        if self.fixed:
            try:
                return _repeats(self)
            except KeyCollisionError:
                pass
        unique = sum(map(len, self.to_mapping("max").values()))
        return len(self) - unique

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Mapping[str, float]]) -> Columns:
        """``{query: {doc: value}}`` as rows, in mapping order (a query with no docs has none)."""
        queries: list[bytes] = []
        docs: list[bytes] = []
        values: list[float] = []
        for query, ranked in mapping.items():
            queries.extend([query.encode()] * len(ranked))
            docs.extend(doc.encode() for doc in ranked)
            values.extend(ranked.values())
        return cls(id_array(queries), id_array(docs), np.asarray(values, np.float64))

    def to_mapping(self, repeated: Repeated) -> dict[str, dict[str, float]]:
        """``{query: {doc: value}}`` in row order (queries and docs by first occurrence).

        A repeated (query, doc) keeps its largest value with ``repeated="max"`` (a run); with
        ``"error"`` (qrels) it is an :class:`InputError`, as a repeated judgment is.
        """
        out: dict[str, dict[str, float]] = {}
        rows = zip(decode(self.query), decode(self.doc), self.value.tolist(), strict=True)
        for query, doc, value in rows:
            ranked = out.setdefault(query, {})
            previous = ranked.get(doc)
            if previous is None:
                ranked[doc] = value
            elif repeated == "error":
                raise InputError(f"duplicate judgment for query {query!r}, document {doc!r}")
            else:
                ranked[doc] = max(previous, value)
        return out


def sorted_distinct(values: IdArray) -> IdArray:
    """``np.unique(values)`` (sorted, each value once) by a sort and a neighbour test:
    ``np.unique`` loads ``numpy.ma`` on first use, a fifth of ``pathgrade retrieval``'s
    start-up on a small file."""
    ordered = np.sort(values)
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, np.bool_)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def id_array(ids: list[bytes], budget: int = FIXED_WIDTH_BYTES) -> IdArray:
    """``ids`` as an ``S`` array, or an object array when one would exceed ``budget`` bytes
    (or 4 bytes a row, if larger) or an id ends with a NUL byte (``S`` would drop it)."""
    width = max(map(len, ids), default=1)
    if len(ids) * width > max(budget, 4 * len(ids)) or any(i.endswith(b"\0") for i in ids):
        out = np.empty(len(ids), object)
        out[:] = ids
        return out
    return np.array(ids, dtype=f"S{max(width, 1)}")


def decode(ids: IdArray) -> list[str]:
    """The ids as ``str`` (UTF-8)."""
    if ids.dtype.kind == "S" and ids.size and int(ids.view(np.uint8).max()) < 128:
        return ids.astype(f"U{ids.dtype.itemsize}").tolist()  # type: ignore[no-any-return]
    return [item.decode() for item in ids.tolist()]


def doc_hash(ids: IdArray) -> UInt64Array:
    """A 64-bit hash of each id's bytes that does not depend on the array's width.

    Word ``j`` (bytes ``8j..8j+7``, NUL padded) adds ``mix(word + (j + 1) * G)`` when it is
    not zero, ``mix`` being splitmix64's finaliser; so trailing NUL padding adds nothing.
    """
    n = ids.size
    width = ids.dtype.itemsize
    padded = -(-width // 8) * 8
    wide = ids if padded == width else ids.astype(f"S{padded}")
    words = np.ascontiguousarray(wide).view(np.uint64).reshape(n, padded // 8)
    out = np.zeros(n, np.uint64)
    x = np.empty(min(n, _HASH_ROWS), np.uint64)
    t = np.empty_like(x)
    for lo in range(0, n, _HASH_ROWS):
        hi = min(lo + _HASH_ROWS, n)
        xs, ts, acc = x[: hi - lo], t[: hi - lo], out[lo:hi]
        for j in range(words.shape[1]):
            word = words[lo:hi, j]
            np.add(word, _GOLDEN[j % _GOLDEN.size], out=xs)
            np.right_shift(xs, _S30, out=ts)
            xs ^= ts
            xs *= _MIX1
            np.right_shift(xs, _S27, out=ts)
            xs ^= ts
            xs *= _MIX2
            np.right_shift(xs, _S31, out=ts)
            xs ^= ts
            np.not_equal(word, 0, out=ts)  # 1 or 0: a NUL word adds nothing
            xs *= ts
            acc += xs
    return out


def keys(codes: IntArray, n_codes: int, hashes: UInt64Array) -> UInt64Array:
    """``code`` in the high ``b`` bits (``2**b >= n_codes``), the hash's high bits below it.

    Sorting the keys groups rows by code, in code order.
    """
    bits = max(n_codes - 1, 0).bit_length()
    if bits == 0:
        return hashes.copy()
    out = hashes >> np.uint64(bits)
    out |= codes.astype(np.uint64) << np.uint64(64 - bits)
    return out


@dataclass(frozen=True, eq=False)
class Groups:
    """Rows sorted by key; ``starts`` are the first sorted positions of each distinct pair."""

    order: IntArray
    sorted_keys: UInt64Array
    starts: IntArray


def group(row_keys: UInt64Array, docs: IdArray) -> Groups:
    """Sort rows by key and find the runs of equal (query, doc); equal keys of different docs
    raise :class:`KeyCollisionError` (the key's high bits already hold the query)."""
    order = np.argsort(row_keys)
    ordered = row_keys[order]
    same = ordered[1:] == ordered[:-1]
    if same.any():
        at = np.flatnonzero(same)
        if not np.array_equal(docs[order[at]], docs[order[at + 1]]):
            raise KeyCollisionError
    starts = np.flatnonzero(np.concatenate(([True], ~same))) if ordered.size else _no_rows()
    return Groups(order, ordered, starts)


def row_keys(columns: Columns) -> UInt64Array:
    """Each row's key, coding queries by their run of rows when each has one, else by
    their position in :attr:`Columns.queries`."""
    if columns.one_block_a_query:
        blocks = columns.query_heads.size
        codes = np.repeat(np.arange(blocks, dtype=np.int64), columns.block_lengths)
        return keys(codes, blocks, columns.doc_hashes)
    coded = query_codes(columns, columns.queries)
    return keys(coded.codes, columns.queries.size, columns.doc_hashes)


def _repeats(columns: Columns) -> int:
    row_key = row_keys(columns)
    ordered = np.sort(row_key)
    if not (ordered[1:] == ordered[:-1]).any():
        return 0
    return len(columns) - group(row_key, columns.doc).starts.size


def _no_rows() -> IntArray:
    return np.zeros(0, np.int64)


@dataclass(frozen=True, eq=False)
class QueryCodes:
    """Each row's query as its position in ``vocabulary`` (-1 when absent from it)."""

    codes: IntArray
    absent: tuple[str, ...]


def query_codes(columns: Columns, vocabulary: IdArray) -> QueryCodes:
    """Code each row's query against the sorted ``vocabulary``, one look-up per run of equal
    consecutive queries; ``absent`` lists, sorted, the queries not in it."""
    if len(columns) == 0:
        return QueryCodes(_no_rows(), ())
    heads = columns.query_heads
    head_codes, absent = block_codes(columns.query[heads], vocabulary)
    return QueryCodes(np.repeat(head_codes, columns.block_lengths), absent)


def block_codes(values: IdArray, vocabulary: IdArray) -> tuple[IntArray, tuple[str, ...]]:
    """Each value's position in the sorted ``vocabulary`` (-1 when absent) and the absent
    values, decoded and sorted."""
    if vocabulary.size:
        slot = np.minimum(np.searchsorted(vocabulary, values), vocabulary.size - 1)
        found = vocabulary[slot] == values
    else:
        slot, found = np.zeros(values.size, np.int64), np.zeros(values.size, np.bool_)
    codes = np.where(found, slot, -1).astype(np.int64, copy=False)
    absent = tuple(sorted(set(decode(values[~found])))) if not found.all() else ()
    return codes, absent


def distinct(columns: Columns) -> tuple[Columns, int]:
    """The rows with each (query, doc) once, keeping its largest value, and how many rows were
    dropped: ``columns`` itself when none repeats, else new rows grouped by query."""
    if columns.repeats == 0:
        return columns, 0
    if columns.fixed:
        try:
            groups = group(row_keys(columns), columns.doc)
            firsts = groups.order[groups.starts]
            values = np.maximum.reduceat(columns.value[groups.order], groups.starts)
            unique = Columns(columns.query[firsts], columns.doc[firsts], values)
            return unique, len(columns) - len(unique)
        except KeyCollisionError:
            pass
    unique = Columns.from_mapping(columns.to_mapping("max"))
    return unique, len(columns) - len(unique)
