"""Optimal one-to-one matching of agent steps to reference steps, ignoring order.

The matching has the most pairs possible, and among those it uses the earliest agent steps
(so with ``[lookup, lookup]`` against one ``lookup``, the second call is the extra one).

When the match relation is an equivalence (tool equality; ``exact``/``normalized``/``ignore``
arguments) a first-fit pass over the agent steps in order is optimal, and it runs on whole
batches at once. Pairs compared with a non-equivalence (``fuzzy``, ``subset``, tolerances) are
re-solved exactly as an assignment problem (``scipy.optimize.linear_sum_assignment``), never
left to a greedy first fit.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.optimize import linear_sum_assignment

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def first_fit_matching(eq: BoolArray, agent_len: IntArray) -> tuple[IntArray, IntArray]:
    """Match each agent step, in order, to the first unused reference step it equals.

    Returns ``(agent_partner, ref_partner)``: ``agent_partner[b, j]`` is the reference index
    matched to agent step ``j`` (or -1), ``ref_partner[b, i]`` the agent index matched to
    reference step ``i`` (or -1). Optimal when ``eq`` is an equivalence relation.
    """
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
    any sum of indices, so the number of pairs is maximised first.
    """
    width_r, width_a = eq.shape
    agent_partner = np.full(width_a, -1, dtype=np.int64)
    ref_partner = np.full(width_r, -1, dtype=np.int64)
    if not eq.any():
        return agent_partner, ref_partner
    big = float(width_a * (width_a + 1) + 1)
    cost = np.where(eq, -(big - np.arange(width_a, dtype=np.float64))[None, :], 0.0)
    rows, cols = linear_sum_assignment(cost)
    for i, j in zip(rows, cols, strict=True):
        if eq[i, j]:
            agent_partner[j] = i
            ref_partner[i] = j
    return agent_partner, ref_partner


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
