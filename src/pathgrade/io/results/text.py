"""JSON text built column-wise: columns of byte strings joined by Arrow's string kernels.

Every array is ``large_binary`` (64-bit offsets), so a column of more than 2 GiB of text
does not overflow. A column of numbers is written by one ``orjson.dumps`` of the whole
column, then cut at its commas (which no number contains), so each value's text is
orjson's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pathgrade.core.results import FloatArray, MetricKind

TEXT = pa.large_binary()


def text_array(values: Sequence[bytes]) -> pa.Array:
    """``values`` as an Arrow array of text."""
    return pa.array(values, TEXT)


def text_piece(value: bytes) -> pa.Scalar:
    """``value`` as an Arrow scalar of text (joined to every row of the arrays it meets)."""
    return pa.scalar(value, TEXT)


def join_per_run(entries: pa.Array, offsets: npt.NDArray[np.int64]) -> pa.Array:
    """The texts of each run's entries joined by commas, in brackets: run ``r``'s entries
    are ``entries[offsets[r]:offsets[r + 1]]`` (``[]`` for a run without)."""
    lists = pa.LargeListArray.from_arrays(pa.array(offsets), entries)
    joined = pc.binary_join(lists, text_piece(b","))
    return pc.binary_join_element_wise(text_piece(b"["), joined, text_piece(b"]"), text_piece(b""))


def json_column(values: FloatArray, kind: MetricKind) -> list[Any]:
    """``[json_value(v, kind) for v in values]``, a column at a time."""
    column = values
    if kind == "count":
        defined = ~np.isnan(values)
        ints = np.zeros(values.shape, np.int64)
        ints[defined] = values[defined]
        column = ints  # type: ignore[assignment]
    out: list[Any] = column.tolist()
    undefined = np.flatnonzero(np.isnan(values)).tolist()
    if kind == "bool":
        out = [v != 0.0 for v in out]
    for position in undefined:
        out[position] = None
    return out


def colon_values(values: Sequence[Any]) -> pa.Array:
    """``b":" + orjson.dumps(v)`` for each of ``values`` (numbers, booleans, None), as one
    Arrow array: the whole list is dumped once and cut where its commas were."""
    if not values:
        return pa.array([], TEXT)
    body = b"," + orjson.dumps(list(values))[1:-1]
    cuts = np.flatnonzero(np.frombuffer(body, np.uint8) == ord(","))
    if cuts.size != len(values):
        raise ValueError("colon_values takes numbers, booleans and None only")
    offsets = np.append(cuts, len(body)).astype(np.int64)
    data = body.replace(b",", b":")
    return pa.Array.from_buffers(
        TEXT, len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def json_strings(texts: Sequence[str]) -> list[bytes]:
    """Each text as a JSON string (with its quotes), as orjson writes it."""
    return list(map(orjson.dumps, texts))


def joined(pieces: Sequence[pa.Array | pa.Scalar]) -> pa.Array:
    """Row ``i`` of the result: the texts of ``pieces`` at row ``i`` (a scalar: at every
    row), concatenated."""
    return pc.binary_join_element_wise(*pieces, text_piece(b""))
