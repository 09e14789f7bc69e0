"""Where successful runs disagree, read as grammar: choices (``one_of``) and any-order runs
of steps (``group: "unordered"``), for :mod:`pathgrade.cases.mine`.

Both work on *keys* (a call's tool and arguments) of the **base path** (the proposal's steps,
in order), given the statistics and precedence edges :mod:`~pathgrade.cases.mine` computes
(``edges``: ``a -> b`` kept when it holds in every run calling both).

**Choices.** Two calls are *alternatives* of one another when no successful run calls both,
each is called at most once per run, and they sit at the same place: every other base step
that has a kept edge to (from) one has it to (from) the other. For a base step ``x``, its
choice is ``x`` with every alternative of ``x`` (and of each other: pairwise) that is
*supported*: called by at least ``min_runs`` successful runs and at least ``min_share`` of
them. The choice is proposed (``one_of: [[x], [y], ...]``, branches by support, most first,
then first seen) when it has two or more calls and **every** successful run calls one of
them; otherwise ``x`` stays as it was (optional when some run does not call it). A branch is
one call: alternative sub-paths of several calls are not inferred.

**Unordered groups.** The base steps are cut into *blocks*: consecutive steps ``k_i``,
``k_{i+1}`` are in one block when no kept edge orders them either way. The proposal is
``total`` with groups when every step of a block has a kept edge to every step of every later
block, and within each block of two or more steps, each step is called at most once per run
and every pair of them was seen in both orders (some run made ``a`` before ``b``, another
``b`` before ``a``). Each step of such a block gets ``group: "unordered"`` (and is not made a
choice). Otherwise the order is what :mod:`~pathgrade.cases.mine` says without groups
(``total`` when the edges chain the base, else ``partial``, and then no choices: a
``one_of`` inside a partial order would need ids on its branches).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from itertools import pairwise
from typing import Protocol

Edges = Mapping[tuple[Hashable, Hashable], int]


class Counted(Protocol):
    """What is known of one call across the successful runs (:class:`~.mine.StepStats`)."""

    @property
    def support(self) -> int: ...

    @property
    def max_count(self) -> int: ...


def _same_place(x: Hashable, y: Hashable, others: Sequence[Hashable], edges: Edges) -> bool:
    return all(
        ((r, x) in edges) == ((r, y) in edges) and ((x, r) in edges) == ((y, r) in edges)
        for r in others
        if r not in (x, y)
    )


def choices(
    base: Sequence[Hashable],
    keyed: Sequence[Sequence[Hashable]],
    stats: Mapping[Hashable, Counted],
    edges: Edges,
    *,
    min_runs: int,
    min_share: float,
) -> dict[Hashable, list[Hashable]]:
    """Per base step with a proposed choice, its calls (itself included, most supported
    first): module docstring."""
    n = len(keyed)
    called = [set(path) for path in keyed]
    order = list(stats)  # first seen first

    def supported(key: Hashable) -> bool:
        s = stats[key]
        return s.max_count == 1 and s.support >= min_runs and s.support >= min_share * n

    def exclusive(a: Hashable, b: Hashable) -> bool:
        return not any(a in c and b in c for c in called)

    out: dict[Hashable, list[Hashable]] = {}
    taken = set(base)
    for x in base:
        if not supported(x) or stats[x].support == n:
            continue
        group = [x]
        for y in order:
            if y in taken or not supported(y):
                continue
            if all(exclusive(y, g) and _same_place(g, y, base, edges) for g in group):
                group.append(y)
        if len(group) > 1 and sum(stats[g].support for g in group) == n:
            group.sort(key=lambda g: (-stats[g].support, order.index(g)))
            out[x] = group
            taken.update(group)
    return out


def unordered_blocks(
    base: Sequence[Hashable],
    keyed: Sequence[Sequence[Hashable]],
    stats: Mapping[Hashable, Counted],
    edges: Edges,
) -> list[list[Hashable]] | None:
    """The blocks of the base (module docstring) when the proposal is ``total`` with at
    least one unordered group; None otherwise."""
    if not base:
        return None
    blocks: list[list[Hashable]] = [[base[0]]]
    for a, b in pairwise(base):
        if (a, b) in edges or (b, a) in edges:
            blocks.append([b])
        else:
            blocks[-1].append(b)
    if all(len(block) == 1 for block in blocks):
        return None
    for p, earlier in enumerate(blocks):
        for later in blocks[p + 1 :]:
            if not all((a, b) in edges for a in earlier for b in later):
                return None
    for block in blocks:
        if len(block) == 1:
            continue
        if any(stats[k].max_count != 1 for k in block):
            return None
        for i, a in enumerate(block):
            for b in block[i + 1 :]:
                if not (_before(keyed, a, b) and _before(keyed, b, a)):
                    return None
    return blocks


def _before(keyed: Sequence[Sequence[Hashable]], a: Hashable, b: Hashable) -> bool:
    """Some run calls both, ``a`` first (each at most once per run here)."""
    for path in keyed:
        if a in path and b in path and list(path).index(a) < list(path).index(b):
            return True
    return False
