"""A plain implementation of the documented instance rule of the path grammar
(docs/trajectory.md, "A path grammar inside one reference"), written apart from
:mod:`pathgrade.metrics.trajectory.grammar` to test it (issue 38).

Each alternative (one combination of ``one_of`` branches, nested ones included) is made
explicit for a run: its calls in written order, every required copy, and each optional copy
that the run *uses*. Used is read off its definition as a matroid rank, not an incremental
matching: with ``rank(S)`` the size of a maximum one-to-one matching of the copies ``S`` to
the agent's steps (SciPy's Hopcroft-Karp), an optional copy ``c`` (in written order) is
used iff ``rank(R | U | {c}) > rank(R | U)``, ``R`` all required copies and ``U`` the
optional copies used so far. The instance is then an ordinary plain reference (no grammar
field; ``id`` and ``after`` where it is scored as a partial order) in a case of its own
whose ``order`` is the instance's, scored by the executable definition; the best instance
(highest ``path_score``, then ``composite``, then lowest reference, then lowest alternative)
is the run's result, with ``reference_branch`` made from the alternative.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from pathgrade import Case, Run, ScoringConfig, Step
from pathgrade.core.results import RunResult
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.definition import score_runs
from pathgrade.plugins import argument_matchers


@dataclass(frozen=True)
class Call:
    """One written call of an alternative: ``required`` copies always in the instance,
    ``extra`` more it may use (an ``optional`` step: 1; a ``repeat``: ``max - min``)."""

    step: Step
    source: str
    required: int
    extra: int
    unordered: bool
    optional: bool
    repeat: bool


def _calls(
    path: Sequence[Step], prefix: str, grouped: bool, start: int = 0
) -> Iterator[tuple[tuple[int, ...], tuple[Call, ...]]]:
    """(branch choices, calls) of each alternative of ``path[start:]``: the first
    ``one_of``'s choice varies slowest, a nested ``one_of``'s choices follow its parent's."""
    if start == len(path):
        yield (), ()
        return
    head, source = path[start], f"{prefix}[{start}]"
    here = grouped or head.group == "unordered"
    heads: list[tuple[tuple[int, ...], tuple[Call, ...]]] = []
    if head.one_of is None:
        if head.repeat is not None:
            least, most = head.repeat.min, head.repeat.max
            call = Call(head, source, least, most - least, here, False, True)
        else:
            call = Call(
                head, source, int(not head.optional), int(head.optional), here, head.optional, False
            )
        heads.append(((), (call,)))
    else:
        for b, branch in enumerate(head.one_of):
            for choices, calls in _calls(branch, f"{source}.one_of[{b}]", here):
                heads.append(((b, *choices), calls))
    for choices, calls in heads:
        for more, rest in _calls(path, prefix, grouped, start + 1):
            yield choices + more, calls + rest


def explicit_alternatives(path: Sequence[Step]) -> list[tuple[tuple[int, ...], tuple[Call, ...]]]:
    """Every alternative of ``path``, in the documented numbering."""
    return list(_calls(path, "", False))


def _rank(copies: Sequence[Call], agent: Sequence[Step], matchers: MatcherSet) -> int:
    """The size of a maximum one-to-one matching of ``copies`` to the agent's steps."""
    if not copies or not agent:
        return 0
    cells = np.array(
        [
            [
                s.tool == c.step.tool
                and matchers.for_tool(c.step.tool).match(c.step.arguments, s.arguments)
                for s in agent
            ]
            for c in copies
        ],
        dtype=np.int8,
    )
    if not cells.any():
        return 0
    matched = maximum_bipartite_matching(csr_matrix(cells), perm_type="column")
    return int((matched >= 0).sum())


def used_copies(calls: Sequence[Call], agent: Sequence[Step], matchers: MatcherSet) -> list[int]:
    """The copies of each call in the instance (module docstring: the rank rule)."""
    required = [c for c in calls for _ in range(c.required)]
    used = [c.required for c in calls]
    taken: list[Call] = []
    for k, call in enumerate(calls):
        for _ in range(call.extra):
            base = _rank(required + taken, agent, matchers)
            if _rank([*required, *taken, call], agent, matchers) > base:
                taken.append(call)
                used[k] += 1
    return used


def _blocks(calls: Sequence[Call]) -> list[int]:
    """The block of each written call: a new one unless it and the one before are both
    unordered."""
    out: list[int] = []
    for k, call in enumerate(calls):
        same = k > 0 and call.unordered and calls[k - 1].unordered
        out.append(0 if k == 0 else out[-1] + (0 if same else 1))
    return out


def _declared(calls: Sequence[Call], used: Sequence[int], kept: Sequence[int]) -> list[list[int]]:
    """Under ``partial``: each copy after its previous copy; a first copy after the last copy
    of each step it is declared after, or (left out) after what that one was after."""
    by_id = {c.step.id: k for k, c in enumerate(calls) if c.step.id is not None}
    last = {k: n for n, k in enumerate(kept)}

    def stands_for(k: int, seen: frozenset[int]) -> list[int]:
        if used[k]:
            return [last[k]]
        return [
            n
            for name in calls[k].step.after
            if by_id[name] not in seen
            for n in stands_for(by_id[name], seen | {by_id[name]})
        ]

    out: list[list[int]] = []
    for n, k in enumerate(kept):
        if n > 0 and kept[n - 1] == k:
            out.append([n - 1])
            continue
        after = chain.from_iterable(
            stands_for(by_id[name], frozenset({k})) for name in calls[k].step.after
        )
        out.append(list(dict.fromkeys(after)))
    return out


def instance_steps(
    calls: Sequence[Call], used: Sequence[int], case_order: str
) -> tuple[list[dict[str, Any]], str]:
    """The instance as a plain reference (step records) and the order it is scored under:
    the case's, but a partial order for a ``total`` case whose alternative writes an
    unordered call (used by the run or not)."""
    kept = [k for k, n in enumerate(used) for _ in range(n)]
    plain = [{"tool": calls[k].step.tool, "arguments": calls[k].step.arguments} for k in kept]
    if case_order == "none" or (case_order == "total" and not any(c.unordered for c in calls)):
        return plain, case_order
    if case_order == "total":
        block = _blocks(calls)
        after = [[p for p, q in enumerate(kept) if block[q] < block[k]] for k in kept]
    else:
        after = _declared(calls, used, kept)
    records = [
        {**step, "id": str(n), "after": [str(p) for p in deps]}
        for n, (step, deps) in enumerate(zip(plain, after, strict=True))
    ]
    return records, "partial"


@dataclass(frozen=True)
class _Instance:
    reference: int
    alternative: int
    case: Case
    branch: dict[str, Any] | None


def _instances(case: Case, run: Run, matchers: MatcherSet, key: str) -> list[_Instance]:
    record = case.model_dump(exclude_defaults=True, exclude={"reference", "references"})
    if not case.reference_paths():
        return [_Instance(-1, 0, Case.model_validate({**record, "case_id": key}), None)]
    out: list[_Instance] = []
    for r, path in enumerate(case.reference_paths()):
        grammar = any(
            s.optional or s.repeat is not None or s.group is not None or s.one_of is not None
            for s in path
        )
        if not grammar:
            steps = [s.model_dump(exclude_defaults=True) for s in path]
            made = Case.model_validate({**record, "case_id": f"{key}/{r}", "reference": steps})
            out.append(_Instance(r, 0, made, None))
            continue
        for a, (choices, calls) in enumerate(explicit_alternatives(path)):
            used = used_copies(calls, run.steps, matchers)
            steps, order = instance_steps(calls, used, case.order)
            made = Case.model_validate(
                {**record, "case_id": f"{key}/{r}/{a}", "reference": steps, "order": order}
            )
            branch = {
                "one_of": list(choices),
                "optional": [
                    c.source for c, n in zip(calls, used, strict=True) if c.optional and n
                ],
                "repeat": {c.source: n for c, n in zip(calls, used, strict=True) if c.repeat},
            }
            out.append(_Instance(r, a, made, branch))
    return out


def _rank_key(result: RunResult, instance: _Instance) -> tuple[float, float, int, int]:
    def value(name: str) -> float:
        v = result.metrics[name]
        return -math.inf if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)

    return (-value("path_score"), -value("composite"), instance.reference, instance.alternative)


def score_as_instances(
    cases: Sequence[Case], runs: Sequence[Run], config: ScoringConfig
) -> list[RunResult]:
    """Every run's trajectory result by the documented rule: its case's references made
    explicit as plain instances, each scored as a plain reference, the best kept.

    Steps are shown as the definition shows them for the grammar cases (their first
    occurrence in the runs, then in the cases' written calls): a run carrying those calls,
    scored first and dropped, fixes the texts."""
    matchers = MatcherSet(config.matching, argument_matchers())
    by_id: Mapping[str, Case] = {c.case_id: c for c in cases}
    used = [by_id[i] for i in dict.fromkeys(run.case_id for run in runs)]
    written = [
        {"tool": s.tool, "arguments": s.arguments}
        for case in used
        for path in case.reference_paths()
        for s in _leaves(path)
    ]
    texts = Case.model_validate({"case_id": "texts"})
    lead = [run.model_copy(update={"case_id": "texts"}) for run in runs]
    lead.append(Run.model_validate({"case_id": "texts", "steps": written}))
    plan: list[tuple[int, list[_Instance]]] = []
    oracle_cases: list[Case] = [texts]
    oracle_runs: list[Run] = list(lead)
    for r, run in enumerate(runs):
        made = _instances(by_id[run.case_id], run, matchers, f"run{r}")
        plan.append((len(oracle_runs), made))
        oracle_cases += [m.case for m in made]
        oracle_runs += [run.model_copy(update={"case_id": m.case.case_id}) for m in made]
    scored = score_runs(oracle_cases, oracle_runs, config, argument_matchers())
    out: list[RunResult] = []
    for (start, made), run in zip(plan, runs, strict=True):
        results = scored[start : start + len(made)]
        best = min(range(len(made)), key=lambda k: _rank_key(results[k], made[k]))
        out.append(
            replace(
                results[best],
                case_id=run.case_id,
                reference_index=None if made[best].reference < 0 else made[best].reference,
                reference_branch=made[best].branch,
            )
        )
    return out


def _leaves(path: Sequence[Step]) -> list[Step]:
    """The calls written in ``path``, depth first."""
    return [
        leaf
        for s in path
        for leaf in ([s] if s.one_of is None else [x for b in s.one_of for x in _leaves(b)])
    ]
