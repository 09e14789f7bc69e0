"""Optimal one-to-one matching of agent steps to reference steps, ignoring order.

The matching has the most pairs possible; among those it uses the earliest agent steps (so
with ``[lookup, lookup]`` against one ``lookup``, the second call is the extra one), and each
matched agent step, in agent order, takes the lowest reference step that leaves the later
ones matchable (so with ``[lookup]`` against ``[lookup, lookup]``, reference step 1 is the
missing one). That is what a first fit gives for an equivalence, and it is the definition
(:mod:`pathgrade.metrics.trajectory.definition.matching`) for any relation.

When the match relation is an equivalence (tool equality; ``exact``/``normalized``/``ignore``
arguments) a first-fit pass over the agent steps in order is optimal, and it runs on whole
batches at once. Pairs compared with a non-equivalence (``fuzzy``, ``subset``, tolerances) are
re-solved exactly as an assignment problem (``scipy.optimize.linear_sum_assignment``), never
left to a greedy first fit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


WORD_BITS = 64  # widest reference that fits one machine word of bits


def pack_columns(eq: BoolArray, agent_len: IntArray) -> npt.NDArray[np.unsignedinteger[Any]]:
    """``eq`` as ``(A, B)`` words: bit ``i`` of ``[j, b]`` is ``eq[b, i, j]`` for ``j < A_b``.

    Needs ``R <= WORD_BITS``; the word is the smallest unsigned type that holds ``R`` bits.
    """
    batch, width_r, width_a = eq.shape
    word = np.dtype(f"u{1 << max(0, (width_r - 1).bit_length() - 3)}").type
    flags = eq.view(np.uint8)
    words = np.zeros((batch, width_a), dtype=word)
    bits = np.empty((batch, width_a), dtype=word)
    for i in range(width_r):
        np.multiply(flags[:, i, :], word(1 << i), out=bits, dtype=word)
        words |= bits
    words *= np.arange(width_a)[None, :] < agent_len[:, None]
    return np.ascontiguousarray(words.T)


def bit_index(words: npt.NDArray[np.unsignedinteger[Any]]) -> IntArray:
    """Index of the set bit of ``(A, B)`` words with at most one bit set (-1 for 0), as
    ``(B, A)``."""
    _, exponent = np.frexp(words.astype(np.float32))  # exact: the words are powers of two
    exponent -= 1
    return np.ascontiguousarray(exponent.T, dtype=np.int64)


def first_fit_matching(eq: BoolArray, agent_len: IntArray) -> tuple[IntArray, IntArray]:
    """Match each agent step, in order, to the first unused reference step it equals.

    Returns ``(agent_partner, ref_partner)``: ``agent_partner[b, j]`` is the reference index
    matched to agent step ``j`` (or -1), ``ref_partner[b, i]`` the agent index matched to
    reference step ``i`` (or -1). Optimal when ``eq`` is an equivalence relation.
    """
    batch, width_r, width_a = eq.shape
    if width_r > WORD_BITS:
        return _first_fit_by_rows(eq, agent_len)
    # Reference steps as bits: each agent step takes the lowest free bit it matches.
    columns = pack_columns(eq, agent_len)
    free = np.full(batch, ~columns.dtype.type(0), dtype=columns.dtype)
    for candidates in columns:
        candidates &= free
        candidates &= ~candidates + columns.dtype.type(1)  # lowest set bit
        free ^= candidates
    agent_partner = bit_index(columns)
    ref_partner = np.full(batch * width_r + 1, -1, dtype=np.int64)
    target = np.arange(batch)[:, None] * width_r + agent_partner
    target[agent_partner < 0] = batch * width_r  # a spare slot for the unmatched
    ref_partner[target] = np.arange(width_a)
    return agent_partner, ref_partner[:-1].reshape(batch, width_r)


def _first_fit_by_rows(eq: BoolArray, agent_len: IntArray) -> tuple[IntArray, IntArray]:
    """:func:`first_fit_matching` for any width, one agent column at a time."""
    batch, width_r, width_a = eq.shape
    rows = np.arange(batch)
    used = np.zeros((batch, width_r), dtype=np.bool_)
    agent_partner = np.full((batch, width_a), -1, dtype=np.int64)
    ref_partner = np.full((batch, width_r), -1, dtype=np.int64)
    for j in range(width_a):
        candidates = eq[:, :, j] & ~used
        first = candidates.argmax(axis=1)
        hit = candidates[rows, first] & (j < agent_len)
        hit_rows, hit_first = rows[hit], first[hit]
        used[hit_rows, hit_first] = True
        agent_partner[hit_rows, j] = hit_first
        ref_partner[hit_rows, hit_first] = j
    return agent_partner, ref_partner


def exact_matching(eq: BoolArray) -> tuple[IntArray, IntArray]:
    """Maximum matching of one pair preferring earliest agent steps (assignment problem).

    Cost of pairing ``(i, j)`` is ``-(big - j)`` on an edge and 0 otherwise; ``big`` exceeds
    any sum of indices, so the number of pairs is maximised first, then the sum of the matched
    agent positions minimised (the matched agent steps are then the earliest possible: the
    sets of matchable agent steps form a matroid, whose basis of least distinct weights is
    unique). The solver may pair them with any reference steps that fit; they are then given
    the lowest ones, agent step by agent step (:func:`_lowest_partners`).
    """
    width_r, width_a = eq.shape
    agent_partner = np.full(width_a, -1, dtype=np.int64)
    ref_partner = np.full(width_r, -1, dtype=np.int64)
    if not eq.any():
        return agent_partner, ref_partner
    big = float(width_a * (width_a + 1) + 1)
    cost = np.where(eq, -(big - np.arange(width_a, dtype=np.float64))[None, :], 0.0)
    from scipy.optimize import linear_sum_assignment  # imported on use (slow import)

    rows, cols = linear_sum_assignment(cost)
    for i, j in zip(rows, cols, strict=True):
        if eq[i, j]:
            agent_partner[j] = i
            ref_partner[i] = j
    return _lowest_partners(eq, agent_partner, ref_partner)


def _lowest_partners(
    eq: BoolArray, agent_partner: IntArray, ref_partner: IntArray
) -> tuple[IntArray, IntArray]:
    """The same matched agent steps, each (in agent order) given the lowest reference step
    that leaves the later matched steps matchable: a step moves to a lower reference step
    when that one is free, or when the later step holding it can be re-seated along an
    alternating path that avoids the reference steps already settled."""
    width_r = eq.shape[0]
    lower = eq & (np.arange(width_r)[:, None] < agent_partner[None, :])
    if not lower.any():  # no step has a lower reference step to move to
        return agent_partner, ref_partner
    options = [np.flatnonzero(column).tolist() for column in eq.T]
    agent_of: list[int] = ref_partner.tolist()
    ref_of: list[int] = agent_partner.tolist()
    settled = [False] * len(agent_of)

    def reseat(agent: int, seen: list[bool]) -> bool:
        for ref in options[agent]:
            if settled[ref] or seen[ref]:
                continue
            seen[ref] = True
            holder = agent_of[ref]
            if holder < 0 or reseat(holder, seen):
                agent_of[ref], ref_of[agent] = agent, ref
                return True
        return False

    for agent in [j for j, ref in enumerate(ref_of) if ref >= 0]:
        current = ref_of[agent]
        for ref in options[agent]:
            if ref >= current:
                break
            if settled[ref]:
                continue
            holder = agent_of[ref]
            settled[ref] = True  # held by ``agent`` from now on, if the move works
            agent_of[current], agent_of[ref], ref_of[agent] = -1, agent, ref
            if holder < 0:
                break
            ref_of[holder] = -1
            if reseat(holder, [False] * len(agent_of)):
                break
            settled[ref] = False  # undo: ``holder`` keeps ``ref``
            agent_of[current], agent_of[ref] = agent, holder
            ref_of[agent], ref_of[holder] = current, ref
        settled[ref_of[agent]] = True
    return np.array(ref_of, dtype=np.int64), np.array(agent_of, dtype=np.int64)


def optimal_matching(
    eq: BoolArray, ref_len: IntArray, agent_len: IntArray, general: BoolArray
) -> tuple[IntArray, IntArray]:
    """First fit for the whole batch, re-solved exactly where ``general`` is set.

    The exact solve sees only the pair's own (unpadded) matrix, so a pair's matching never
    depends on what else is in the batch.
    """
    agent_partner, ref_partner = first_fit_matching(eq, agent_len)
    for b in np.flatnonzero(general):
        n_ref, n_agent = int(ref_len[b]), int(agent_len[b])
        agent_own, ref_own = exact_matching(eq[b, :n_ref, :n_agent])
        agent_partner[b, :n_agent] = agent_own
        ref_partner[b, :n_ref] = ref_own
    return agent_partner, ref_partner
