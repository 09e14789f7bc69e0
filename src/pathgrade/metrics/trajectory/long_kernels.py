"""Compiled (numba) kernels of the long-path route: the band DP of
:mod:`~pathgrade.metrics.trajectory.band_align`, the first-fit matching of
:func:`~pathgrade.metrics.trajectory.long_pairs.occurrence_matching` and the twins of
``long_pairs._twins``. Each computes what its NumPy counterpart does (tests compare them).

- The band DP: one loop per pair over its own band (no padding to a batch's widest band),
  two rows of costs and one byte of move per band cell, then the trace-back. Cell for cell
  the arithmetic of the NumPy passes of ``band_align._align_group`` (the same costs, the
  same ``<=`` ties: an insertion wins, then a deletion, then the pair), so the same
  alignment as the dense :func:`~pathgrade.metrics.trajectory.align.align`.
- The matching: per row, a hash table (open addressing) from each reference code to its
  unused reference steps, in order; each agent step in turn takes the first of its code.
- The twins: two passes per row over a hash table of identities.

Imported only when long batches are scored with compiled kernels: importing numba takes
about 0.2-0.4 s, loading the kernels from numba's on-disk cache about 0.3 s more, and
compiling them on first use (no cache yet) about 3 s.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

# As in align / band_align: the move code into a cell is ``tool + 2 * full`` of the pair,
# plus these bits; the start cell is _START.
_DELETE_BIT, _INSERT_BIT, _START = 4, 8, 16
_INF = 1 << 29
_NEVER = 1 << 40  # above every cost: no insertion into the band's first cell
_OP_PAIR, _OP_INSERT, _OP_DELETE = 0, 1, 2


@njit(cache=True, nogil=True)
def band_dp(
    ref_tool: Any,
    agent_tool: Any,
    ref_key: Any,
    agent_key: Any,
    ref_len: Any,
    agent_len: Any,
    low: Any,
    band: Any,
    ops: Any,
    ref_pos: Any,
    agent_pos: Any,
    full_op: Any,
    n_ops: Any,
    tool_pairs: Any,
    full_pairs: Any,
) -> None:
    """Fill the alignment rows of every pair ``b``: band cell ``k`` of row ``i`` is agent
    column ``j = i + low[b] + k``, for ``k < band[b]``; the outputs arrive filled with
    their pads (``OP_NONE``, -1, False, 0)."""
    batch = ref_len.shape[0]
    cells, widest = 1, 1
    for b in range(batch):
        cells = max(cells, (ref_len[b] + 1) * band[b])
        widest = max(widest, band[b])
    move = np.empty(cells, dtype=np.int8)
    prev = np.empty(widest + 1, dtype=np.int64)  # the last cell: the band's edge
    row = np.empty(widest + 1, dtype=np.int64)
    for b in range(batch):
        n_ref, n_agent, lo, width = ref_len[b], agent_len[b], low[b], band[b]
        unit = n_ref + n_agent + 1  # one tool edit outweighs every argument mismatch
        agent_tools, agent_keys = agent_tool[b], agent_key[b]
        for k in range(width):
            j = lo + k
            prev[k] = j * unit if 0 <= j <= n_agent else _INF
            move[k] = _START if j == 0 else _INSERT_BIT
        prev[width] = row[width] = _INF - unit  # no deletion from outside the band
        for i in range(1, n_ref + 1):
            tool, key = ref_tool[b, i - 1], ref_key[b, i - 1]
            base = i * width
            left = _NEVER  # the uncapped cost of the cell before (none at k = 0)
            for k in range(width):
                j = i + lo + k
                kind, cost = 0, unit
                if j <= 0:
                    cost = _INF
                elif j <= n_agent and agent_tools[j - 1] == tool:
                    if key >= 0 and agent_keys[j - 1] == key:
                        kind, cost = 3, 0
                    else:
                        kind, cost = 1, 1
                cost += prev[k]
                deletion = prev[k + 1] + unit
                if deletion <= cost:
                    kind += _DELETE_BIT
                    cost = deletion
                if left + unit <= cost:
                    kind += _INSERT_BIT
                    cost = left + unit
                left = cost
                row[k] = min(cost, _INF)
                move[base + k] = kind
            prev, row = row, prev
        # Trace back from (R, A); the ops come out last first, then are reversed in place.
        i, k, t = n_ref, n_agent - n_ref - lo, 0
        tool_count, full_count = 0, 0
        while True:
            code = move[i * width + k]
            if code == _START:
                break
            j = i + lo + k
            if code >= _INSERT_BIT:
                ops[b, t], agent_pos[b, t] = _OP_INSERT, j - 1
                k -= 1
            elif code >= _DELETE_BIT:
                ops[b, t], ref_pos[b, t] = _OP_DELETE, i - 1
                i -= 1
                k += 1
            else:
                ops[b, t], ref_pos[b, t], agent_pos[b, t] = _OP_PAIR, i - 1, j - 1
                full_op[b, t] = code >= 2
                tool_count += code & 1
                full_count += code >> 1
                i -= 1
            t += 1
        for s in range(t // 2):
            e = t - 1 - s
            ops[b, s], ops[b, e] = ops[b, e], ops[b, s]
            ref_pos[b, s], ref_pos[b, e] = ref_pos[b, e], ref_pos[b, s]
            agent_pos[b, s], agent_pos[b, e] = agent_pos[b, e], agent_pos[b, s]
            full_op[b, s], full_op[b, e] = full_op[b, e], full_op[b, s]
        n_ops[b], tool_pairs[b], full_pairs[b] = t, tool_count, full_count


@njit(cache=True, nogil=True)
def first_fit(
    ref_code: Any,
    agent_code: Any,
    ref_len: Any,
    agent_len: Any,
    agent_partner: Any,
    ref_partner: Any,
) -> None:
    """The ``c``-th agent step with a code takes the ``c``-th reference step with that code
    (when there is one), for the first ``ref_len[b]``/``agent_len[b]`` codes of each row;
    the partners arrive filled with -1.

    Per row, a hash table (open addressing) from each reference code to the first of its
    unused reference steps, which are chained in order by ``later``.
    """
    size = 2
    while size < 2 * ref_code.shape[1]:
        size *= 2
    mask = size - 1
    filled = np.zeros(size, dtype=np.bool_)
    code_at = np.empty(size, dtype=np.int64)
    first = np.empty(size, dtype=np.int64)  # the next unused reference step of the code
    later = np.empty(max(ref_code.shape[1], 1), dtype=np.int64)
    for b in range(ref_len.shape[0]):
        filled[:] = False
        for i in range(ref_len[b] - 1, -1, -1):
            code = ref_code[b, i]
            slot = _slot(code, mask)
            while filled[slot] and code_at[slot] != code:
                slot = (slot + 1) & mask
            later[i] = first[slot] if filled[slot] else -1
            filled[slot], code_at[slot], first[slot] = True, code, i
        for j in range(agent_len[b]):
            code = agent_code[b, j]
            slot = _slot(code, mask)
            while filled[slot] and code_at[slot] != code:
                slot = (slot + 1) & mask
            if filled[slot] and first[slot] >= 0:
                i = first[slot]
                agent_partner[b, j], ref_partner[b, i] = i, j
                first[slot] = later[i]


@njit(cache=True, nogil=True)
def twins(
    ident: Any,
    agent_len: Any,
    sound: Any,
    matched: Any,
    earlier: Any,
    later: Any,
    twin: Any,
) -> None:
    """Per agent step ``j < agent_len[b]``: ``earlier``, a step before it with the same
    identity is ``sound``; ``twin``, the first step after it with the same identity that is
    ``matched`` (-1: none; ``later``: there is one). The outputs arrive False / -1.

    Two passes per row over a hash table of identities: forwards (a sound step seen), then
    backwards (the last matched step seen)."""
    size = 2
    while size < 2 * ident.shape[1]:
        size *= 2
    mask = size - 1
    filled = np.zeros(size, dtype=np.bool_)
    code_at = np.empty(size, dtype=np.int64)
    seen = np.empty(size, dtype=np.int64)
    for b in range(agent_len.shape[0]):
        filled[:] = False
        for j in range(agent_len[b]):
            code = ident[b, j]
            slot = _slot(code, mask)
            while filled[slot] and code_at[slot] != code:
                slot = (slot + 1) & mask
            if filled[slot]:
                earlier[b, j] = seen[slot] > 0
                seen[slot] |= sound[b, j]
            else:
                filled[slot], code_at[slot], seen[slot] = True, code, sound[b, j]
        filled[:] = False
        for j in range(agent_len[b] - 1, -1, -1):
            code = ident[b, j]
            slot = _slot(code, mask)
            while filled[slot] and code_at[slot] != code:
                slot = (slot + 1) & mask
            if not filled[slot]:
                filled[slot], code_at[slot], seen[slot] = True, code, -1
            twin[b, j] = seen[slot]
            later[b, j] = seen[slot] >= 0
            if matched[b, j]:
                seen[slot] = j


@njit(cache=True, inline="always")
def _slot(code: int, mask: int) -> int:
    """The first slot tried for ``code`` (a multiplicative hash, its high bits folded in)."""
    mixed = code * 2654435761
    return (mixed ^ (mixed >> 29)) & mask
