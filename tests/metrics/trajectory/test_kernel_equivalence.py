"""The batched trajectory kernels against plain one-pair-at-a-time definitions (hypothesis).

The kernels pack reference steps into machine words (8, 16, 32 or 64 bits, a row-by-row path
beyond 64) and pick the DP's integer type from the widths, so the widths drawn here straddle
every one of those boundaries.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade.metrics.trajectory.align import OP_DELETE, OP_INSERT, OP_NONE, OP_PAIR, align
from pathgrade.metrics.trajectory.assignment import first_fit_matching
from pathgrade.metrics.trajectory.order import total_in_order

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
WIDTHS = [1, 2, 5, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 70, 91]
KERNEL = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _batch(seed: int, width: int, n_pairs: int) -> tuple[BoolArray, BoolArray, IntArray, IntArray]:
    """Random padded ``(tool_eq, full_eq, ref_len, agent_len)``; pads match nothing."""
    rng = np.random.default_rng(seed)
    ref_len = rng.integers(0, width + 1, n_pairs)
    agent_len = rng.integers(0, width + 4, n_pairs)
    width_r, width_a = max(int(ref_len.max()), 1), max(int(agent_len.max()), 1)
    n_tools = int(rng.integers(1, 5))
    ref_tool = rng.integers(0, n_tools, (n_pairs, width_r))
    agent_tool = rng.integers(0, n_tools, (n_pairs, width_a))
    ref_tool[np.arange(width_r)[None, :] >= ref_len[:, None]] = -1
    agent_tool[np.arange(width_a)[None, :] >= agent_len[:, None]] = -2
    tool_eq = ref_tool[:, :, None] == agent_tool[:, None, :]
    full_eq = tool_eq & (rng.random(tool_eq.shape) < rng.random())
    return tool_eq, full_eq, ref_len, agent_len


def _first_fit_one(eq: BoolArray, n_agent: int) -> list[int]:
    used: set[int] = set()
    partner = [-1] * eq.shape[1]
    for j in range(n_agent):
        for i in range(eq.shape[0]):
            if eq[i, j] and i not in used:
                used.add(i)
                partner[j] = i
                break
    return partner


def _align_one(
    tool: BoolArray, full: BoolArray, n_ref: int, n_agent: int, unit: int
) -> tuple[list[tuple[int, int, int, bool]], int, int, int]:
    """(op, ref_pos, agent_pos, full) per op, distance, tool pairs, full pairs of one pair."""
    cost = [[0] * (n_agent + 1) for _ in range(n_ref + 1)]
    move = [[OP_NONE] * (n_agent + 1) for _ in range(n_ref + 1)]
    for i in range(n_ref + 1):
        for j in range(n_agent + 1):
            if i == 0 and j == 0:
                continue
            if i == 0:
                cost[i][j], move[i][j] = cost[i][j - 1] + unit, OP_INSERT
                continue
            if j == 0:
                cost[i][j], move[i][j] = cost[i - 1][j] + unit, OP_DELETE
                continue
            pair = cost[i - 1][j - 1] + (1 if tool[i - 1, j - 1] else unit) - full[i - 1, j - 1]
            deletion, insertion = cost[i - 1][j] + unit, cost[i][j - 1] + unit
            best = min(deletion, pair)
            if insertion <= best:
                cost[i][j], move[i][j] = insertion, OP_INSERT
            else:
                cost[i][j], move[i][j] = best, OP_DELETE if deletion <= pair else OP_PAIR
    ops: list[tuple[int, int, int, bool]] = []
    i, j, tool_pairs, full_pairs = n_ref, n_agent, 0, 0
    while i or j:
        op = move[i][j]
        if op == OP_PAIR:
            ops.append((op, i - 1, j - 1, bool(full[i - 1, j - 1])))
            tool_pairs += bool(tool[i - 1, j - 1])
            full_pairs += bool(full[i - 1, j - 1])
            i, j = i - 1, j - 1
        elif op == OP_DELETE:
            ops.append((op, i - 1, -1, False))
            i -= 1
        else:
            ops.append((op, -1, j - 1, False))
            j -= 1
    return ops[::-1], cost[n_ref][n_agent] // unit, tool_pairs, full_pairs


@KERNEL
@given(st.integers(0, 2**32 - 1), st.sampled_from(WIDTHS), st.integers(1, 6))
def test_first_fit_matching_is_the_one_pair_first_fit(seed: int, width: int, n: int) -> None:
    _, full_eq, _, agent_len = _batch(seed, width, n)
    agent_partner, ref_partner = first_fit_matching(full_eq, agent_len)
    assert agent_partner.dtype == ref_partner.dtype == np.int64
    for b in range(n):
        expected = _first_fit_one(full_eq[b], int(agent_len[b]))
        assert agent_partner[b].tolist() == expected
        back = [-1] * full_eq.shape[1]
        for j, i in enumerate(expected):
            if i >= 0:
                back[i] = j
        assert ref_partner[b].tolist() == back


@KERNEL
@given(st.integers(0, 2**32 - 1), st.sampled_from(WIDTHS), st.integers(1, 6))
def test_total_in_order_is_the_greedy_earliest_embedding(seed: int, width: int, n: int) -> None:
    _, full_eq, ref_len, agent_len = _batch(seed, width, n)
    executed = np.random.default_rng(seed).integers(0, ref_len + 1)
    in_order, partner = total_in_order(full_eq, executed, agent_len)
    for b in range(n):
        expected, pointer = [-1] * full_eq.shape[2], 0
        for j in range(int(agent_len[b])):
            if pointer < executed[b] and full_eq[b, pointer, j]:
                expected[j], pointer = pointer, pointer + 1
        assert partner[b].tolist() == expected
        assert bool(in_order[b]) == (pointer >= executed[b])


@KERNEL
@given(st.integers(0, 2**32 - 1), st.sampled_from(WIDTHS), st.integers(1, 5))
def test_align_is_the_one_pair_edit_script(seed: int, width: int, n: int) -> None:
    tool_eq, full_eq, ref_len, agent_len = _batch(seed, width, n)
    _, width_r, width_a = tool_eq.shape
    result = align(tool_eq, full_eq, ref_len, agent_len)
    for field in ("ops", "ref_pos", "agent_pos", "n_ops", "distance", "tool_pairs"):
        assert getattr(result, field).dtype == np.int64
    assert result.ops.shape == (n, width_r + width_a)
    for b in range(n):
        ops, distance, tool_pairs, full_pairs = _align_one(
            tool_eq[b], full_eq[b], int(ref_len[b]), int(agent_len[b]), width_r + width_a + 1
        )
        k = len(ops)
        assert int(result.n_ops[b]) == k
        got = zip(
            result.ops[b, :k].tolist(),
            result.ref_pos[b, :k].tolist(),
            result.agent_pos[b, :k].tolist(),
            result.full_op[b, :k].tolist(),
            strict=True,
        )
        assert list(got) == ops
        assert (result.ops[b, k:] == OP_NONE).all()
        assert (result.ref_pos[b, k:] == -1).all() and (result.agent_pos[b, k:] == -1).all()
        assert not result.full_op[b, k:].any()
        assert (int(result.distance[b]), int(result.tool_pairs[b])) == (distance, tool_pairs)
        assert int(result.full_pairs[b]) == full_pairs
