"""Path metrics of (reference path, agent path) pairs, computed for a whole batch at once.

Definitions (``R`` = reference length, ``A`` = agent length, ``N = max(R, A)``):

- ``tool_accuracy`` = aligned pairs whose tool matches / N;
- ``argument_accuracy`` = aligned pairs whose tool and arguments match / N;
- ``step_order_accuracy`` = 1 - Levenshtein(reference tools, agent tools) / N;
- ``path_efficiency`` = min(1, R / A); 1 when both are empty, 0 when only the agent's is;
- all three accuracies are 1 when both paths are empty.
- ``missing`` = reference steps that no agent step matches (tool and arguments) in an
  optimal one-to-one matching that ignores order; ``extra`` = agent steps left unmatched.
- An extra step is a ``unexpected_write`` when its tool is declared ``write``; otherwise it is
  ``wasted`` when it repeats a call (same tool and arguments) the agent made earlier and that
  earlier call did not fail (a retry after an error is not waste), or when it is a premature
  copy of a later identical call that a reference step matched (it did not fail itself);
  otherwise it is a plain extra step (no penalty, but it lowers ``path_efficiency``). So of
  ``n`` identical calls at most ``n - 1`` are wasted: the first of them is wasted only when a
  later copy is the one the reference counts.
- ``tool_matches`` = size of the multiset intersection of reference and agent tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from pathgrade.metrics.trajectory.align import Alignment, align
from pathgrade.metrics.trajectory.assignment import first_fit_matching, optimal_matching
from pathgrade.metrics.trajectory.order import (
    Predecessors,
    linear_slots,
    partial_in_order,
    partial_permutation,
    total_in_order,
    unordered_permutation,
)
from pathgrade.metrics.trajectory.pair_batch import PairBatch

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

ORDER_TOTAL = 0
ORDER_PARTIAL = 1
ORDER_NONE = 2

STEP_MATCHED = 0
STEP_EXTRA = 1
STEP_WASTED = 2
STEP_UNEXPECTED_WRITE = 3
#: Wasted, and made before a later identical call that a reference step matched.
STEP_WASTED_EARLY = 4


@dataclass(frozen=True)
class PairScores:
    """Per-pair metrics and the per-step diagnosis of a batch."""

    tool_accuracy: FloatArray
    argument_accuracy: FloatArray
    step_order_accuracy: FloatArray
    path_efficiency: FloatArray
    tool_matches: IntArray
    executed: IntArray
    missing: IntArray
    out_of_order: BoolArray
    wasted: IntArray
    unexpected_writes: IntArray
    ref_missing: BoolArray  # (B, R): reference step never matched
    agent_status: IntArray  # (B, A): STEP_* code
    agent_partner: IntArray  # (B, A): matched reference index or -1
    alignment: Alignment  # reference positions already mapped back to original indices
    premature: BoolArray  # (B, A): an extra call made before its turn and redone later
    #: (B, A): the recorded position of each scored position (the favourable order of
    #: same-turn calls, :mod:`~pathgrade.metrics.trajectory.parallel`); None: as recorded.
    scored: IntArray | None = None

    @classmethod
    def of(
        cls,
        accuracies: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
        tool_matches: IntArray,
        executed: IntArray,
        ref_len: IntArray,
        out_of_order: BoolArray,
        status: IntArray,
        ref_partner: IntArray,
        agent_partner: IntArray,
        alignment: Alignment,
        premature: BoolArray,
    ) -> PairScores:
        """The scores of a batch, every kernel's: ``accuracies`` are tool, argument, step
        order and path efficiency; the counts follow from the rest (missing: reference steps
        never executed; wasted and unexpected writes: the agent steps' ``status`` codes)."""
        ref_valid = np.arange(ref_partner.shape[1])[None, :] < ref_len[:, None]
        return cls(
            tool_accuracy=accuracies[0],
            argument_accuracy=accuracies[1],
            step_order_accuracy=accuracies[2],
            path_efficiency=accuracies[3],
            tool_matches=tool_matches,
            executed=executed,
            missing=ref_len - executed,
            out_of_order=out_of_order,
            wasted=((status == STEP_WASTED) | (status == STEP_WASTED_EARLY)).sum(axis=1),
            unexpected_writes=(status == STEP_UNEXPECTED_WRITE).sum(axis=1),
            ref_missing=ref_valid & (ref_partner < 0),
            agent_status=status,
            agent_partner=agent_partner,
            alignment=alignment,
            premature=premature,
        )


def safe_ratio(numerator: IntArray, denominator: IntArray, empty: float) -> FloatArray:
    out = np.full(numerator.shape, empty, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _use_embedding(agent_partner: IntArray, ref_partner: IntArray, position: list[int]) -> None:
    agent_partner[:] = -1
    ref_partner[:] = -1
    for i, j in enumerate(position):
        if j >= 0:
            agent_partner[j] = i
            ref_partner[i] = j


def score_pairs(
    batch: PairBatch,
    order: IntArray,
    predecessors: Sequence[Predecessors | None],
    agent_error: BoolArray,
    agent_write: BoolArray,
) -> PairScores:
    """Score every pair of ``batch``.

    ``order`` holds an ``ORDER_*`` code per pair; ``predecessors[b]`` the ``after`` edges of
    pair ``b``'s reference (as indices) when its order is partial. ``agent_error`` and
    ``agent_write`` are ``(B, A)`` flags of the agent's steps.
    """
    ref_len, agent_len = batch.ref_len, batch.agent_len
    n_pairs, width_r, width_a = batch.tool_eq.shape
    agent_partner, ref_partner = optimal_matching(batch.full_eq, ref_len, agent_len, batch.general)
    executed = (ref_partner >= 0).sum(axis=1)
    _, tool_ref_partner = first_fit_matching(batch.tool_eq, agent_len)
    tool_matches = (tool_ref_partner >= 0).sum(axis=1)

    # Reference order to align against: as given (total) or the closest linear extension.
    perm = np.broadcast_to(np.arange(width_r), (n_pairs, width_r)).copy()
    out_of_order = np.zeros(n_pairs, dtype=np.bool_)
    unordered = order != ORDER_TOTAL
    if unordered.any():
        slot = linear_slots(batch.tool_eq, ref_partner, agent_partner, ref_len, agent_len)
        perm[unordered] = unordered_permutation(slot[unordered])
        for b in np.flatnonzero(order == ORDER_PARTIAL):
            preds = predecessors[int(b)] or ()
            perm[b] = partial_permutation(slot[b], preds)
            if len(preds) == int(ref_len[b]):
                kept, position = partial_in_order(
                    batch.full_eq[b], preds, slot[b], int(executed[b])
                )
                out_of_order[b] = not kept
                if kept:  # explain extras by the order-respecting matching
                    _use_embedding(agent_partner[b], ref_partner[b], position)
    total = order == ORDER_TOTAL
    if total.any():
        chosen = slice(None) if total.all() else total  # a view, not a copy, when all are
        in_order, embedding = total_in_order(
            batch.full_eq[chosen], executed[chosen], agent_len[chosen]
        )
        out_of_order[chosen] = ~in_order
        # Where an order-respecting matching exists, it labels the extra steps (it is as
        # large as the unordered one): the premature call is the extra, not the later one.
        rows = np.flatnonzero(total)[in_order]
        agent_partner[rows] = embedding[in_order]
        ref_partner[rows] = -1
        hit_rows, hit_cols = np.nonzero(agent_partner[rows] >= 0)
        ref_partner[rows[hit_rows], agent_partner[rows[hit_rows], hit_cols]] = hit_cols
    tool_eq, full_eq = batch.tool_eq, batch.full_eq
    if unordered.any():  # align unordered pairs against their closest linear extension
        tool_eq = np.take_along_axis(tool_eq, perm[:, :, None], axis=1)
        full_eq = np.take_along_axis(full_eq, perm[:, :, None], axis=1)
    alignment = align(tool_eq, full_eq, ref_len, agent_len)
    mapped = alignment.ref_pos
    if unordered.any():
        mapped = np.where(
            mapped >= 0, np.take_along_axis(perm, np.maximum(mapped, 0) % width_r, axis=1), -1
        )
    alignment = replace(alignment, ref_pos=mapped)

    longest = np.maximum(ref_len, agent_len)
    tool_accuracy = safe_ratio(alignment.tool_pairs, longest, 1.0)
    argument_accuracy = safe_ratio(alignment.full_pairs, longest, 1.0)
    step_order_accuracy = 1.0 - safe_ratio(alignment.distance, longest, 0.0)
    path_efficiency = np.minimum(1.0, safe_ratio(ref_len, agent_len, 0.0))
    path_efficiency[(ref_len == 0) & (agent_len == 0)] = 1.0

    agent_cols = np.arange(width_a)
    agent_valid = agent_cols[None, :] < agent_len[:, None]
    extra = agent_valid & (agent_partner < 0)
    ident = batch.agent_ident
    # Two identical calls are a repetition unless the earlier one failed (then the later is a
    # retry). An extra call is wasted when a sound earlier twin exists, or when a later twin is
    # the matched one (the premature copy is the extra). Steps j and j + gap, batch axis last.
    ident_t, sound_t = np.ascontiguousarray(ident.T), ~agent_error.T
    matched_t = np.ascontiguousarray((agent_partner >= 0).T)
    earlier_t = np.zeros((width_a, n_pairs), dtype=np.bool_)  # a sound earlier twin
    later_t = np.zeros((width_a, n_pairs), dtype=np.bool_)  # a later twin that is matched
    same_t = np.empty((width_a, n_pairs), dtype=np.bool_)
    for gap in range(1, width_a):
        same = same_t[gap:]
        np.equal(ident_t[gap:], ident_t[:-gap], out=same)
        later_t[:-gap] |= same & matched_t[gap:]
        same &= sound_t[:-gap]
        earlier_t[gap:] |= same
    twin_earlier, twin_later = earlier_t.T, later_t.T
    status = np.full((n_pairs, width_a), STEP_MATCHED, dtype=np.int64)
    status[extra] = STEP_EXTRA
    status[extra & twin_later & ~agent_error] = STEP_WASTED_EARLY
    status[extra & twin_earlier] = STEP_WASTED
    status[extra & agent_write] = STEP_UNEXPECTED_WRITE
    premature = np.zeros_like(extra)
    candidates = np.flatnonzero((extra & twin_later).any(axis=1) & (order != ORDER_NONE))
    if candidates.size:
        premature[candidates] = _premature(
            extra[candidates],
            ident[candidates],
            agent_partner[candidates],
            ref_partner[candidates],
            order[candidates],
            [predecessors[int(b)] for b in candidates],
            ref_len[candidates],
        )
    out_of_order |= premature.any(axis=1)
    return PairScores.of(
        (tool_accuracy, argument_accuracy, step_order_accuracy, path_efficiency),
        tool_matches,
        executed,
        ref_len,
        out_of_order,
        status,
        ref_partner,
        agent_partner,
        alignment,
        premature,
    )


def _premature(
    extra: BoolArray,
    ident: IntArray,
    agent_partner: IntArray,
    ref_partner: IntArray,
    order: IntArray,
    predecessors: Sequence[Predecessors | None],
    ref_len: IntArray,
) -> BoolArray:
    """Extra calls made before their turn and made again later (a call redone in order).

    Agent step ``j`` is premature when it is extra, a later identical call ``j'`` is matched
    to reference step ``i``, and at ``j`` some step ``i`` depends on had not been executed yet.
    Such a path did act out of order, even though the later call put things right.
    """
    n_pairs, width_a = extra.shape
    width_r = ref_partner.shape[1]
    cols = np.arange(width_a)
    later = cols[None, :] > cols[:, None]  # [j, j']: j' after j
    same = ident[:, :, None] == ident[:, None, :]
    matched_twin = same & later[None, :, :] & (agent_partner[:, None, :] >= 0)
    has_twin = matched_twin.any(axis=2) & extra & (order != ORDER_NONE)[:, None]
    if not has_twin.any():
        return np.zeros_like(extra)
    twin = np.argmax(matched_twin, axis=2)
    twin_ref = np.take_along_axis(agent_partner, twin, axis=1)
    # Latest agent position among each reference step's predecessors (never executed: inf).
    position = np.where(ref_partner >= 0, ref_partner, width_a + 1)
    ready_after = np.full((n_pairs, width_r), -1, dtype=np.int64)
    ready_after[:, 1:] = np.maximum.accumulate(position, axis=1)[:, :-1]  # total order
    for b in np.flatnonzero((order == ORDER_PARTIAL) & has_twin.any(axis=1)):
        preds = predecessors[int(b)] or ()
        for i in range(int(ref_len[b])):
            ready_after[b, i] = max((int(position[b, p]) for p in preds[i]), default=-1)
    needed = np.take_along_axis(ready_after, np.maximum(twin_ref, 0), axis=1)
    premature: BoolArray = has_twin & (cols[None, :] < needed)
    return premature
