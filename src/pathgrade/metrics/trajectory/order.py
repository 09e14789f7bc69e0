"""Step order: which reference order to align against, and whether the agent broke it.

``order = "total"``: the reference is one sequence. ``"partial"``: a reference step must come
after the steps named in its ``after`` list, nothing else is ordered. ``"none"``: no order.

*Out of order* means: some reference step was executed while a step it depends on had not
been executed before it (later, or never). Under ``total`` that holds exactly when the first
``M`` reference steps (``M`` = the number of reference steps the agent executed at all) are not
a subsequence of the agent's path. It differs from "the whole reference is not a
subsequence" only when the missing steps are at the end (an agent that stopped early did not
act out of order; the missing steps are penalised as missing). Under ``partial`` it holds when
no placement of the executed steps after their predecessors exists: the greedy placement,
else (when reference steps compete for an agent step) a bounded exact search
(:func:`partial_in_order`, :data:`SEARCH_NODES`).

For ``partial`` and ``none`` the alignment (and so ``step_order_accuracy``) is computed
against the *linear extension* of the reference closest to the agent: a topological order in
which each reference step is placed at the position of the agent step it was matched to.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from pathgrade.metrics.trajectory.assignment import (
    WORD_BITS,
    bit_index,
    first_fit_matching,
    pack_columns,
)

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Predecessors = Sequence[Sequence[int]]


def linear_slots(
    tool_eq: BoolArray,
    ref_partner: IntArray,
    agent_partner: IntArray,
    ref_len: IntArray,
    agent_len: IntArray,
) -> IntArray:
    """A target position for every reference step (smaller = earlier).

    Matched steps take their agent step's position; unmatched ones first take the position of
    an unmatched agent call of the same tool, then of any unmatched agent step (in order), and
    the rest go after the agent's path in reference order.
    """
    _, width_r, width_a = tool_eq.shape
    ref_cols = np.arange(width_r)
    agent_cols = np.arange(width_a)
    ref_valid = ref_cols[None, :] < ref_len[:, None]
    agent_valid = agent_cols[None, :] < agent_len[:, None]
    slot = np.where(ref_partner >= 0, ref_partner, -1)

    free_ref = ref_valid & (ref_partner < 0)
    free_agent = agent_valid & (agent_partner < 0)
    tool_free = tool_eq & free_ref[:, :, None] & free_agent[:, None, :]
    tool_agent_partner, tool_ref_partner = first_fit_matching(tool_free, agent_len)
    slot = np.where(tool_ref_partner >= 0, tool_ref_partner, slot)

    free_ref &= tool_ref_partner < 0
    free_agent &= tool_agent_partner < 0
    # k-th remaining reference step -> k-th remaining agent position.
    agent_order = np.argsort(~free_agent, axis=1, kind="stable")
    n_free_agent = free_agent.sum(axis=1)
    rank = np.cumsum(free_ref, axis=1) - 1
    takes = free_ref & (rank < n_free_agent[:, None])
    taken = np.take_along_axis(agent_order, np.clip(rank, 0, width_a - 1), axis=1)
    slot = np.where(takes, taken, slot)
    tail = width_a + ref_cols[None, :]
    slot = np.where(free_ref & ~takes, tail, slot)
    return np.where(ref_valid, slot, width_a + width_r + ref_cols[None, :])


def unordered_permutation(slot: IntArray) -> IntArray:
    """Reference order for ``order = "none"``: steps sorted by their slot."""
    return np.argsort(slot, axis=1, kind="stable")


def partial_permutation(slot: IntArray, predecessors: Predecessors) -> IntArray:
    """A topological order of one reference (Kahn's algorithm, smallest slot first)."""
    n = len(predecessors)
    waiting = [len(p) for p in predecessors]
    successors: list[list[int]] = [[] for _ in range(n)]
    for node, preds in enumerate(predecessors):
        for pred in preds:
            successors[pred].append(node)
    ready = [(int(slot[i]), i) for i in range(n) if waiting[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, node = heapq.heappop(ready)
        order.append(node)
        for nxt in successors[node]:
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                heapq.heappush(ready, (int(slot[nxt]), nxt))
    if len(order) != n:
        raise ValueError("the 'after' edges of a reference path form a cycle")
    perm = np.arange(slot.shape[0], dtype=np.int64)
    perm[:n] = order
    return perm


def total_in_order(
    full_eq: BoolArray, executed: IntArray, agent_len: IntArray
) -> tuple[BoolArray, IntArray]:
    """Whether the first ``executed[b]`` reference steps are a subsequence of the agent path.

    Greedy earliest embedding, which is optimal for any match relation. Also returns the
    embedding as ``agent_partner`` (reference index per agent step, or -1).
    """
    width_r = full_eq.shape[1]
    if width_r > WORD_BITS:
        return _total_in_order_by_rows(full_eq, executed, agent_len)
    columns = pack_columns(full_eq, agent_len)
    word = columns.dtype.type
    bits = 8 * columns.dtype.itemsize
    below = np.array([(1 << n) - 1 for n in range(bits + 1)], dtype=np.uint64).astype(word)
    wanted = below.take(np.minimum(executed, width_r))  # steps still to embed, as bits
    next_step = wanted & word(1)  # the next one, as a bit (0 once all are embedded)
    for column in columns:
        column &= next_step  # the agent step embeds it, or 0
        next_step += column
        next_step &= wanted
    in_order: BoolArray = (next_step == 0) & (executed <= width_r)
    return in_order, bit_index(columns)


def _total_in_order_by_rows(
    full_eq: BoolArray, executed: IntArray, agent_len: IntArray
) -> tuple[BoolArray, IntArray]:
    """:func:`total_in_order` for any width, one agent column at a time."""
    batch, width_r, width_a = full_eq.shape
    rows = np.arange(batch)
    pointer = np.zeros(batch, dtype=np.int64)
    partner = np.full((batch, width_a), -1, dtype=np.int64)
    for j in range(width_a):
        current = np.minimum(pointer, width_r - 1)
        advance = (pointer < executed) & full_eq[rows, current, j] & (j < agent_len)
        partner[advance, j] = pointer[advance]
        pointer += advance
    return pointer >= executed, partner


#: The most nodes the exact search of a partial order visits (as the definition's
#: ``SEARCH_NODES``, docs/trajectory.md).
SEARCH_NODES = 10_000


def partial_in_order(
    full_eq: BoolArray, predecessors: Predecessors, slot: IntArray, executed: int
) -> tuple[bool, list[int]]:
    """Whether the executed reference steps can be placed after all their predecessors.

    Steps are taken in a topological order (smallest slot first) and each gets the earliest
    unused matching agent step after its predecessors' steps; a step whose predecessor was not
    placed cannot be placed. In order when every executed step was placed. When the greedy
    placement falls short and some agent step matches two reference steps, the exact search
    (:func:`search_placement`) decides. Returns the placement (agent position per step).
    """
    n = len(predecessors)
    order = partial_permutation(slot[:n], predecessors)[:n].tolist()
    position, placed = _earliest_placement(full_eq, predecessors, order, exclusive=True)
    if placed >= executed or not bool((full_eq[:n].sum(axis=0) >= 2).any()):
        return placed >= executed, position
    if placement_bound(full_eq[:n], predecessors, order) < executed:
        return False, position
    found = search_placement(full_eq[:n], predecessors, order, executed)
    return (True, found) if found is not None else (False, position)


def placement_bound(full_eq: BoolArray, predecessors: Predecessors, order: Sequence[int]) -> int:
    """An upper bound on the steps any placement can place: the steps that have a matching
    agent step after the earliest positions their predecessors can take (in ``order``, a
    topological order). In every placement a step's agent position is at least its earliest
    position, so a step with none (or with a predecessor that has none) is never placed.
    When the bound is below the executed count no placement exists and the exact search
    would find none: skipping it changes no result."""
    return _earliest_placement(full_eq, predecessors, order, exclusive=False)[1]


def _earliest_placement(
    full_eq: BoolArray, predecessors: Predecessors, order: Sequence[int], *, exclusive: bool
) -> tuple[list[int], int]:
    """``(position, placed)``: in ``order``, each step whose predecessors were all placed gets
    the earliest matching agent step after theirs; ``exclusive``: an unused one (the greedy
    placement), else any (the earliest positions of :func:`placement_bound`)."""
    position = [-1] * len(predecessors)
    used: set[int] = set()
    placed = 0
    for node in order:
        preds = predecessors[node]
        if any(position[p] < 0 for p in preds):
            continue
        earliest = max((position[p] for p in preds), default=-1) + 1
        for j in np.flatnonzero(full_eq[node, earliest:]).tolist():
            if not exclusive or j + earliest not in used:
                position[node] = j + earliest
                used.add(j + earliest)
                placed += 1
                break
    return position, placed


def search_placement(
    full_eq: BoolArray,
    predecessors: Predecessors,
    order: Sequence[int],
    executed: int,
    limit: int = SEARCH_NODES,
) -> list[int] | None:
    """The first placement of ``executed`` steps in depth-first order, within ``limit``
    nodes (None: none found): the steps decided in ``order``, each whose predecessors were
    all placed trying every unused matching agent step after theirs in turn, then being left
    out (while fewer than ``len(order) - executed`` are); one node per step tried or left
    out. The definition's ``search_placement``, over the candidates of each step."""
    candidates = [np.flatnonzero(row).tolist() for row in full_eq]
    position = [-1] * len(predecessors)
    used: set[int] = set()
    nodes = 0

    def decide(k: int, may_leave_out: int) -> bool:
        nonlocal nodes
        if k == len(order):
            return True
        node = order[k]
        preds = predecessors[node]
        if all(position[p] >= 0 for p in preds):
            earliest = max((position[p] for p in preds), default=-1) + 1
            for j in candidates[node]:
                if j < earliest or j in used:
                    continue
                nodes += 1
                if nodes > limit:
                    return False
                position[node] = j
                used.add(j)
                if decide(k + 1, may_leave_out):
                    return True
                position[node] = -1
                used.discard(j)
        if may_leave_out == 0:
            return False
        nodes += 1
        return nodes <= limit and decide(k + 1, may_leave_out - 1)

    return position if decide(0, len(order) - executed) else None
