"""The alignment: an optimal edit script of the agent's path against the reference.

The script minimises, in this order,

1. the Levenshtein distance over tool names: each insertion (an extra agent step), deletion
   (a missing reference step) and pair of different tools costs 1;
2. the number of pairs whose tools match but whose arguments do not,

so among equally short scripts, pairs that match in full win. Ties break the same way every
time: walking back from the end of both paths, an insertion is preferred, then a deletion,
then a pair (so the later of two equivalent agent calls is the extra one).

The reference is taken in its linear extension closest to the agent (total order: as
given) and the agent's path in scored order; each entry reports the original positions.
Every entry is a ``match`` (a pair matching in tool and arguments), a ``substitution``
(another pair; ``tool_match`` says whether the tool agreed), an ``insertion`` or a
``deletion``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pathgrade.metrics.trajectory.definition.matching import Table

PAIR, INSERT, DELETE = "pair", "insert", "delete"


@dataclass(frozen=True)
class Op:
    """One entry of the script: ``kind`` with the (0-based) reference and agent positions it
    covers in the aligned sequences (-1: none), and whether a pair matched in full."""

    kind: str
    ref_pos: int
    agent_pos: int
    full: bool


@dataclass(frozen=True)
class Script:
    """The ops in path order, the Levenshtein distance over tools, and the number of pairs
    whose tools match (``tool_pairs``) and that match in full (``full_pairs``)."""

    ops: list[Op]
    distance: int
    tool_pairs: int
    full_pairs: int


def align(tools: Table, full: Table, n_ref: int, n_agent: int) -> Script:
    """The optimal script (module docstring); ``tools[i][j]``/``full[i][j]``: reference step
    ``i`` and agent step ``j`` call the same tool / also match in arguments."""
    # cost[i][j] = (edits, tool-only pairs) of the best script for the first i reference
    # and j agent steps; move[i][j] = the last op of that script.
    cost = [[(0, 0)] * (n_agent + 1) for _ in range(n_ref + 1)]
    move = [[""] * (n_agent + 1) for _ in range(n_ref + 1)]
    for j in range(1, n_agent + 1):
        cost[0][j], move[0][j] = (j, 0), INSERT
    for i in range(1, n_ref + 1):
        cost[i][0], move[i][0] = (i, 0), DELETE
        for j in range(1, n_agent + 1):
            edits, mismatches = cost[i - 1][j - 1]
            if not tools[i - 1][j - 1]:
                pair = (edits + 1, mismatches)
            elif full[i - 1][j - 1]:
                pair = (edits, mismatches)
            else:
                pair = (edits, mismatches + 1)
            deletion = (cost[i - 1][j][0] + 1, cost[i - 1][j][1])
            insertion = (cost[i][j - 1][0] + 1, cost[i][j - 1][1])
            if insertion <= min(deletion, pair):
                cost[i][j], move[i][j] = insertion, INSERT
            elif deletion <= pair:
                cost[i][j], move[i][j] = deletion, DELETE
            else:
                cost[i][j], move[i][j] = pair, PAIR
    ops: list[Op] = []
    i, j = n_ref, n_agent
    while i or j:
        kind = move[i][j]
        if kind == PAIR:
            ops.append(Op(PAIR, i - 1, j - 1, bool(full[i - 1][j - 1])))
            i, j = i - 1, j - 1
        elif kind == DELETE:
            ops.append(Op(DELETE, i - 1, -1, False))
            i -= 1
        else:
            ops.append(Op(INSERT, -1, j - 1, False))
            j -= 1
    ops.reverse()
    pairs = [op for op in ops if op.kind == PAIR]
    return Script(
        ops=ops,
        distance=cost[n_ref][n_agent][0],
        tool_pairs=sum(1 for op in pairs if tools[op.ref_pos][op.agent_pos]),
        full_pairs=sum(1 for op in pairs if op.full),
    )
