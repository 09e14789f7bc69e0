""":func:`~pathgrade.metrics.trajectory.pairs.score_pairs` for long paths, without dense
``(B, R, A)`` matrices: the same :class:`~pathgrade.metrics.trajectory.pairs.PairScores`.

It serves batches whose pairs all have a total order, no same-turn calls and only keyed
matching (an equivalence: :attr:`PaddedPairs.general` unset) — :func:`applies` says when.
Then every relation the dense kernels read is "equal codes", and

- the one-to-one matching (a first fit for an equivalence) pairs the ``c``-th agent call of
  a key with the ``c``-th reference step of that key: a sort, not a scan of the matrix;
- ``tool_matches`` is the multiset intersection of the tools: a sum of minimum counts;
- the greedy embedding of the total order reads one reference key per agent column;
- twins (earlier sound and later matched calls with the same identity) come from one sort
  by identity;
- the alignment is computed on a diagonal band
  (:func:`~pathgrade.metrics.trajectory.band_align.band_align`).

Work and memory grow as ``R + A`` per pair, plus ``R * (D + 1)`` for the alignment (``D``:
the tool-level Levenshtein distance). With ``compiled``, the alignment, both matchings and
the twins run in numba (:mod:`~pathgrade.metrics.trajectory.long_kernels`); the NumPy code
here is the fallback and gives the same scores.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pathgrade.metrics.trajectory.band_align import band_align, compiled_kernels
from pathgrade.metrics.trajectory.pair_batch import PaddedPairs
from pathgrade.metrics.trajectory.pairs import (
    ORDER_TOTAL,
    STEP_EXTRA,
    STEP_MATCHED,
    STEP_UNEXPECTED_WRITE,
    STEP_WASTED,
    STEP_WASTED_EARLY,
    PairScores,
    safe_ratio,
)

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Batches whose references are wider than this take the long-path kernels (when they apply).
LONG_FROM = 64


def applies(pairs: PaddedPairs, order: IntArray, agent_turn: IntArray) -> bool:
    """The batch is long and every pair is keyed, totally ordered and has no turns."""
    return (
        pairs.ref_tool.shape[1] > LONG_FROM
        and not pairs.general.any()
        and bool((order == ORDER_TOTAL).all())
        and not bool((agent_turn >= 0).any())
    )


def occurrence_matching(
    ref_code: IntArray,
    agent_code: IntArray,
    ref_len: IntArray,
    agent_len: IntArray,
    compiled: bool = False,
) -> tuple[IntArray, IntArray]:
    """First-fit matching of equal codes: the ``c``-th agent step with a code takes the
    ``c``-th reference step with that code (when there is one). Returns ``(agent_partner,
    ref_partner)`` as :func:`~pathgrade.metrics.trajectory.assignment.first_fit_matching`.

    Pads must differ between the sides (they are never matched). One stable sort per row of
    both sides' codes, reference steps first: in each run of equal codes the ``n`` reference
    steps come first, in order, then the agent steps, so the agent step ``n + c`` places
    after the run's start takes the reference step ``c`` places after it. ``compiled``: the
    numba kernel (:func:`~pathgrade.metrics.trajectory.long_kernels.first_fit`) when numba
    loads, the same result.
    """
    batch, width_r = ref_code.shape
    width_a = agent_code.shape[1]
    kernels = compiled_kernels() if compiled else None
    if kernels is not None:
        agent_partner = np.full((batch, width_a), -1, dtype=np.int64)
        ref_partner = np.full((batch, width_r), -1, dtype=np.int64)
        kernels.first_fit(ref_code, agent_code, ref_len, agent_len, agent_partner, ref_partner)
        return agent_partner, ref_partner
    both = np.concatenate((ref_code, agent_code), axis=1)
    order = np.argsort(both, axis=1, kind="stable")
    code = np.take_along_axis(both, order, axis=1)
    is_ref = order < width_r
    width = width_r + width_a
    cols = np.broadcast_to(np.arange(width), (batch, width))
    new = np.ones((batch, width), dtype=np.bool_)
    new[:, 1:] = code[:, 1:] != code[:, :-1]
    start = np.maximum.accumulate(np.where(new, cols, 0), axis=1)
    refs_before = np.cumsum(is_ref, axis=1)  # reference steps up to here, inclusive
    refs_at_start = np.take_along_axis(refs_before - is_ref, start, axis=1)
    n_group_refs = np.take_along_axis(refs_before, _group_ends(new), axis=1) - refs_at_start
    offset = cols - start - n_group_refs  # c, for an agent step
    hit = ~is_ref & (offset >= 0) & (offset < n_group_refs)
    hit &= order - width_r < agent_len[:, None]
    rows, at = np.nonzero(hit)
    agent_cols = order[rows, at] - width_r
    ref_cols = order[rows, at - n_group_refs[rows, at]]
    valid = ref_cols < ref_len[rows]
    rows, agent_cols, ref_cols = rows[valid], agent_cols[valid], ref_cols[valid]
    agent_partner = np.full((batch, width_a), -1, dtype=np.int64)
    ref_partner = np.full((batch, width_r), -1, dtype=np.int64)
    agent_partner[rows, agent_cols] = ref_cols
    ref_partner[rows, ref_cols] = agent_cols
    return agent_partner, ref_partner


def _group_ends(new: BoolArray) -> IntArray:
    """Per position of rows of sorted codes, the last position of its run of equal codes
    (``new``: a run starts there)."""
    width = new.shape[1]
    ends = np.empty(new.shape, dtype=np.int64)
    last = np.ones(new.shape, dtype=np.bool_)
    last[:, :-1] = new[:, 1:]
    marks = np.where(last, np.arange(width), width)
    ends[:, ::-1] = np.minimum.accumulate(marks[:, ::-1], axis=1)
    return ends


def total_order_embedding(
    ref_key: IntArray, agent_key: IntArray, executed: IntArray, agent_len: IntArray
) -> tuple[BoolArray, IntArray]:
    """:func:`~pathgrade.metrics.trajectory.order.total_in_order` for keyed matching: the
    greedy earliest embedding of the first ``executed[b]`` reference steps, one agent
    column at a time."""
    batch, width_r = ref_key.shape
    width_a = agent_key.shape[1]
    rows = np.arange(batch)
    pointer = np.zeros(batch, dtype=np.int64)
    partner = np.full((batch, width_a), -1, dtype=np.int64)
    for j in range(width_a):
        wanted = ref_key[rows, np.minimum(pointer, width_r - 1)]
        advance = (pointer < executed) & (wanted == agent_key[:, j]) & (wanted >= 0)
        advance &= j < agent_len
        partner[advance, j] = pointer[advance]
        pointer += advance
    return pointer >= executed, partner


def _twins(
    ident: IntArray, valid: BoolArray, sound: BoolArray, matched: BoolArray, compiled: bool
) -> tuple[BoolArray, BoolArray, IntArray]:
    """Per agent step: an earlier step of the same identity that did not fail exists; a
    later one that is matched exists; and the position of the first such later one (-1).
    Pads (``~valid``) are each an identity of their own. ``compiled``: the numba kernel
    (:func:`~pathgrade.metrics.trajectory.long_kernels.twins`) when numba loads."""
    batch, width = ident.shape
    kernels = compiled_kernels() if compiled else None
    if kernels is not None:
        earlier_k = np.zeros((batch, width), dtype=np.bool_)
        later_k = np.zeros((batch, width), dtype=np.bool_)
        twin_k = np.full((batch, width), -1, dtype=np.int64)
        kernels.twins(ident, valid.sum(axis=1), sound, matched, earlier_k, later_k, twin_k)
        return earlier_k, later_k, twin_k
    cols = np.broadcast_to(np.arange(width), (batch, width))
    codes = np.where(valid, ident, np.iinfo(np.int64).min + cols)
    order = np.argsort(codes, axis=1, kind="stable")  # by identity, then by position
    code = np.take_along_axis(codes, order, axis=1)
    new = np.ones((batch, width), dtype=np.bool_)
    new[:, 1:] = code[:, 1:] != code[:, :-1]
    start = np.maximum.accumulate(np.where(new, cols, 0), axis=1)
    good = np.take_along_axis(sound & valid, order, axis=1).astype(np.int64)
    good_before = np.cumsum(good, axis=1) - good
    earlier_sorted = good_before > np.take_along_axis(good_before, start, axis=1)
    # The first later matched twin: a running minimum from the end of each run of equal
    # identities (a matched step's position, else ``width``), shifted by one.
    hit = np.take_along_axis(matched, order, axis=1)
    value = np.where(hit, order, width)
    ends = _group_ends(new)
    later = np.full((batch, width), width, dtype=np.int64)
    later[:, :-1] = value[:, 1:]
    later[ends == cols] = width  # nothing later in its run
    group_key = start * (width + 1)
    keyed = group_key + later
    keyed[:, ::-1] = np.minimum.accumulate(keyed[:, ::-1], axis=1)
    # A later run has a larger start, so its keys never win inside this run.
    later_sorted = keyed - group_key
    earlier = np.zeros((batch, width), dtype=np.bool_)
    twin = np.full((batch, width), -1, dtype=np.int64)
    rows = np.arange(batch)[:, None]
    earlier[rows, order] = earlier_sorted
    twin[rows, order] = np.where(later_sorted < width, later_sorted, -1)
    return earlier & valid, (twin >= 0) & valid, twin


def score_long_pairs(
    pairs: PaddedPairs, agent_error: BoolArray, agent_write: BoolArray, compiled: bool = True
) -> PairScores:
    """Score every pair (see module docstring); ``agent_error``/``agent_write`` as in
    :func:`~pathgrade.metrics.trajectory.pairs.score_pairs`; ``compiled``: the alignment and
    the matchings run in numba kernels when numba loads (NumPy otherwise: the same scores)."""
    ref_len, agent_len = pairs.ref_len, pairs.agent_len
    n_pairs, width_r = pairs.ref_tool.shape
    width_a = pairs.agent_tool.shape[1]
    agent_partner, ref_partner = occurrence_matching(
        pairs.ref_key, pairs.agent_key, ref_len, agent_len, compiled
    )
    executed = (ref_partner >= 0).sum(axis=1)
    tool_matches = (
        occurrence_matching(pairs.ref_tool, pairs.agent_tool, ref_len, agent_len, compiled)[1] >= 0
    ).sum(axis=1)
    in_order, embedding = total_order_embedding(pairs.ref_key, pairs.agent_key, executed, agent_len)
    out_of_order = ~in_order
    rows = np.flatnonzero(in_order)
    agent_partner[rows] = embedding[rows]
    ref_partner[rows] = -1
    hit_rows, hit_cols = np.nonzero(agent_partner[rows] >= 0)
    ref_partner[rows[hit_rows], agent_partner[rows[hit_rows], hit_cols]] = hit_cols
    alignment = band_align(
        pairs.ref_tool, pairs.agent_tool, pairs.ref_key, pairs.agent_key, ref_len, agent_len,
        compiled,
    )  # fmt: skip
    longest = np.maximum(ref_len, agent_len)
    path_efficiency = np.minimum(1.0, safe_ratio(ref_len, agent_len, 0.0))
    path_efficiency[(ref_len == 0) & (agent_len == 0)] = 1.0

    agent_valid = np.arange(width_a)[None, :] < agent_len[:, None]
    matched = agent_partner >= 0
    extra = agent_valid & ~matched
    earlier, later, twin = _twins(pairs.agent_ident, agent_valid, ~agent_error, matched, compiled)
    status = np.full((n_pairs, width_a), STEP_MATCHED, dtype=np.int64)
    status[extra] = STEP_EXTRA
    status[extra & later & ~agent_error] = STEP_WASTED_EARLY
    status[extra & earlier] = STEP_WASTED
    status[extra & agent_write] = STEP_UNEXPECTED_WRITE
    # Premature: an extra call whose later matched twin's reference step was not yet due
    # (a step before it in the reference was executed later, or never).
    position = np.where(ref_partner >= 0, ref_partner, width_a + 1)
    ready_after = np.full((n_pairs, width_r), -1, dtype=np.int64)
    ready_after[:, 1:] = np.maximum.accumulate(position, axis=1)[:, :-1]
    has_twin = extra & later
    twin_ref = np.take_along_axis(agent_partner, np.maximum(twin, 0), axis=1)
    needed = np.take_along_axis(ready_after, np.maximum(twin_ref, 0), axis=1)
    premature: BoolArray = has_twin & (np.arange(width_a)[None, :] < needed)
    out_of_order |= premature.any(axis=1)
    accuracies = (
        safe_ratio(alignment.tool_pairs, longest, 1.0),
        safe_ratio(alignment.full_pairs, longest, 1.0),
        1.0 - safe_ratio(alignment.distance, longest, 0.0),
        path_efficiency,
    )
    return PairScores.of(
        accuracies,
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
