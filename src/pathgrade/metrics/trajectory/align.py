"""Optimal edit-distance alignment of agent steps to reference steps, for whole batches.

The alignment minimises, lexicographically, (1) the Levenshtein distance over tool names
(insertions, deletions and substitutions of tools all cost 1), then (2) the number of aligned
pairs whose tools match but whose arguments do not. So it is always a shortest tool-level
edit script, and among those it pairs the steps that match in full.

Ties are broken the same way every time: walking back from the end, an extra agent step
(insertion) is preferred, then a missing reference step (deletion), then a pair, which pairs
each reference step with the *earliest* equivalent agent step.

Each step of the result is labelled ``match`` (tool and arguments), ``substitution`` (paired,
but not a full match: ``tool_match`` says whether the tool at least agreed), ``insertion``
(an agent step with no reference counterpart: extra) or ``deletion`` (a reference step with no
agent counterpart: missing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

OP_PAIR = 0
OP_INSERT = 1
OP_DELETE = 2
OP_NONE = -1


@dataclass(frozen=True)
class Alignment:
    """Alignment of a batch. Op ``k`` of pair ``b`` (in path order) is ``ops[b, k]``.

    ``ref_pos``/``agent_pos`` give the aligned indices (-1 for none); ``n_ops[b]`` ops are
    valid. Counts are per pair.
    """

    ops: IntArray
    ref_pos: IntArray
    agent_pos: IntArray
    full_op: BoolArray
    n_ops: IntArray
    distance: IntArray
    tool_pairs: IntArray
    full_pairs: IntArray


# The move into each DP cell, as a code: ``tool + 2 * full`` (0-3) of the pair there, plus
# 4 when a deletion is no dearer than the pair, plus 8 when an insertion is no dearer than
# either (an insertion wins, then a deletion); the start cell is _START.
_DELETE_BIT, _INSERT_BIT, _START = 4, 8, 16
_CODES = 32  # codes per cell in the look-up tables of a traced move

CostArray = npt.NDArray[np.signedinteger[Any]]
CodeArray = npt.NDArray[np.int8]


def _cost_dtype(width_r: int, width_a: int, unit: int) -> type[np.signedinteger[Any]]:
    """The smallest integer type that holds every cost and intermediate of the DP."""
    bound = (width_r + width_a + 2) * unit
    if bound < np.iinfo(np.int16).max:
        return np.int16
    if bound < np.iinfo(np.int32).max:
        return np.int32
    return np.int64


def _dp(
    tool_eq: BoolArray, full_eq: BoolArray, unit: int, dtype: type[np.signedinteger[Any]]
) -> tuple[CodeArray, CostArray]:
    """The DP over the whole batch: ``(move, cost)``, each ``(R + 1, A + 1, B)``.

    ``cost[i, j]`` is the cheapest script aligning the first ``i`` reference and ``j`` agent
    steps. The move into a cell is an insertion when that is no dearer than the rest, else a
    deletion when no dearer than the pair.
    """
    batch, width_r, width_a = tool_eq.shape
    shape = (width_r + 1, width_a + 1, batch)
    kind = np.add(tool_eq.view(np.int8), full_eq.view(np.int8) * np.int8(2))
    ramp = (np.arange(width_a + 1) * unit).astype(dtype)[:, None]
    cost = np.empty(shape, dtype=dtype)
    move = np.empty(shape, dtype=np.int8)
    move[0] = _INSERT_BIT
    move[:, 0] = _DELETE_BIT
    move[0, 0] = _START
    move[1:, 1:] = kind.transpose(1, 2, 0)
    cost[0] = ramp
    deletion = np.empty((width_a, batch), dtype=dtype)
    flag = np.empty((width_a, batch), dtype=np.bool_)
    bit = np.empty((width_a, batch), dtype=np.int8)
    saving = np.empty((width_a, batch), dtype=dtype)
    for i in range(1, width_r + 1):
        prev, row, moves = cost[i - 1], cost[i], move[i, 1:]
        np.add(prev[1:], dtype(unit), out=deletion)
        # pair cost = unit - (unit - 1) * tool - full (a full match implies a tool match: 0)
        best_dd = prev[:-1] + dtype(unit)
        best_dd -= np.multiply(moves & 1, dtype(unit - 1), out=saving, dtype=dtype)
        best_dd -= np.greater_equal(moves, 2, out=flag)
        np.less_equal(deletion, best_dd, out=flag)
        moves += np.multiply(flag.view(np.int8), np.int8(_DELETE_BIT), out=bit)
        np.minimum(best_dd, deletion, out=best_dd)
        # row[j] = min(row[j - 1] + unit, best_dd[j - 1]): row - ramp is a running minimum.
        best_dd -= ramp[1:]
        row[0] = i * unit
        for j in range(1, width_a + 1):
            np.minimum(row[j - 1], best_dd[j - 1], out=row[j])
        row += ramp
        np.add(row[:-1], dtype(unit), out=deletion)  # now: cost by insertion
        np.equal(row[1:], deletion, out=flag)
        moves += np.multiply(flag.view(np.int8), np.int8(_INSERT_BIT), out=bit)
    return move, cost


def _move_tables(width_r: int, width_a: int) -> tuple[IntArray, IntArray, IntArray, BoolArray]:
    """``(op, ref_pos, agent_pos, full)`` of the move coded ``c`` into cell ``q``, at
    ``q * _CODES + c`` (cell ``q`` is ``(q // (A + 1), q % (A + 1))``)."""
    cell, code = np.divmod(np.arange((width_r + 1) * (width_a + 1) * _CODES), _CODES)
    at_ref, at_agent = np.divmod(cell, width_a + 1)
    op = np.select(
        [code == _START, code >= _INSERT_BIT, code >= _DELETE_BIT],
        [OP_NONE, OP_INSERT, OP_DELETE],
        OP_PAIR,
    )
    ref_pos = np.where((op == OP_PAIR) | (op == OP_DELETE), at_ref - 1, -1)
    agent_pos = np.where((op == OP_PAIR) | (op == OP_INSERT), at_agent - 1, -1)
    return op, ref_pos, agent_pos, (op == OP_PAIR) & (code & 2 > 0)


def align(
    tool_eq: BoolArray, full_eq: BoolArray, ref_len: IntArray, agent_len: IntArray
) -> Alignment:
    """Align every pair of the batch (see module docstring)."""
    batch, width_r, width_a = tool_eq.shape
    unit = width_r + width_a + 1  # one tool edit outweighs any number of argument mismatches
    move, cost = _dp(tool_eq, full_eq, unit, _cost_dtype(width_r, width_a, unit))
    # Walk back from (R, A) on flat cell indices; a move's step depends only on its code.
    rows = np.arange(batch)
    cell = batch * (ref_len * (width_a + 1) + agent_len) + rows
    distance = cost.reshape(-1).take(cell).astype(np.int64) // unit
    back = np.zeros(_START + 1, dtype=np.int64)
    back[:_DELETE_BIT] = width_a + 2
    back[_DELETE_BIT:_INSERT_BIT] = width_a + 1
    back[_INSERT_BIT:_START] = 1
    back *= batch
    steps = int((ref_len + agent_len).max(initial=0))
    flat_move = move.reshape(-1)
    cells = np.empty((steps + 1, batch), dtype=np.int64)  # cells[t]: before move t from the end
    moves = np.empty((steps + 1, batch), dtype=np.int8)
    cells[steps] = rows
    moves[steps] = _START
    for t in range(steps):
        cells[t] = cell
        step = moves[t]
        flat_move.take(cell, out=step)
        cell -= back.take(step)
    traced = moves[:steps]
    n_ops = (traced != _START).sum(axis=0)
    tool_pairs = ((traced & ~2) == 1).sum(axis=0)  # codes 1 and 3
    full_pairs = ((traced & ~1) == 2).sum(axis=0)  # codes 2 and 3
    keys = cells
    keys -= rows
    keys //= batch
    keys *= _CODES
    keys += moves  # the look-up key of every traced move
    # Left-align: op k of pair b is move n_ops[b] - 1 - k from the end (else the start row).
    index = ((n_ops - 1) * batch + rows)[:, None] - batch * np.arange(width_r + width_a)
    np.maximum(index, (rows - batch)[:, None], out=index)  # negative: from the last row
    key = keys.reshape(-1).take(index)
    op, ref_pos, agent_pos, full = _move_tables(width_r, width_a)
    return Alignment(
        ops=op.take(key),
        ref_pos=ref_pos.take(key),
        agent_pos=agent_pos.take(key),
        full_op=full.take(key),
        n_ops=n_ops,
        distance=distance,
        tool_pairs=tool_pairs,
        full_pairs=full_pairs,
    )
