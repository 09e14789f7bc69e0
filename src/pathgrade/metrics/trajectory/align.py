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


# The move into each DP cell: a pair, a deletion, an insertion (2 or 3), or the start.
_PAIR, _DELETE, _START = 0, 1, 4
_OP_OF_MOVE = np.array([OP_PAIR, OP_DELETE, OP_INSERT, OP_INSERT, OP_NONE], dtype=np.int64)

CostArray = npt.NDArray[np.signedinteger[Any]]


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
) -> tuple[npt.NDArray[np.int8], CostArray, CostArray]:
    """The DP over the whole batch: ``(move, cost, pair_cost)``, each ``(R + 1, A + 1, B)``.

    ``cost[i, j]`` is the cheapest script aligning the first ``i`` reference and ``j`` agent
    steps. The move into a cell is an insertion when that is no dearer than the rest, else a
    deletion when no dearer than the pair (insertions are coded 2 + deletion bit).
    ``pair_cost[i, j]`` is the cost of pairing steps ``i - 1`` and ``j - 1``.
    """
    batch, width_r, width_a = tool_eq.shape
    shape = (width_r + 1, width_a + 1, batch)
    # pair cost = unit - (unit - 1) * tool - full (a full match implies a tool match: 0)
    saving = tool_eq.astype(dtype)
    saving *= dtype(unit - 1)
    saving += full_eq
    pair_cost = np.zeros(shape, dtype=dtype)
    np.subtract(dtype(unit), saving.transpose(1, 2, 0), out=pair_cost[1:, 1:])
    ramp = (np.arange(width_a + 1) * unit).astype(dtype)[:, None]
    cost = np.empty(shape, dtype=dtype)
    move = np.empty(shape, dtype=np.int8)
    cost[0] = ramp
    move[0] = 2  # insertions only
    move[:, 0] = _DELETE
    move[0, 0] = _START
    deletion = np.empty((width_a, batch), dtype=dtype)
    is_delete = np.empty((width_a, batch), dtype=np.bool_)
    is_insert = np.empty((width_a, batch), dtype=np.bool_)
    for i in range(1, width_r + 1):
        prev, row = cost[i - 1], cost[i]
        np.add(prev[1:], dtype(unit), out=deletion)
        best_dd = prev[:-1] + pair_cost[i, 1:]
        np.less_equal(deletion, best_dd, out=is_delete)
        np.minimum(best_dd, deletion, out=best_dd)
        # row[j] = min(row[j - 1] + unit, best_dd[j - 1]): row - ramp is a running minimum.
        best_dd -= ramp[1:]
        row[0] = i * unit
        for j in range(1, width_a + 1):
            np.minimum(row[j - 1], best_dd[j - 1], out=row[j])
        row += ramp
        np.add(row[:-1], dtype(unit), out=deletion)  # now: cost by insertion
        np.equal(row[1:], deletion, out=is_insert)
        moves = move[i, 1:]
        np.add(is_delete.view(np.int8), is_insert.view(np.int8), out=moves)
        moves += is_insert.view(np.int8)
    return move, cost, pair_cost


def align(
    tool_eq: BoolArray, full_eq: BoolArray, ref_len: IntArray, agent_len: IntArray
) -> Alignment:
    """Align every pair of the batch (see module docstring)."""
    batch, width_r, width_a = tool_eq.shape
    unit = width_r + width_a + 1  # one tool edit outweighs any number of argument mismatches
    move, cost, pair_cost = _dp(tool_eq, full_eq, unit, _cost_dtype(width_r, width_a, unit))
    # Walk back from (R, A) on flat cell indices; a move's step depends only on its code.
    rows = np.arange(batch)
    cell = batch * (ref_len * (width_a + 1) + agent_len) + rows
    distance = cost.reshape(-1).take(cell).astype(np.int64) // unit
    back = np.array([width_a + 2, width_a + 1, 1, 1, 0], dtype=np.int64) * batch
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
    n_ops = (moves[:steps] != _START).sum(axis=0)
    # Left-align: op k of pair b is move n_ops[b] - 1 - k from the end (row -1: none).
    from_end = n_ops[:, None] - 1 - np.arange(width_r + width_a)
    np.maximum(from_end, -1, out=from_end)  # -1: the last row, a start
    index = from_end * batch
    index += rows[:, None]
    cell_k = cells.reshape(-1).take(index)
    move_k = moves.reshape(-1).take(index)
    at_agent = (cell_k - rows[:, None]) // batch
    at_ref = at_agent // (width_a + 1)
    at_agent -= at_ref * (width_a + 1)
    is_pair = move_k == _PAIR
    takes_ref = move_k <= _DELETE
    takes_agent = is_pair | (move_k == 2) | (move_k == 3)
    paid = pair_cost.reshape(-1).take(cell_k)
    tool_op = is_pair & (paid <= 1)
    full_op = is_pair & ((paid == 0) | (paid == unit - 1))
    return Alignment(
        ops=_OP_OF_MOVE.take(move_k),
        ref_pos=np.where(takes_ref, at_ref - 1, -1),
        agent_pos=np.where(takes_agent, at_agent - 1, -1),
        full_op=full_op,
        n_ops=n_ops,
        distance=distance,
        tool_pairs=tool_op.sum(axis=1),
        full_pairs=full_op.sum(axis=1),
    )
