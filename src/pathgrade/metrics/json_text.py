"""JSON text built column-wise: columns of byte strings joined by Arrow's string kernels.

Every array is ``large_binary`` (64-bit offsets), so a column of more than 2 GiB of text
does not overflow.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

TEXT = pa.large_binary()


def text_array(values: Sequence[bytes]) -> pa.Array:
    """``values`` as an Arrow array of text."""
    return pa.array(values, TEXT)


def text_piece(value: bytes) -> pa.Scalar:
    """``value`` as an Arrow scalar of text (joined to every row of the arrays it meets)."""
    return pa.scalar(value, TEXT)


def join_per_run(entries: pa.Array, offsets: npt.NDArray[np.int32]) -> list[bytes]:
    """The texts of each run's entries joined by commas: run ``r``'s entries are
    ``entries[offsets[r]:offsets[r + 1]]`` (``b""`` for a run without). One bytes object per
    run, sliced from the joined buffer."""
    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), entries), text_piece(b","))
    n_runs = offsets.size - 1
    data = joined.buffers()[2].to_pybytes() if len(joined) else b""
    bounds = np.frombuffer(joined.buffers()[1], np.int64)[
        joined.offset : joined.offset + n_runs + 1
    ].tolist()
    return [data[a:b] for a, b in pairwise(bounds)]
