"""Parallel calls: the steps of one turn have no order among them.

A *parallel group* is a run of adjacent agent steps with the same ``Step.turn`` (a turn of
``None`` or below 0 makes a step a group of its own). An agent that issues ``lookup`` and
``search`` in one turn did not do either first, so the path is scored in the order most
favourable to the reference, the **scored order**: groups keep their place in the path, and
inside each group

1. the steps the one-to-one matching of the recorded path pairs with a reference step come
   first, in the reference's order (under ``order = "partial"``: the topological order of the
   reference that takes the lowest index first, so a step never comes before one it depends
   on),
2. then the others, as recorded.

Every position reported (defects, alignment) is the recorded one. (The lesson has no turns:
deviation (e), docs/trajectory.md.)
"""

from __future__ import annotations

from collections.abc import Sequence

from pathgrade.core.types import Step
from pathgrade.metrics.trajectory.definition.matching import Table, one_to_one
from pathgrade.metrics.trajectory.definition.order import topological_order


def parallel_groups(steps: Sequence[Step]) -> list[list[int]]:
    """The agent positions of each group, in path order."""
    groups: list[list[int]] = []
    for j, step in enumerate(steps):
        turn = step.turn
        grouped = turn is not None and turn >= 0
        if grouped and groups and steps[groups[-1][-1]].turn == turn:
            groups[-1].append(j)
        else:
            groups.append([j])
    return groups


def scored_order(
    steps: Sequence[Step],
    table: Table,
    n_ref: int,
    order: str,
    dependencies: Sequence[Sequence[int]],
) -> list[int]:
    """The recorded position of each step of the scored order (see module docstring);
    ``table`` is the match table of the recorded path."""
    if not any(s.turn is not None and s.turn >= 0 for s in steps):
        return list(range(len(steps)))
    partner = one_to_one(table, n_ref, len(steps)).agent_partner
    rank = list(range(n_ref))
    if order == "partial":
        for place, i in enumerate(topological_order(dependencies, list(range(n_ref)))):
            rank[i] = place
    out: list[int] = []
    for group in parallel_groups(steps):
        matched = sorted((rank[partner[j]], j) for j in group if partner[j] >= 0)
        out += [j for _, j in matched] + [j for j in group if partner[j] < 0]
    return out
