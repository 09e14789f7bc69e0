"""Proposing reference paths from successful runs (``pathgrade cases mine``).

For one case, the **successful runs** are those with ``success`` true, or, when ``success``
is not recorded, ``metadata.reward == 1``. A run's **path** is its calls in order, failed
calls (``error`` set) left out: a call that failed changed nothing and is no part of a gold
path. Two calls are the **same step** when tool and arguments are equal (exact matching,
:func:`pathgrade.cases.walk.step_key`). With ``n`` successful runs:

- **distinct paths**: each different path with the number of runs that took it;
- **step statistics**: a step's *support* is the number of runs that call it; it is
  *required* when its support is ``n``, *optional* otherwise; its *repeat bounds* are the
  fewest and most times one of those runs calls it;
- **precedence edges**: ``a -> b`` holds in a run that calls both when every call of ``a``
  comes before every call of ``b``; an edge is kept when it holds in every run that calls
  both (its *support*: how many do, at least 1).

**The proposed reference** follows the **base path**: the shortest successful path (ties: the
one more runs took, then the first seen). Successful logs may be sub-optimal, so where the
paths disagree on length, steps that only longer paths make are left out, and the case
metadata says so. Each distinct step of the base path becomes one reference step (at its
first call), with ``optional: true`` when not every successful run calls it (and none twice),
``repeat: {"min", "max"}`` when its bounds are not exactly 1..1 (``min`` 0 when not every run
calls it: the grammar's optional repeat), and ``metadata.support``. The
order is ``total`` when the kept edges order every pair of base steps as the base path does;
else ``total`` with ``group: "unordered"`` runs of steps the runs made in either order; else
``partial``, each step with an ``id`` and ``after`` naming its direct predecessors (an edge
is implied, and left out, only through a *required* step between the two). Under ``total``,
a base step whose place other successful runs filled with another call becomes a ``one_of``
choice. The exact rules of choices and groups (support thresholds ``min_choice_runs`` and
``min_choice_share``) are :mod:`pathgrade.cases.disagreement`'s.

The case record keeps every other field of the case, replaces ``reference``/``references``,
and gets ``metadata.status = "proposed"`` and ``metadata.mined`` (the statistics above).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pathgrade.cases.disagreement import choices, unordered_blocks
from pathgrade.cases.walk import step_key
from pathgrade.core.types import Case, Run, Step, format_step


@dataclass(frozen=True)
class StepStats:
    """One distinct step of the successful paths."""

    step: Step
    support: int
    required: bool
    min_count: int
    max_count: int


@dataclass(frozen=True)
class Edge:
    """``before`` comes before ``after`` in every successful run calling both (``support``)."""

    before: Step
    after: Step
    support: int


@dataclass(frozen=True)
class Mined:
    """What the successful runs of one case say, and the reference proposed from them."""

    case_id: str
    runs: int
    paths: tuple[tuple[tuple[Step, ...], int], ...]
    steps: tuple[StepStats, ...]
    edges: tuple[Edge, ...]
    choice: str
    record: dict[str, Any]


def successful(run: Run) -> bool:
    """``success`` is true, or not recorded and ``metadata.reward`` is exactly 1."""
    if run.success is not None:
        return run.success
    reward = run.metadata.get("reward")
    return isinstance(reward, int | float) and not isinstance(reward, bool) and reward == 1


def run_path(run: Run) -> tuple[Step, ...]:
    """The run's calls in order, failed calls left out."""
    return tuple(step for step in run.steps if not step.error)


#: A choice's calls must each be made by at least this many successful runs ...
MIN_CHOICE_RUNS = 2
#: ... and by at least this share of them (:mod:`pathgrade.cases.disagreement`).
MIN_CHOICE_SHARE = 0.2


def mine_cases(
    cases: Iterable[Case] | Mapping[str, Case],
    runs: Iterable[Run],
    *,
    min_choice_runs: int = MIN_CHOICE_RUNS,
    min_choice_share: float = MIN_CHOICE_SHARE,
) -> list[Mined]:
    """:func:`mine_case` for every case with at least one successful run, in case order."""
    items = list(cases.values()) if isinstance(cases, Mapping) else list(cases)
    by_case: dict[str, list[Run]] = {}
    for run in runs:
        by_case.setdefault(run.case_id, []).append(run)
    out = [
        mine_case(
            case,
            by_case.get(case.case_id, ()),
            min_choice_runs=min_choice_runs,
            min_choice_share=min_choice_share,
        )
        for case in items
    ]
    return [m for m in out if m is not None]


def mine_case(
    case: Case,
    runs: Iterable[Run],
    *,
    min_choice_runs: int = MIN_CHOICE_RUNS,
    min_choice_share: float = MIN_CHOICE_SHARE,
) -> Mined | None:
    """The statistics and proposed reference of ``case`` (module docstring); None when no
    run of it succeeded. Runs of other cases are ignored."""
    paths = [run_path(r) for r in runs if r.case_id == case.case_id and successful(r)]
    if not paths:
        return None
    n = len(paths)
    keyed = [tuple(map(step_key, path)) for path in paths]
    first_step: dict[Hashable, Step] = {}
    for path in paths:
        for step in path:
            first_step.setdefault(step_key(step), step)
    counts = [Counter(keys) for keys in keyed]
    stats = {
        key: StepStats(
            step=first_step[key],
            support=sum(1 for c in counts if key in c),
            required=all(key in c for c in counts),
            min_count=min(c[key] for c in counts if key in c),
            max_count=max(c[key] for c in counts if key in c),
        )
        for key in first_step
    }
    edges = _edges(keyed, list(first_step))
    distinct = Counter(keyed)
    order = list(dict.fromkeys(keyed))  # distinct paths, first seen first
    base = min(order, key=lambda p: (len(p), -distinct[p], order.index(p)))
    choice = _choice(order, base, distinct, n)
    keys = list(dict.fromkeys(base))
    chain = all((a, b) in edges for i, a in enumerate(keys) for b in keys[i + 1 :])
    blocks = None if chain else unordered_blocks(keys, keyed, stats, edges)
    mode = "total" if chain or blocks is not None else "partial"
    grouped = {k for block in blocks or () if len(block) > 1 for k in block}
    chosen = {}
    if mode == "total":  # a member of an unordered group stays one call
        found = choices(
            keys, keyed, stats, edges, min_runs=min_choice_runs, min_share=min_choice_share
        )
        chosen = {k: calls for k, calls in found.items() if k not in grouped}
    reference = _reference(keys, stats, edges, n, mode, chosen, grouped)
    listed = tuple((paths[keyed.index(p)], distinct[p]) for p in sorted(order, key=_by(distinct)))
    mined = Mined(
        case_id=case.case_id,
        runs=n,
        paths=listed,
        steps=tuple(stats.values()),
        edges=tuple(
            Edge(first_step[a], first_step[b], support) for (a, b), support in edges.items()
        ),
        choice=choice,
        record={},
    )
    record = case.model_dump(mode="json", exclude_defaults=True)
    record.pop("references", None)
    record["reference"] = reference
    record["order"] = mode
    record["metadata"] = {**case.metadata, "status": "proposed", "mined": _summary(mined)}
    return replace(mined, record=record)


def _by(distinct: Counter[tuple[Hashable, ...]]) -> Any:
    order = list(distinct)
    return lambda p: (-distinct[p], order.index(p))


def _edges(
    keyed: Sequence[Sequence[Hashable]], keys: Sequence[Hashable]
) -> dict[tuple[Hashable, Hashable], int]:
    """``(a, b) -> support`` for every edge that holds in all runs calling both."""
    spans = []
    for path in keyed:
        span: dict[Hashable, list[int]] = {}
        for position, key in enumerate(path):
            span.setdefault(key, [position, position])[1] = position
        spans.append(span)
    out: dict[tuple[Hashable, Hashable], int] = {}
    for a in keys:
        for b in keys:
            if a == b:
                continue
            both = [s for s in spans if a in s and b in s]
            if both and all(s[a][1] < s[b][0] for s in both):
                out[(a, b)] = len(both)
    return out


def _choice(
    order: Sequence[tuple[Hashable, ...]],
    base: tuple[Hashable, ...],
    distinct: Counter[tuple[Hashable, ...]],
    n: int,
) -> str:
    lengths = sorted({len(p) for p in order})
    if len(order) == 1:
        return f"all {n} successful runs took the same path of {len(base)} calls"
    if len(lengths) == 1:
        return (
            f"{len(order)} distinct successful paths, all of {lengths[0]} calls: the one"
            f" {distinct[base]} of {n} runs took is the base"
        )
    left_out = sorted({k for p in order for k in p} - set(base), key=repr)
    return (
        f"{len(order)} distinct successful paths of {', '.join(map(str, lengths))} calls"
        f" disagree on length: the shortest ({len(base)} calls, {distinct[base]} of {n} runs)"
        f" is preferred; {len(left_out)} step(s) only longer paths make are left out"
    )


def _reference(
    keys: Sequence[Hashable],
    stats: Mapping[Hashable, StepStats],
    edges: Mapping[tuple[Hashable, Hashable], int],
    n: int,
    mode: str,
    chosen: Mapping[Hashable, Sequence[Hashable]],
    grouped: set[Hashable],
) -> list[dict[str, Any]]:
    """The proposed steps (JSON) under order ``mode``, with ``chosen`` choices and the
    ``grouped`` steps unordered."""
    ids = _ids(keys, stats)
    steps: list[dict[str, Any]] = []
    for key in keys:
        s = stats[key]
        if key in chosen:
            branches = [[_call(stats[k], n)] for k in chosen[key]]
            support = [stats[k].support for k in chosen[key]]
            steps.append({"one_of": branches, "metadata": {"support": support, "runs": n}})
            continue
        step: dict[str, Any] = {"tool": s.step.tool, "arguments": s.step.arguments}
        least = s.min_count if s.required else 0
        if (least, s.max_count) == (0, 1):
            step["optional"] = True
        elif (least, s.max_count) != (1, 1):
            step["repeat"] = {"min": least, "max": s.max_count}
        if key in grouped:
            step["group"] = "unordered"
        if mode == "partial":
            step["id"] = ids[key]
            after = [
                ids[p]
                for p in keys
                if (p, key) in edges and not _implied(p, key, keys, stats, edges)
            ]
            if after:
                step["after"] = after
        step["metadata"] = {"support": s.support, "runs": n}
        steps.append(step)
    return steps


def _call(s: StepStats, n: int) -> dict[str, Any]:
    """A choice's branch step: the call, with its support."""
    return {
        "tool": s.step.tool,
        "arguments": s.step.arguments,
        "metadata": {"support": s.support, "runs": n},
    }


def _implied(
    a: Hashable,
    b: Hashable,
    keys: Sequence[Hashable],
    stats: Mapping[Hashable, StepStats],
    edges: Mapping[tuple[Hashable, Hashable], int],
) -> bool:
    """``a -> b`` follows from ``a -> w -> b`` through a required base step ``w``."""
    return any(
        stats[w].required and (a, w) in edges and (w, b) in edges for w in keys if w not in (a, b)
    )


def _ids(keys: Sequence[Hashable], stats: Mapping[Hashable, StepStats]) -> dict[Hashable, str]:
    """A readable unique id per step: its tool, numbered from the second of the same tool."""
    seen: Counter[str] = Counter()
    out: dict[Hashable, str] = {}
    for key in keys:
        tool = stats[key].step.tool
        seen[tool] += 1
        out[key] = tool if seen[tool] == 1 else f"{tool}#{seen[tool]}"
    return out


def _summary(mined: Mined) -> dict[str, Any]:
    """The statistics as JSON, for ``metadata.mined``."""
    return {
        "status": "proposed",
        "successful_runs": mined.runs,
        "choice": mined.choice,
        "paths": [
            {"count": count, "length": len(path), "steps": [format_step(s) for s in path]}
            for path, count in mined.paths
        ],
        "steps": [
            {
                "step": format_step(s.step),
                "support": s.support,
                "required": s.required,
                "min": s.min_count,
                "max": s.max_count,
            }
            for s in mined.steps
        ],
        "edges": [
            {"before": format_step(e.before), "after": format_step(e.after), "support": e.support}
            for e in mined.edges
        ],
    }
