"""Parallel calls: steps of one turn (same ``Step.turn``, adjacent) have no order among them.

An agent that issues ``lookup`` and ``search`` in one turn did not do either first. Before
scoring, the steps of each parallel group are put in the order most favourable to the
reference — matched steps in the reference's order (for ``order = "partial"``, its
topological order that takes the lowest index first, so a step never comes before one it
depends on), then the unmatched ones as recorded — and every reported position is mapped
back to the recorded order. Groups keep their place in the path; only the order inside a
group is free. A step with no turn (or a negative one) is a group of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from pathgrade.metrics.trajectory.assignment import optimal_matching
from pathgrade.metrics.trajectory.order import Predecessors, partial_permutation
from pathgrade.metrics.trajectory.pair_batch import PairBatch
from pathgrade.metrics.trajectory.pairs import ORDER_PARTIAL, PairScores, score_pairs

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def group_starts(turn: IntArray) -> IntArray:
    """Per step, the position where its parallel group starts (itself when not grouped)."""
    width = turn.shape[1]
    cols = np.broadcast_to(np.arange(width), turn.shape)
    same_as_previous = np.zeros(turn.shape, dtype=np.bool_)
    same_as_previous[:, 1:] = (turn[:, 1:] == turn[:, :-1]) & (turn[:, 1:] >= 0)
    starts = np.where(same_as_previous, 0, cols)
    return np.maximum.accumulate(starts, axis=1)


def reference_rank(
    width_r: int, order: IntArray, predecessors: Sequence[Predecessors | None], rows: IntArray
) -> IntArray:
    """Per pair, each reference step's place in the order a parallel group follows: its
    index, or for a partial order its place in the topological order that takes the lowest
    index first. Only ``rows`` (the pairs with parallel groups) are computed."""
    rank = np.broadcast_to(np.arange(width_r), (order.size, width_r)).copy()
    for b in rows[order[rows] == ORDER_PARTIAL].tolist():
        preds = predecessors[b] or ()
        topological = partial_permutation(np.arange(width_r), preds)
        rank[b, topological] = np.arange(width_r)
    return rank


def favourable_order(
    batch: PairBatch,
    turn: IntArray,
    order: IntArray,
    predecessors: Sequence[Predecessors | None],
) -> IntArray:
    """A permutation of each pair's agent steps (see module docstring)."""
    agent_partner, _ = optimal_matching(
        batch.full_eq, batch.ref_len, batch.agent_len, batch.general
    )
    _, width_r, width_a = batch.full_eq.shape
    cols = np.arange(width_a)[None, :]
    rank = reference_rank(width_r, order, predecessors, np.flatnonzero((turn >= 0).any(axis=1)))
    matched_rank = np.take_along_axis(rank, np.maximum(agent_partner, 0), axis=1)
    inner = np.where(turn >= 0, np.where(agent_partner >= 0, matched_rank, width_r + cols), 0)
    key = group_starts(turn) * (width_r + width_a + 1) + inner
    return np.argsort(key, axis=1, kind="stable")


def _permute_batch(batch: PairBatch, perm: IntArray) -> PairBatch:
    def columns(array: BoolArray) -> BoolArray:
        return np.take_along_axis(array, perm[:, None, :], axis=2)

    return replace(
        batch,
        agent_tool=np.take_along_axis(batch.agent_tool, perm, axis=1),
        agent_ident=np.take_along_axis(batch.agent_ident, perm, axis=1),
        tool_eq=columns(batch.tool_eq),
        full_eq=columns(batch.full_eq),
    )


def score_pairs_with_groups(
    batch: PairBatch,
    order: IntArray,
    predecessors: Sequence[Predecessors | None],
    agent_error: BoolArray,
    agent_write: BoolArray,
    agent_turn: IntArray,
) -> PairScores:
    """:func:`score_pairs` with parallel groups unordered; positions in recorded order, and
    the favourable permutation kept as ``scored`` (None when no step has a turn)."""
    if not (agent_turn >= 0).any():
        return score_pairs(batch, order, predecessors, agent_error, agent_write)
    perm = favourable_order(batch, agent_turn, order, predecessors)
    scores = score_pairs(
        _permute_batch(batch, perm),
        order,
        predecessors,
        np.take_along_axis(agent_error, perm, axis=1),
        np.take_along_axis(agent_write, perm, axis=1),
    )
    inverse = np.argsort(perm, axis=1)
    a = scores.alignment
    recorded = np.where(
        a.agent_pos >= 0, np.take_along_axis(perm, np.maximum(a.agent_pos, 0), axis=1), -1
    )
    return replace(
        scores,
        agent_status=np.take_along_axis(scores.agent_status, inverse, axis=1),
        agent_partner=np.take_along_axis(scores.agent_partner, inverse, axis=1),
        premature=np.take_along_axis(scores.premature, inverse, axis=1),
        alignment=replace(a, agent_pos=recorded),
        scored=perm,
    )
