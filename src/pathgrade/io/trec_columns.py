"""Read a TREC qrels or run file into columns with NumPy, on the raw bytes, block by block.

The fast path of :mod:`pathgrade.io.trec`. It reads what the per-line reader reads, under the
same rules (lines end at ``\\n``; columns are separated by runs of C ``isspace`` bytes, space
``\\t \\n \\v \\f \\r``, as trec_eval's tokenizer separates them; blank lines and lines whose
first column starts with ``#`` are comments; a leading byte order mark is skipped). The file is
read into one reused buffer of :data:`BLOCK_BYTES` (grown for a longer line), cut after its
last newline, and each block is split in a few passes:

1. the positions of every byte below ``!`` (whitespace and control bytes); any control byte
   that is not whitespace (NUL, ``\\x1c``...) sends the file to the per-line reader;
2. tokens are the gaps between consecutive whitespace positions; line ``l`` owns the tokens
   before its newline; data lines are those with a token whose first byte is not ``#``;
3. each wanted column is copied into a fixed-width ``S`` array (8-byte words read unaligned
   from the block, the bytes past each token's end masked off; ids over :data:`_SLACK` bytes
   as rows of a strided view), or into ``bytes`` objects where one width would not fit;
4. the number column is parsed by NumPy's bytes-to-float cast, which accepts exactly what
   ``float`` accepts for ASCII text.

Whatever it cannot decide gives ``None`` instead of an answer, and the caller reads the file
line by line, which raises the error with its line number (or, for input that is valid after
all, returns the same rows): a pipe or device rather than a regular file, invalid UTF-8, a
line over the limit, a data line with too few or too many columns, a number that does not
parse, is not finite or is not ASCII.
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from io import BufferedReader
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

from pathgrade.core.errors import InputError
from pathgrade.io.jsonl import BOM
from pathgrade.metrics.retrieval.batch import FloatArray, IntArray
from pathgrade.metrics.retrieval.columns import FIXED_WIDTH_BYTES, Columns, IdArray

#: Bytes read at a time (a block grows to hold a longer line, up to the line limit).
BLOCK_BYTES = 1 << 20  # 1 MiB: faster than 4 (the temporaries stay in the cache)
_BELOW_PRINTABLE = 33  # bytes below "!": whitespace and control bytes
#: C ``isspace`` in the "C" locale (trec_eval never sets one): the column breaks.
_IS_SPACE = np.zeros(256, np.bool_)
_IS_SPACE[[9, 10, 11, 12, 13, 32]] = True
_NEWLINE, _HASH = 10, 35
#: Readable bytes after every block, so an id of up to this many bytes is read as words.
_SLACK = 256
#: ``_LOW_BYTES[k]``: the mask of a word's first ``k`` bytes (little-endian words).
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], np.uint64)
Bytes = npt.NDArray[np.uint8]
_LITTLE_ENDIAN = sys.byteorder == "little"  # the word masks assume it


@dataclass(frozen=True)
class Layout:
    """Which columns a file has and which are read.

    Attributes:
        query, doc: the columns read as ids; ``number``: the one read as a float.
        tag: a column whose distinct values are collected (the run id), None for none.
        fewest, most: the number of columns a data line may have (``most`` None: any).
    """

    query: int
    doc: int
    number: int
    tag: int | None
    fewest: int
    most: int | None


QRELS = Layout(query=0, doc=2, number=3, tag=None, fewest=4, most=4)
RUN = Layout(query=0, doc=2, number=4, tag=5, fewest=5, most=None)


@dataclass(frozen=True, eq=False)
class Table:
    """The rows of a file (repeats kept, file order) and its distinct tags in order."""

    rows: Columns
    tags: tuple[str, ...]


def read_table(path: str | Path, layout: Layout, limit: int) -> Table | None:
    """The data lines of the regular file ``path`` as rows, or None to read it line by line.

    ``limit``: the longest line in bytes (its newline excluded; a leading byte order mark
    counts, as it does for the per-line reader).
    """
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 - closed by the with below; error first
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", file=str(path)) from None
    with handle:
        try:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            parts: list[tuple[IdArray, IdArray, FloatArray]] = []
            tags: dict[bytes, None] = {}
            for block in _blocks(handle, limit):
                part = _split_block(block, layout, tags)
                if part is None:
                    return None
                parts.append(part)
        except OSError as error:
            raise InputError(f"cannot read: {error.strerror}", file=str(path)) from None
    if not parts:
        empty = np.zeros(0, "S8")
        return Table(Columns(empty, empty, np.zeros(0)), ())
    query, doc, value = (_concatenate([p[k] for p in parts]) for k in range(3))
    return Table(Columns(query, doc, value), tuple(t.decode() for t in tags if t))


def _concatenate(arrays: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    if len(arrays) == 1:
        return arrays[0]
    if any(a.dtype.kind == "O" for a in arrays):
        return np.concatenate([a.astype(object) for a in arrays])
    return np.concatenate(arrays)


@dataclass(frozen=True, eq=False)
class _Block:
    """Bytes ``[start, end)`` of ``buffer`` hold whole lines; ``longest`` is the longest line
    allowed (less in the first block when it starts after a byte order mark). At least
    :data:`_SLACK` bytes of ``buffer`` follow ``end``."""

    buffer: bytearray
    start: int
    end: int
    longest: int


def _blocks(handle: BufferedReader, limit: int) -> Iterator[_Block]:
    """Whole lines of the file, one reused buffer at a time. A line found over ``limit``
    bytes ends the iteration with an empty block (the caller then reads line by line)."""
    buffer = bytearray(BLOCK_BYTES + _SLACK)
    filled, first = 0, True
    while True:
        got = handle.readinto(memoryview(buffer)[filled : len(buffer) - _SLACK])
        filled += got
        at_end = got == 0
        cut = filled if at_end else buffer.rfind(b"\n", 0, filled) + 1
        if cut == 0 and not at_end:  # no newline yet
            if filled > limit:
                yield _Block(buffer, 0, 0, limit)
                return
            if filled < len(buffer) - _SLACK:
                continue  # a short read: read on
            bigger = bytearray(2 * len(buffer))
            bigger[:filled] = buffer[:filled]
            buffer = bigger
            continue
        skip = len(BOM) if first and buffer.startswith(BOM) else 0
        if cut > skip:
            yield _Block(buffer, skip, cut, limit - skip)
        first = False
        if at_end:
            return
        buffer[: filled - cut] = buffer[cut:filled]
        filled -= cut


def _split_block(
    block: _Block, layout: Layout, tags: dict[bytes, None]
) -> tuple[IdArray, IdArray, FloatArray] | None:
    """(query, doc, number) of the block's data lines, its tags added to ``tags``; None when
    the block holds something the per-line reader must decide."""
    if block.end == block.start:
        return None  # a line over the limit
    whole = np.frombuffer(block.buffer, np.uint8)
    buffer = whole[block.start : block.end]
    size = buffer.size
    breaks = np.flatnonzero(buffer < _BELOW_PRINTABLE)
    kinds = buffer[breaks]
    if not _IS_SPACE[kinds].all():
        return None  # NUL or another control byte
    if int(buffer.max()) >= 128 and not _valid_utf8(buffer):
        return None
    newlines = np.flatnonzero(kinds == _NEWLINE)
    line_ends = breaks[newlines]
    if int(np.diff(line_ends, prepend=-1).max(initial=0)) - 1 > block.longest or (
        size - 1 - (int(line_ends[-1]) if line_ends.size else -1) > block.longest
    ):
        return None
    # Token slot k lies between bounds[k] and bounds[k + 1]; it is a token when not empty.
    starts = np.empty(breaks.size + 1, np.int64)
    starts[0] = block.start
    np.add(breaks, block.start + 1, out=starts[1:])
    ends = np.empty(breaks.size + 1, np.int64)
    np.add(breaks, block.start, out=ends[:-1])
    ends[-1] = block.end
    present = ends > starts
    if not present[-1] and present[:-1].all():  # the usual block: ends with a newline
        starts, ends = starts[:-1], ends[:-1]
        before = newlines + 1  # tokens before the newline at breaks[j]: j + 1
    elif present.all():
        before = newlines + 1
    else:
        slots = np.flatnonzero(present)
        starts, ends = starts[slots], ends[slots]
        before = np.searchsorted(slots, newlines, side="right")
    first = np.concatenate(([0], before))
    counts = np.append(before, starts.size) - first
    content = np.flatnonzero(counts)
    comment = whole[starts[first[content]]] == _HASH
    lines = content[~comment] if comment.any() else content
    first, counts = first[lines], counts[lines]
    if not lines.size:
        nothing = np.zeros(0, "S8")
        return nothing, nothing, np.zeros(0)
    if int(counts.min()) < layout.fewest or (
        layout.most is not None and int(counts.max()) > layout.most
    ):
        return None
    budget = max(FIXED_WIDTH_BYTES, 4 * size)

    def column(tokens: IntArray) -> IdArray:
        return _ids(whole, starts[tokens], ends[tokens], budget)

    numbers = _numbers(column(first + layout.number))
    if numbers is None:
        return None
    if layout.tag is not None:
        _add_tags(column(first[counts > layout.tag] + layout.tag), tags)
    return column(first + layout.query), column(first + layout.doc), numbers


def _valid_utf8(block: Bytes) -> bool:
    try:
        codecs.utf_8_decode(block.data, "strict", True)
    except UnicodeDecodeError:
        return False
    return True


def _numbers(ids: IdArray) -> FloatArray | None:
    """Finite floats, or None when one is not a finite ASCII number."""
    if ids.dtype.kind != "S" or (ids.size and int(ids.view(np.uint8).max()) >= 128):
        return None
    try:
        values = ids.astype(np.float64)
    except ValueError:
        return None
    return values if bool(np.isfinite(values).all()) else None


def _add_tags(values: IdArray, tags: dict[bytes, None]) -> None:
    if not values.size:
        return
    if values.dtype.kind == "S" and bool((values == values[0]).all()):
        tags.setdefault(values[0].tobytes().rstrip(b"\0"), None)
        return
    if values.dtype.kind == "S":
        distinct, first = np.unique(values, return_index=True)
        values = distinct[np.argsort(first)]
    for value in values.tolist():
        tags.setdefault(value, None)


def _ids(whole: Bytes, starts: IntArray, ends: IntArray, budget: int) -> IdArray:
    """Bytes ``[starts[i], ends[i])`` of ``whole`` as an ``S`` array whose width is a multiple
    of 8 (NUL padded; the ids hold no NUL), or an object array when that would take more than
    ``budget`` bytes.

    Up to :data:`_SLACK` bytes, each id is gathered as unaligned 64-bit words (the bytes after
    a block's end are readable slack), then the bytes past its end are masked off."""
    n = starts.size
    lengths = ends - starts
    longest = int(lengths.max()) if n else 1
    words = max(-(-longest // 8), 1)
    if n * words * 8 > budget:
        raw = whole.tobytes()
        out = np.empty(n, object)
        out[:] = [raw[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
        return out
    if words * 8 <= _SLACK and _LITTLE_ENDIAN:
        unaligned = np.ndarray((whole.size - 7,), np.uint64, whole, strides=(1,))
        step = np.arange(0, 8 * words, 8)
        if words == 1:
            row = unaligned[starts]  # (fancy indexing reads unaligned words fast; take does not)
            row &= _LOW_BYTES[np.minimum(lengths, 8)]
            return row.view("S8")
        rows = unaligned[starts[:, None] + step]
        rows &= _LOW_BYTES[np.clip(lengths[:, None] - step, 0, 8)]
        wide: IdArray = rows.view(f"S{8 * words}").reshape(n)
        return wide
    width = 8 * words  # wider than the slack: rows of bytes through a strided view
    last = whole.size - width  # the last start with `width` bytes after it
    rows8 = np.zeros((n, width), np.uint8)
    inside = starts <= last
    if last >= 0:
        view = as_strided(whole, (last + 1, width), (1, 1), writeable=False)
        rows8[inside] = view[starts[inside]]
    for i in np.flatnonzero(~inside).tolist():
        rows8[i, : lengths[i]] = whole[starts[i] : ends[i]]
    rows8[np.arange(width) >= lengths[:, None]] = 0
    out_ids: IdArray = rows8.view(f"S{width}").reshape(n)
    return out_ids


__all__ = ["BLOCK_BYTES", "QRELS", "RUN", "Layout", "Table", "read_table"]
