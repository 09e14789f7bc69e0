"""Step order: what a reference step depends on, whether the agent kept to it, and the
reference order the alignment is computed against.

**Dependencies.** Under ``order = "total"`` reference step ``i`` depends on every earlier
step ``0 .. i-1``; under ``"partial"`` on the steps whose ids its ``after`` lists; under
``"none"`` on nothing.

**Out of order** means: a reference step was executed while a step it depends on had not
been executed before it (later, or never). It is judged on the agent's path in scored order
(:mod:`~pathgrade.metrics.trajectory.definition.turns`), with ``M`` = the number of
reference steps the one-to-one matching pairs (*executed*):

- ``total``: the first ``M`` reference steps are not a subsequence of the agent's path
  (:func:`total_embedding`; the lesson instead asks whether the *whole* reference is one —
  they differ only when the missing steps are all at the end: an agent that stopped early
  is penalised for the missing steps, not also for order);
- ``partial``: :func:`partial_placement` cannot place all ``M`` executed steps after their
  dependencies (exactly: a bounded search decides where the greedy placement falls short
  and reference steps compete for the agent's calls);
- ``none``: never;
- and, under ``total`` and ``partial``, when a call was made **before its turn and made again
  later** (:func:`premature`), even though the later call put things right.

**The closest linear extension.** For ``partial`` and ``none`` the alignment is computed
against the reference reordered as close to the agent as its dependencies allow: each
reference step gets a *slot* (:func:`slots`) and the steps are taken in slot order
(``none``) or in the topological order that takes the smallest slot first (``partial``).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from pathgrade.core.types import Step
from pathgrade.metrics.trajectory.definition.matching import Matching, Table

NEVER = 1 << 62  # the "position" of a reference step that was never executed


def dependencies(reference: Sequence[Step], order: str) -> list[list[int]]:
    """The reference positions each reference step depends on (module docstring)."""
    if order == "total":
        return [list(range(i)) for i in range(len(reference))]
    if order == "partial":
        ids = {step.id: i for i, step in enumerate(reference) if step.id is not None}
        return [[ids[name] for name in step.after] for step in reference]
    return [[] for _ in reference]


def topological_order(depends: Sequence[Sequence[int]], slot: Sequence[int]) -> list[int]:
    """Kahn's algorithm: repeatedly take, of the steps whose dependencies are all taken, the
    one with the smallest ``slot`` (then the lowest index)."""
    n = len(depends)
    waiting = [len(d) for d in depends]
    successors: list[list[int]] = [[] for _ in range(n)]
    for i, deps in enumerate(depends):
        for p in deps:
            successors[p].append(i)
    ready = [(slot[i], i) for i in range(n) if waiting[i] == 0]
    heapq.heapify(ready)
    out: list[int] = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(i)
        for k in successors[i]:
            waiting[k] -= 1
            if waiting[k] == 0:
                heapq.heappush(ready, (slot[k], k))
    if len(out) != n:
        raise ValueError("the 'after' edges of a reference path form a cycle")
    return out


def slots(tools: Table, matching: Matching) -> list[int]:
    """A target position for every reference step (smaller = earlier).

    A matched reference step takes its agent step's position. The unmatched ones then take,
    agent step by agent step in order, the position of an unmatched agent call of the same
    tool (each such call the lowest unmatched reference step of its tool); the rest, in
    reference order, take the remaining unmatched agent positions in order; any still left go
    after the agent's path, in reference order.
    """
    n_ref, n_agent = len(matching.ref_partner), len(matching.agent_partner)
    slot = list(matching.ref_partner)
    free_refs = [i for i in range(n_ref) if slot[i] < 0]
    free_agents = [j for j in range(n_agent) if matching.agent_partner[j] < 0]
    for j in list(free_agents):
        same_tool = [i for i in free_refs if tools[i][j]]
        if same_tool:
            slot[same_tool[0]] = j
            free_refs.remove(same_tool[0])
            free_agents.remove(j)
    for i, j in zip(free_refs, free_agents, strict=False):
        slot[i] = j
    for i in free_refs[len(free_agents) :]:
        slot[i] = n_agent + i
    return slot


def linear_extension(order: str, depends: Sequence[Sequence[int]], slot: list[int]) -> list[int]:
    """The reference positions in the order the alignment uses (module docstring)."""
    if order == "total":
        return list(range(len(slot)))
    if order == "none":
        return sorted(range(len(slot)), key=slot.__getitem__)
    return topological_order(depends, slot)


def total_embedding(table: Table, executed: int, n_agent: int) -> tuple[bool, list[int]]:
    """Whether the first ``executed`` reference steps are a subsequence of the agent's path,
    and the earliest embedding as ``agent_partner`` (reference position per agent step, -1).

    Each agent step, in order, is paired with the next reference step still to embed when it
    matches it (the greedy earliest embedding, which finds one whenever one exists). This is
    the lesson's ``inOrder`` run on the first ``executed`` steps instead of the whole
    reference (deviation (a), docs/trajectory.md).
    """
    partner = [-1] * n_agent
    pointer = 0
    for j in range(n_agent):
        if pointer < executed and table[pointer][j]:
            partner[j] = pointer
            pointer += 1
    return pointer >= executed, partner


def partial_placement(
    table: Table, depends: Sequence[Sequence[int]], extension: Sequence[int], executed: int
) -> tuple[bool, list[int]]:
    """Whether the executed reference steps can be placed after their dependencies, and the
    placement as ``ref_partner`` (agent position per reference step, -1: not placed).

    A *placement* gives distinct reference steps distinct agent steps that match them, each
    placed step after all its dependencies, which must be placed too; the path is in order
    when one places ``executed`` steps (``M``, the most any matching pairs). The placement
    is the greedy one (:func:`greedy_placement`) when it places ``M`` steps; else, when two
    reference steps match one agent step (so that they compete for it), the first one of
    the exact search (:func:`search_placement`) when it finds one within
    :data:`SEARCH_NODES` nodes; else the path is out of order (and the greedy placement is
    returned). Without competing steps the greedy placement is exact: each agent step can
    go to one reference step only, and placing each step as early as it can only helps the
    steps after it.
    """
    kept, position = greedy_placement(table, depends, extension, executed)
    if kept or not competing(table):
        return kept, position
    found = search_placement(table, depends, extension, executed)
    return (True, found) if found is not None else (False, position)


def greedy_placement(
    table: Table, depends: Sequence[Sequence[int]], extension: Sequence[int], executed: int
) -> tuple[bool, list[int]]:
    """The greedy placement: the reference steps are taken in ``extension`` (the closest
    linear extension); a step whose dependencies were all placed gets the earliest unused
    agent step that matches it after all of theirs; the others are not placed. In order
    when at least ``executed`` steps were placed."""
    position = [-1] * len(depends)
    used: set[int] = set()
    for i in extension:
        if any(position[p] < 0 for p in depends[i]):
            continue
        earliest = max((position[p] for p in depends[i]), default=-1) + 1
        for j in range(earliest, len(table[i])):
            if table[i][j] and j not in used:
                position[i] = j
                used.add(j)
                break
    placed = sum(1 for j in position if j >= 0)
    return placed >= executed, position


def competing(table: Table) -> bool:
    """Some agent step matches two or more reference steps (a reference that repeats a call
    the run makes, or two steps that match one call under a non-equivalence)."""
    return any(sum(1 for row in table if row[j]) >= 2 for j in range(len(table[0]) if table else 0))


#: The most nodes :func:`search_placement` visits before it gives up (docs/trajectory.md).
SEARCH_NODES = 10_000


def search_placement(
    table: Table,
    depends: Sequence[Sequence[int]],
    extension: Sequence[int],
    executed: int,
    limit: int = SEARCH_NODES,
) -> list[int] | None:
    """The first placement of ``executed`` steps in depth-first order (None: none, or none
    found within ``limit`` nodes).

    The reference steps are decided in ``extension`` order; each whose dependencies were
    all placed tries, in order, every unused agent step that matches it after all of
    theirs, and then being left out (allowed while fewer than ``len(extension) -
    executed`` steps are). Each step tried and each step left out is one node. The
    search's first path, as far as it goes, is the greedy placement.
    """
    n_agent = len(table[0]) if table else 0
    position = [-1] * len(depends)
    used: set[int] = set()
    nodes = 0  # visited so far; past ``limit`` every call returns False at once

    def decide(k: int, may_leave_out: int) -> bool:
        nonlocal nodes
        if k == len(extension):
            return True
        i = extension[k]
        if all(position[p] >= 0 for p in depends[i]):
            earliest = max((position[p] for p in depends[i]), default=-1) + 1
            for j in range(earliest, n_agent):
                if table[i][j] and j not in used:
                    nodes += 1
                    if nodes > limit:
                        return False
                    position[i] = j
                    used.add(j)
                    if decide(k + 1, may_leave_out):
                        return True
                    position[i] = -1
                    used.discard(j)
        if may_leave_out == 0:
            return False
        nodes += 1
        return nodes <= limit and decide(k + 1, may_leave_out - 1)

    found = decide(0, len(extension) - executed)
    return position if found else None


def premature(
    extra: Sequence[bool],
    twin: Sequence[int],
    matching: Matching,
    depends: Sequence[Sequence[int]],
) -> list[bool]:
    """Extra calls made before their turn and made again later.

    Agent step ``j`` is premature when it is extra, ``twin[j]`` (the first later agent step
    that is the same call and is matched, -1: none) is matched to reference step ``i``, and
    at ``j`` some step ``i`` depends on had not been executed yet (it is matched at a later
    position, or never). The lesson sees such a path in order when the later call completes
    the reference as a subsequence (deviation (b), docs/trajectory.md).
    """
    out = [False] * len(extra)
    for j, is_extra in enumerate(extra):
        if not is_extra or twin[j] < 0:
            continue
        i = matching.agent_partner[twin[j]]
        done = [matching.ref_partner[p] for p in depends[i]]
        out[j] = j < max((NEVER if at < 0 else at for at in done), default=-1)
    return out
