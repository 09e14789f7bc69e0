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


def align(
    tool_eq: BoolArray, full_eq: BoolArray, ref_len: IntArray, agent_len: IntArray
) -> Alignment:
    """Align every pair of the batch (see module docstring)."""
    batch, width_r, width_a = tool_eq.shape
    unit = width_r + width_a + 1  # one tool edit outweighs any number of argument mismatches
    # Batch axis last: every DP cell is one contiguous vector over the batch.
    tool_t = np.ascontiguousarray(tool_eq.transpose(1, 2, 0))
    full_t = np.ascontiguousarray(full_eq.transpose(1, 2, 0))
    pair_cost = np.where(tool_t, np.int32(1), np.int32(unit))
    pair_cost -= full_t  # a full match implies a tool match: 1 - 1 = 0
    cost = np.empty((width_r + 1, width_a + 1, batch), dtype=np.int32)
    choice = np.empty((width_r + 1, width_a + 1, batch), dtype=np.int8)
    cost[0, :, :] = (np.arange(width_a + 1, dtype=np.int32) * unit)[:, None]
    cost[:, 0, :] = (np.arange(width_r + 1, dtype=np.int32) * unit)[:, None]
    choice[0, :, :] = 4
    choice[:, 0, :] = 2
    # choice bits: 4 = insertion; else 2 = deletion; else 0 = pair (decoded below).
    take_insert = np.empty(batch, dtype=np.bool_)
    insert_bit = np.empty(batch, dtype=np.int8)
    for i in range(1, width_r + 1):
        prev_row = cost[i - 1]
        row = cost[i]
        deletion = prev_row[1:] + unit
        best_dd = prev_row[:-1] + pair_cost[i - 1]
        op_dd = np.left_shift((deletion <= best_dd).view(np.int8), 1)
        np.minimum(deletion, best_dd, out=best_dd)
        choice_row = choice[i]
        for j in range(1, width_a + 1):
            insertion = row[j - 1] + unit
            candidate = best_dd[j - 1]
            np.less_equal(insertion, candidate, out=take_insert)
            np.minimum(insertion, candidate, out=row[j])
            np.left_shift(take_insert.view(np.int8), 2, out=insert_bit)
            np.bitwise_or(op_dd[j - 1], insert_bit, out=choice_row[j])
    rows = np.arange(batch)
    total = cost[ref_len, agent_len, rows].astype(np.int64)
    distance = total // unit

    length = width_r + width_a
    ops = np.full((batch, length), OP_NONE, dtype=np.int64)
    ref_pos = np.full((batch, length), -1, dtype=np.int64)
    agent_pos = np.full((batch, length), -1, dtype=np.int64)
    full_op = np.zeros((batch, length), dtype=np.bool_)
    at_ref, at_agent = ref_len.copy(), agent_len.copy()
    tool_pairs = np.zeros(batch, dtype=np.int64)
    full_pairs = np.zeros(batch, dtype=np.int64)
    for k in range(length - 1, -1, -1):
        active = (at_ref > 0) | (at_agent > 0)
        if not active.any():
            break
        bits = choice[at_ref, at_agent, rows]
        op = np.where(
            active,
            np.where(bits & 4, OP_INSERT, np.where(bits & 2, OP_DELETE, OP_PAIR)),
            OP_NONE,
        )
        is_pair = op == OP_PAIR
        is_insert = op == OP_INSERT
        is_delete = op == OP_DELETE
        ri, aj = np.maximum(at_ref - 1, 0), np.maximum(at_agent - 1, 0)
        tool_pairs += is_pair & tool_eq[rows, ri, aj]
        is_full = is_pair & full_eq[rows, ri, aj]
        full_pairs += is_full
        full_op[:, k] = is_full
        ops[:, k] = op
        ref_pos[:, k] = np.where(is_pair | is_delete, at_ref - 1, -1)
        agent_pos[:, k] = np.where(is_pair | is_insert, at_agent - 1, -1)
        at_ref = at_ref - (is_pair | is_delete)
        at_agent = at_agent - (is_pair | is_insert)
    n_ops = (ops != OP_NONE).sum(axis=1)
    # Left-align the ops of each pair (they were written right-aligned).
    shift = length - n_ops
    index = (np.arange(length)[None, :] + shift[:, None]) % length
    return Alignment(
        ops=np.take_along_axis(ops, index, axis=1),
        ref_pos=np.take_along_axis(ref_pos, index, axis=1),
        agent_pos=np.take_along_axis(agent_pos, index, axis=1),
        full_op=np.take_along_axis(full_op, index, axis=1),
        n_ops=n_ops,
        distance=distance,
        tool_pairs=tool_pairs,
        full_pairs=full_pairs,
    )
