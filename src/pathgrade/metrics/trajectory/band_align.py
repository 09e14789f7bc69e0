"""The alignment of :mod:`~pathgrade.metrics.trajectory.align`, computed on a diagonal band.

Same result as :func:`~pathgrade.metrics.trajectory.align.align` (the same lexicographic
optimum, the same ties), from the padded step codes instead of dense ``(B, R, A)`` equality
matrices, at a cost of ``(R + 1) * (D + 1)`` cells per pair instead of ``(R + 1) * (A + 1)``,
where ``D`` is the Levenshtein distance of the two tool sequences.

Why the band is exact: the combined cost of a cell is ``unit * tools + arguments`` with
``unit`` above any argument count, so every cell the trace-back visits, and every neighbour
whose cost decides a move there, lies on a tool-optimal path from ``(0, 0)`` to ``(R, A)``.
A cell ``(i, j)`` of a path of ``D`` tool edits has ``|j - i| + |(A - R) - (j - i)| <= D``
(each edit moves the path by at most one diagonal), so it lies on the diagonals
``j - i`` in ``[min(0, A - R) - s, max(0, A - R) + s]``, ``s = (D - |A - R|) // 2``. Costs of
band cells off those paths may be higher than in the full table; no decision reads them.
``D`` comes from rapidfuzz's bit-parallel Levenshtein distance (Hyyrö's algorithm, no width
limit), over the tool codes written as characters.

The DP itself runs in numba (:mod:`~pathgrade.metrics.trajectory.long_kernels`, about 3 ns a
band cell, each pair on its own band) or, as the fallback, in NumPy passes over
``(band, pairs)`` rows of pairs grouped by band width (about 25 ns a band cell).
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Levenshtein

from pathgrade.metrics.trajectory.align import (
    OP_DELETE,
    OP_INSERT,
    OP_NONE,
    OP_PAIR,
    Alignment,
)

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_DELETE_BIT, _INSERT_BIT, _START = 4, 8, 16  # as in align: insertion wins, then deletion
_INF = np.int32(1 << 29)
#: The code of the columns outside an agent path (before it, or past its pads).
AGENT_OUTSIDE = -7
#: Tool codes written as characters from here on (past the control characters).
_CHAR_BASE = 32
_SURROGATES = 0xD800


def tool_distances(
    ref_tool: IntArray, agent_tool: IntArray, ref_len: IntArray, agent_len: IntArray
) -> IntArray:
    """Levenshtein distance of each pair's tool sequences (rows of the padded codes)."""
    refs, agents = _texts(ref_tool, ref_len), _texts(agent_tool, agent_len)
    distance = Levenshtein.distance
    return np.fromiter(map(distance, refs, agents), dtype=np.int64, count=len(refs))


def _texts(codes: IntArray, lengths: IntArray) -> list[str] | list[list[int]]:
    """Each row's first ``lengths[b]`` codes as one string (a list of ints past the BMP's
    surrogates, which cannot be characters of a valid string)."""
    width = codes.shape[1]
    if codes.size and int(codes.max(initial=0)) + _CHAR_BASE >= _SURROGATES:
        return [row[:n] for row, n in zip(codes.tolist(), lengths.tolist(), strict=True)]
    chars = (codes + _CHAR_BASE).astype("<u4")
    chars[np.arange(width)[None, :] >= lengths[:, None]] = 0  # trailing NULs are dropped
    texts: list[str] = np.ascontiguousarray(chars).view(f"<U{width}").ravel().tolist()
    return texts


@cache
def compiled_kernels() -> ModuleType | None:
    """:mod:`~pathgrade.metrics.trajectory.long_kernels` (numba), imported on first use;
    None when numba is not installed or does not load (then the NumPy passes serve)."""
    try:
        from pathgrade.metrics.trajectory import long_kernels  # numba: loaded on first use
    except ImportError:
        return None
    return long_kernels


def kernels_loaded() -> bool:
    """:func:`compiled_kernels` has loaded the kernels already in this process."""
    return compiled_kernels.cache_info().currsize > 0 and compiled_kernels() is not None


def band_align(
    ref_tool: IntArray,
    agent_tool: IntArray,
    ref_key: IntArray,
    agent_key: IntArray,
    ref_len: IntArray,
    agent_len: IntArray,
    compiled: bool = True,
) -> Alignment:
    """Align every pair (as :func:`~pathgrade.metrics.trajectory.align.align`).

    ``ref_key``/``agent_key`` are the matching keys (equal and ``>= 0``: arguments match);
    the rows are padded; only each pair's first ``ref_len``/``agent_len`` codes are read.
    ``compiled``: the DP runs in the numba kernel of
    :mod:`~pathgrade.metrics.trajectory.long_kernels` when numba can be imported, else (and
    when False) in NumPy passes over rows of the band; the result is the same.
    """
    batch, width_r = ref_tool.shape
    width_a = agent_tool.shape[1]
    ops_width = width_r + width_a
    out = Alignment(
        ops=np.full((batch, ops_width), OP_NONE, dtype=np.int64),
        ref_pos=np.full((batch, ops_width), -1, dtype=np.int64),
        agent_pos=np.full((batch, ops_width), -1, dtype=np.int64),
        full_op=np.zeros((batch, ops_width), dtype=np.bool_),
        n_ops=np.zeros(batch, dtype=np.int64),
        distance=tool_distances(ref_tool, agent_tool, ref_len, agent_len),
        tool_pairs=np.zeros(batch, dtype=np.int64),
        full_pairs=np.zeros(batch, dtype=np.int64),
    )
    gap = np.abs(agent_len - ref_len)
    low = np.minimum(0, agent_len - ref_len) - (out.distance - gap) // 2
    band = out.distance + 1 - (out.distance - gap) % 2  # diagonals in the band
    kernels = compiled_kernels() if compiled else None
    if kernels is not None:
        kernels.band_dp(
            ref_tool, agent_tool, ref_key, agent_key, ref_len, agent_len, low, band,
            out.ops, out.ref_pos, out.agent_pos, out.full_op, out.n_ops, out.tool_pairs,
            out.full_pairs,
        )  # fmt: skip
        return out
    # Pairs of similar band widths together, so that a wide band never pads narrow ones.
    order = np.argsort(band, kind="stable")
    start = 0
    while start < batch:
        end = int(np.searchsorted(band[order], band[order[start]] * 1.5 + 8, side="right"))
        rows = order[start:end]
        _align_group(
            out, rows, ref_tool[rows], agent_tool[rows], ref_key[rows], agent_key[rows],
            ref_len[rows], agent_len[rows], low[rows], int(band[rows].max()),
        )  # fmt: skip
        start = end
    return out


def _align_group(
    out: Alignment,
    rows: IntArray,
    ref_tool: IntArray,
    agent_tool: IntArray,
    ref_key: IntArray,
    agent_key: IntArray,
    ref_len: IntArray,
    agent_len: IntArray,
    low: IntArray,
    width: int,
) -> None:
    """The band DP and trace-back of the pairs ``rows``; band cell ``k`` of row ``i`` is
    agent column ``j = i + low + k``. Writes the pairs' rows of ``out``."""
    batch = rows.size
    n_rows = int(ref_len.max(initial=0))
    width_a = agent_tool.shape[1]
    unit = np.int32(n_rows + int(agent_len.max(initial=0)) + 1)
    band_cols = np.arange(width, dtype=np.int64)[:, None]  # (W, 1)
    ramp = (band_cols * unit).astype(np.int32)
    cost = np.empty((n_rows + 1, width, batch), dtype=np.int32)
    move = np.empty((n_rows + 1, width, batch), dtype=np.int8)
    j0 = low[None, :] + band_cols  # (W, B): the agent column of row 0's band cells
    cost[0] = np.where((j0 >= 0) & (j0 <= agent_len), j0 * unit, _INF)
    move[0] = np.where(j0 == 0, _START, _INSERT_BIT)
    # The pair code (tool + 2 * full) of every band cell at once, from agent rows padded on
    # both sides so that every band cell reads inside them; code 4: no pair (column 0).
    pad = width + 1
    padded = pad + width_a + n_rows + width + 1  # rows past a shorter pair's end read on
    tools = np.full((batch, padded), AGENT_OUTSIDE, dtype=np.int64)
    tools[:, pad : pad + width_a] = agent_tool
    keys = np.full((batch, padded), AGENT_OUTSIDE, dtype=np.int64)
    keys[:, pad : pad + width_a] = agent_key
    before = np.zeros((batch, padded), dtype=np.int8)
    before[:, :pad] = 4
    start = (pad - 1 + low + np.arange(batch) * padded).astype(np.int32)
    at = start[None, None, :] + np.arange(width, dtype=np.int32)[None, :, None]
    at = at + np.arange(1, n_rows + 1, dtype=np.int32)[:, None, None]  # (R, W, B)
    ref_t = ref_tool.T[:n_rows, None, :]
    ref_k = ref_key.T[:n_rows, None, :]
    tool = tools.reshape(-1).take(at) == ref_t
    kind = before.reshape(-1).take(at)
    kind += tool.view(np.int8)
    tool &= ref_k >= 0  # a full match needs arguments to match
    kind += 2 * ((keys.reshape(-1).take(at) == ref_k) & tool).view(np.int8)
    del at, tool
    pair_cost = np.array([unit, 1, 0, 0, _INF, _INF], dtype=np.int32).take(kind)
    kind[kind >= 4] = 0
    deleting = np.zeros((n_rows + 1, width, batch), dtype=np.bool_)
    inserting = np.zeros((n_rows + 1, width, batch), dtype=np.bool_)
    deletion = np.empty((width, batch), dtype=np.int32)
    deletion[-1] = _INF
    for i in range(1, n_rows + 1):
        prev, row = cost[i - 1], cost[i]
        np.add(prev, pair_cost[i - 1], out=row)  # by a pair
        np.add(prev[1:], unit, out=deletion[:-1])
        np.less_equal(deletion, row, out=deleting[i])
        np.minimum(row, deletion, out=row)
        # row[k] = min(row[k], row[k - 1] + unit): row - ramp is a running minimum.
        row -= ramp
        np.minimum.accumulate(row, axis=0, out=row)
        row += ramp
        np.add(row[:-1], unit, out=deletion[:-1])
        np.equal(row[1:], deletion[:-1], out=inserting[i, 1:])
        np.minimum(row, _INF, out=row)
    move[1:] = kind
    move += deleting.view(np.int8) * np.int8(_DELETE_BIT)
    move += inserting.view(np.int8) * np.int8(_INSERT_BIT)
    _trace(out, rows, move, ref_len, agent_len, low)


def _trace(
    out: Alignment,
    rows: IntArray,
    move: npt.NDArray[np.int8],
    ref_len: IntArray,
    agent_len: IntArray,
    low: IntArray,
) -> None:
    """Walk back from ``(R, A)`` of each pair and write its ops, left-aligned."""
    _, width, batch = move.shape
    cols = np.arange(batch)
    i, k = ref_len.copy(), agent_len - ref_len - low
    steps = int((ref_len + agent_len).max(initial=0))
    codes = np.empty((steps, batch), dtype=np.int8)
    at_i = np.empty((steps, batch), dtype=np.int64)
    at_j = np.empty((steps, batch), dtype=np.int64)
    flat = move.reshape(-1)
    codes_all = np.arange(_START + 1)
    inserts = (codes_all >= _INSERT_BIT) & (codes_all != _START)
    deletes = (codes_all >= _DELETE_BIT) & ~inserts & (codes_all != _START)
    step_k = (deletes.astype(np.int64) - inserts).astype(np.int64)
    step_i = (codes_all < _INSERT_BIT).astype(np.int64)  # a pair or a deletion
    for t in range(steps):
        code = flat.take((i * width + k) * batch + cols)
        codes[t], at_i[t], at_j[t] = code, i, k
        k += step_k.take(code)
        i -= step_i.take(code)
    at_j += at_i + low[None, :]
    starting = codes == _START
    n_ops = (~starting).sum(axis=0)
    op = np.select(
        [starting, codes >= _INSERT_BIT, codes >= _DELETE_BIT], [OP_NONE, OP_INSERT, OP_DELETE],
        OP_PAIR,
    )  # fmt: skip
    ref_pos = np.where((op == OP_PAIR) | (op == OP_DELETE), at_i - 1, -1)
    agent_pos = np.where((op == OP_PAIR) | (op == OP_INSERT), at_j - 1, -1)
    full = (op == OP_PAIR) & (codes & 2 > 0)
    out.tool_pairs[rows] = ((op == OP_PAIR) & (codes & 1 > 0)).sum(axis=0)
    out.full_pairs[rows] = full.sum(axis=0)
    out.n_ops[rows] = n_ops
    # Op k of pair b is traced move n_ops[b] - 1 - k (moves were traced from the end).
    take = n_ops[None, :] - 1 - np.arange(steps)[:, None]
    valid = take >= 0
    take = np.maximum(take, 0) * batch + cols
    for target, source, pad in (
        (out.ops, op, OP_NONE),
        (out.ref_pos, ref_pos, -1),
        (out.agent_pos, agent_pos, -1),
        (out.full_op, full, False),
    ):
        target[rows, :steps] = np.where(valid, source.reshape(-1).take(take), pad).T
