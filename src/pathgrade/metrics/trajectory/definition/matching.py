"""Which steps match, which calls are the same call, and the one-to-one matching.

- Reference step ``r`` and agent step ``a`` **match** when they call the same tool and the
  arguments match under that tool's mode (:meth:`ToolMatcher.match
  <pathgrade.metrics.trajectory.arguments.ToolMatcher.match>` is the definition of "the
  arguments match": ``exact``, ``normalized``, ``fuzzy``, ``subset``, ``ignore``, per-field
  overrides and plug-ins, docs/trajectory.md "Matching a step to a reference step").
- Two agent steps are **the same call** (a repeat) when they call the same tool with the same
  arguments: equal under the tool's mode when that mode is an equivalence that reads every
  argument (``exact``, ``normalized``, field overrides of those kinds), else equal under
  ``exact``. So under ``ignore``, ``fuzzy`` or ``subset`` matching a repeat still needs the
  same arguments.
- A step **failed** when its ``error`` is set (not empty).
- The **one-to-one matching** ignores order (:func:`one_to_one`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pathgrade.core.types import Step
from pathgrade.metrics.trajectory.arguments import MatcherSet, freeze

#: ``table[i][j]``: reference step ``i`` and agent step ``j`` are related.
Table = Sequence[Sequence[bool]]


def steps_match(reference: Step, agent: Step, matchers: MatcherSet) -> bool:
    """Same tool, and the arguments match under the tool's mode."""
    if reference.tool != agent.tool:
        return False
    return matchers.for_tool(reference.tool).match(reference.arguments, agent.arguments)


def same_call(a: Step, b: Step, matchers: MatcherSet) -> bool:
    """Same tool and the same arguments (see the module docstring)."""
    if a.tool != b.tool:
        return False
    matcher = matchers.for_tool(a.tool)
    if matcher.keyable and matcher.identifies:
        return matcher.key(a.arguments) == matcher.key(b.arguments)
    return freeze(a.arguments) == freeze(b.arguments)


def failed(step: Step) -> bool:
    """The step returned an error."""
    return bool(step.error)


def match_table(reference: Sequence[Step], agent: Sequence[Step], matchers: MatcherSet) -> Table:
    """``table[i][j]``: reference step ``i`` and agent step ``j`` match (tool and arguments)."""
    return [[steps_match(r, a, matchers) for a in agent] for r in reference]


def tool_table(reference: Sequence[Step], agent: Sequence[Step]) -> Table:
    """``table[i][j]``: reference step ``i`` and agent step ``j`` call the same tool."""
    return [[r.tool == a.tool for a in agent] for r in reference]


def tool_overlap(reference: Sequence[Step], agent: Sequence[Step]) -> int:
    """``|reference tools ∩ agent tools|`` as multisets."""
    ours, theirs = Counter(s.tool for s in reference), Counter(s.tool for s in agent)
    return sum(min(count, theirs[tool]) for tool, count in ours.items())


@dataclass(frozen=True)
class Matching:
    """A one-to-one matching: ``agent_partner[j]`` is the reference step agent step ``j`` is
    paired with, ``ref_partner[i]`` the agent step of reference step ``i`` (-1: none)."""

    agent_partner: list[int]
    ref_partner: list[int]

    @classmethod
    def from_agent_partners(cls, agent_partner: list[int], n_ref: int) -> Matching:
        ref_partner = [-1] * n_ref
        for j, i in enumerate(agent_partner):
            if i >= 0:
                ref_partner[i] = j
        return cls(agent_partner, ref_partner)

    @classmethod
    def from_ref_partners(cls, ref_partner: list[int], n_agent: int) -> Matching:
        agent_partner = [-1] * n_agent
        for i, j in enumerate(ref_partner):
            if j >= 0:
                agent_partner[j] = i
        return cls(agent_partner, ref_partner)

    @property
    def size(self) -> int:
        return sum(1 for j in self.ref_partner if j >= 0)


def one_to_one(table: Table, n_ref: int, n_agent: int) -> Matching:
    """The optimal one-to-one matching that ignores order.

    1. It has the most pairs possible, and its agent steps are the earliest possible: the
       agent steps are taken in order, each when it and the steps taken before it can all
       be matched at once.
    2. Each taken agent step, in agent order, is paired with the lowest reference step that
       still lets the later taken steps be matched.

    For an equivalence (``exact``, ``normalized``, ``ignore``) this is what a first fit gives:
    each agent step, in order, takes the first unused reference step it matches; so with
    ``[lookup, lookup]`` against ``[lookup]`` the second call is the extra one, and with
    ``[lookup]`` against ``[lookup, lookup]`` reference step 1 is the missing one. For
    ``fuzzy``, ``subset`` and tolerances it is still optimal, never a greedy first fit.

    The lesson's ``missing`` tests membership instead (a reference step is missing when the
    run never makes it); with distinct reference steps the two agree, and a reference that
    repeats a call expects it as often (deviation (c), docs/trajectory.md).
    """
    refs = list(range(n_ref))
    taken: list[int] = []
    for j in range(n_agent):
        if _matchable([*taken, j], refs, table):
            taken.append(j)
    agent_partner = [-1] * n_agent
    used: set[int] = set()
    for k, j in enumerate(taken):
        for i in refs:
            if not table[i][j] or i in used:
                continue
            rest = [r for r in refs if r not in used and r != i]
            if _matchable(taken[k + 1 :], rest, table):
                agent_partner[j] = i
                used.add(i)
                break
    return Matching.from_agent_partners(agent_partner, n_ref)


def _matchable(agents: Sequence[int], refs: Sequence[int], table: Table) -> bool:
    """Whether every agent step of ``agents`` can be paired with its own reference step of
    ``refs`` at once (augmenting paths: Kuhn's algorithm)."""
    holder: dict[int, int] = {}  # reference step -> agent step seated there

    def seat(j: int, seen: set[int]) -> bool:
        for i in refs:
            if table[i][j] and i not in seen:
                seen.add(i)
                if i not in holder or seat(holder[i], seen):
                    holder[i] = j
                    return True
        return False

    return all(seat(j, set()) for j in agents)
