"""Checking reference paths before they are trusted (``pathgrade cases lint``).

:func:`lint_cases` returns one :class:`Finding` per problem, each naming the case, the field
(``reference[2].arguments.amount``) and a level. **Errors** are references no run can follow
without a defect, or that no path satisfies; ``score`` refuses to score against them.
**Warnings** are references that are redundant or leave part of the case unexpressed.

Checks, per reference path (``reference``, ``references[i]``, ``references_by_agent.A[i]``;
steps inside ``one_of`` alternatives included):

- ``unknown_tool`` (error, with ``tools``): a step names a tool the tools file does not define;
- ``arguments`` (error, with ``tools``): a step's arguments fail its tool's JSON Schema
  (:func:`pathgrade.metrics.tool.schemas.schema_violations`), one finding per violation;
- ``forbidden`` (error): a step's tool is in ``forbidden_tools``, or the step matches a
  ``forbidden_actions`` entry (the scorer's own rule,
  :func:`pathgrade.metrics.trajectory.definition.checks.forbids`);
- ``duplicate_id`` / ``unknown_after`` (error): a step id used twice, an ``after`` naming no
  step of the path (the loader rejects these too; kept for cases built in code);
- ``cycle`` (error): the ``after`` edges form a cycle (a step after itself included);
- ``unsatisfiable_order`` (error): under ``order = "total"``, an ``after`` naming a step
  written later (the total order puts it earlier); a ``repeat`` whose ``min`` exceeds its
  ``max``, or whose ``max`` is 0 (the loader rejects these; kept for cases built in code);
- ``too_many_alternatives`` (error): the ``one_of`` choices combine into more alternatives
  than scoring compiles (:data:`pathgrade.metrics.trajectory.grammar.MAX_ALTERNATIVES`);
- ``over_budget`` (error): the fewest calls the reference allows exceed ``budget.steps``, or
  the sum of its steps' recorded ``tokens``/``cost``/``latency_ms`` exceeds that budget;
  (warning) only the most calls it allows (optional steps taken, repeats at their ``max``)
  exceed ``budget.steps``. The budget is the case's, else the one passed in.

Checks across the whole-run paths of one case (not ``references_by_agent``):

- ``duplicate_reference`` (warning): a path written exactly as an earlier one;
- ``sub_path_reference`` (warning): a path's steps (tool and arguments, in written order) are
  a strict subsequence of another path's: the longer one is the shorter one with optional
  steps, better written as one path with ``optional: true``;
- ``unused_required_tool`` (warning): a ``required_tools`` entry that no reference calls.

Checks of the case's review state (:func:`lint_cases` only: ``score`` does not refuse it):

- ``unreviewed_reference`` (error; a warning with ``allow_unreviewed``): the case's
  ``metadata.reference_status`` is ``"unreviewed"``: its reference is a candidate path, the
  observed path of a run promoted by ``pathgrade cases promote``
  (:mod:`pathgrade.production.promote`), that nobody has checked yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pathgrade.cases import walk
from pathgrade.cases.walk import Placed
from pathgrade.core.types import Budget, Case, Step, format_step
from pathgrade.metrics.tool.schemas import ToolSet, schema_violations
from pathgrade.metrics.trajectory.definition.checks import forbids
from pathgrade.metrics.trajectory.grammar import MAX_ALTERNATIVES

Level = Literal["error", "warning"]

#: The metadata key that says whether a case's reference was reviewed, and the value that
#: says it was not (``pathgrade cases promote`` writes it).
REFERENCE_STATUS = "reference_status"
UNREVIEWED = "unreviewed"


@dataclass(frozen=True)
class Finding:
    """One problem of a case: where (file, line, field), how bad, which check, and why."""

    case_id: str
    field: str
    level: Level
    code: str
    message: str
    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = self.file or "<cases>"
        if self.line is not None:
            where += f":{self.line}"
        case = f"case {self.case_id!r}: " if self.case_id else ""  # "": a record not loaded
        return f"{where}: {case}field '{self.field}': {self.level}: {self.message} [{self.code}]"


def lint_cases(
    cases: Iterable[Case] | Mapping[str, Case],
    tools: ToolSet | None = None,
    *,
    budget: Budget | None = None,
    file: str | None = None,
    lines: Sequence[int] | None = None,
    allow_unreviewed: bool = False,
) -> list[Finding]:
    """Every finding of every case (module docstring), case by case in the given order.

    ``budget`` is the config's budget (used for a case without its own); ``file`` and
    ``lines`` (one per case, in order) locate the findings; ``allow_unreviewed`` makes an
    unreviewed reference a warning instead of an error.
    """
    items = list(cases.values()) if isinstance(cases, Mapping) else list(cases)
    findings: list[Finding] = []
    for index, case in enumerate(items):
        line = lines[index] if lines is not None else None
        raw = [*_review(case, allow_unreviewed), *lint_case(case, tools, budget=budget)]
        for code, level, field, message in raw:
            findings.append(Finding(case.case_id, field, level, code, message, file, line))
    return findings


def _review(case: Case, allow_unreviewed: bool) -> list[Raw]:
    if case.metadata.get(REFERENCE_STATUS) != UNREVIEWED:
        return []
    level: Level = "warning" if allow_unreviewed else "error"
    message = (
        "the reference is a candidate (a run's observed path, promoted) nobody has reviewed:"
        f" check it, then remove metadata.{REFERENCE_STATUS} (or lint with --allow-unreviewed)"
    )
    return [("unreviewed_reference", level, f"metadata.{REFERENCE_STATUS}", message)]


def errors(findings: Iterable[Finding]) -> list[Finding]:
    """The findings of level ``error`` (what ``score`` refuses to score against)."""
    return [f for f in findings if f.level == "error"]


Raw = tuple[str, Level, str, str]  # code, level, field, message


def _field(case: Case, index: int) -> str:
    if case.reference is not None:
        return "reference" if index == 0 else f"references[{index - 1}]"
    return f"references[{index}]"


def lint_case(
    case: Case,
    tools: ToolSet | None,
    *,
    budget: Budget | None = None,
    across: bool = True,
    agents: bool = True,
) -> list[Raw]:
    """The findings of one case, as ``(code, level, field, message)``; ``across=False``
    leaves out the checks across paths (all warnings: what ``score`` does not need), and
    ``agents=False`` the paths of ``references_by_agent`` (what whole-run scoring reads)."""
    out: list[Raw] = []
    paths = case.reference_paths()
    named = [(_field(case, i), path) for i, path in enumerate(paths)]
    for agent, agent_paths in (case.references_by_agent or {}).items() if agents else ():
        named += [(f"references_by_agent.{agent}[{i}]", p) for i, p in enumerate(agent_paths)]
    limit = case.budget or budget
    for where, path in named:
        placed = walk.walk(path, where)
        calls = [p for p in placed if not p.choice]
        if tools is not None:
            out += _schema(calls, tools)
        out += _forbidden(calls, case)
        out += _order(placed, case.order)
        out += _repeats(placed)
        combined = walk.alternatives(path)
        if combined > MAX_ALTERNATIVES:
            message = (
                f"its one_of choices combine into {combined} alternatives; scoring compiles"
                f" at most {MAX_ALTERNATIVES}"
            )
            out.append(("too_many_alternatives", "error", where, message))
        if limit is not None:
            out += _budget(path, calls, where, limit)
    if across:
        out += _redundant(named[: len(paths)])
        out += _required(case, paths)
    return out


def _schema(calls: Sequence[Placed], tools: ToolSet) -> list[Raw]:
    out: list[Raw] = []
    for p in calls:
        spec = tools.get(p.step.tool)
        if spec is None:
            out.append(
                (
                    "unknown_tool",
                    "error",
                    f"{p.field}.tool",
                    f"tool {p.step.tool!r} is not defined in the tools file",
                )
            )
            continue
        for violation in schema_violations(spec, p.step.arguments):
            inner = violation.path.removeprefix("$")
            message = f"{format_step(p.step)}: {violation.message} (schema of {spec.name!r})"
            out.append(("arguments", "error", f"{p.field}.arguments{inner}", message))
    return out


def _forbidden(calls: Sequence[Placed], case: Case) -> list[Raw]:
    out: list[Raw] = []
    if not (case.forbidden_tools or case.forbidden_actions):
        return out
    for p in calls:
        if p.step.tool in case.forbidden_tools:
            message = f"the reference calls {p.step.tool!r}, which forbidden_tools lists"
            out.append(("forbidden", "error", f"{p.field}.tool", message))
            continue
        for k, entry in enumerate(case.forbidden_actions):
            if forbids(entry, p.step):
                message = (
                    f"the reference step {format_step(p.step)} matches forbidden_actions[{k}]"
                    f" ({format_step(entry)})"
                )
                out.append(("forbidden", "error", p.field, message))
                break
    return out


def _order(placed: Sequence[Placed], order: str) -> list[Raw]:
    out: list[Raw] = []
    if not any(p.step.id is not None or p.step.after for p in placed):
        return out
    by_id: dict[str, Placed] = {}
    for p in placed:
        if p.step.id is None:
            continue
        if p.step.id in by_id:
            message = f"step id {p.step.id!r} is used twice (first at {by_id[p.step.id].field})"
            out.append(("duplicate_id", "error", f"{p.field}.id", message))
        else:
            by_id[p.step.id] = p
    edges: dict[str, list[str]] = {}
    for p in placed:
        for dep in p.step.after:
            target = by_id.get(dep)
            if target is None:
                message = f"'after' names unknown id {dep!r} (no step of this path has it)"
                out.append(("unknown_after", "error", f"{p.field}.after", message))
                continue
            if p.step.id is not None:
                edges.setdefault(p.step.id, []).append(dep)
            if order == "total" and target.position > p.position:
                message = (
                    f"'after' {dep!r} names a step written later ({target.field}), but"
                    " order = 'total' puts it earlier: no path satisfies both"
                )
                out.append(("unsatisfiable_order", "error", f"{p.field}.after", message))
    cycle = _cycle(edges)
    if cycle:
        first = by_id[cycle[0]]
        message = "the 'after' edges form a cycle: " + " -> ".join([*cycle, cycle[0]])
        out.append(("cycle", "error", f"{first.field}.after", message))
    return out


def _cycle(edges: Mapping[str, Sequence[str]]) -> list[str]:
    """One cycle of the graph ``id -> ids it comes after`` (ids in cycle order), or []."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    for start in edges:
        if state.get(start):
            continue
        stack: list[tuple[str, int]] = [(start, 0)]
        trail: list[str] = [start]
        state[start] = 1
        while stack:
            node, k = stack[-1]
            successors = edges.get(node, ())
            if k == len(successors):
                stack.pop()
                trail.pop()
                state[node] = 2
                continue
            stack[-1] = (node, k + 1)
            nxt = successors[k]
            if state.get(nxt) == 1:
                return trail[trail.index(nxt) :]
            if not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, 0))
                trail.append(nxt)
    return []


def _repeats(placed: Sequence[Placed]) -> list[Raw]:
    out: list[Raw] = []
    for p in placed:
        if p.step.repeat is None:
            continue
        bounds = walk.repeat_bounds(p.step)
        if bounds is not None and (bounds[0] > bounds[1] or bounds[1] < 1):
            message = f"repeat {{min: {bounds[0]}, max: {bounds[1]}}} allows no number of calls"
            out.append(("unsatisfiable_order", "error", f"{p.field}.repeat", message))
    return out


def _budget(path: Sequence[Step], placed: Sequence[Placed], where: str, limit: Budget) -> list[Raw]:
    out: list[Raw] = []
    fewest, most = walk.length_bounds(path)
    if limit.steps is not None and fewest > limit.steps:
        message = f"the reference takes at least {fewest} calls; budget.steps is {limit.steps}"
        out.append(("over_budget", "error", where, message))
    elif limit.steps is not None and most > limit.steps:
        message = (
            f"the reference allows up to {most} calls (optional steps, repeats);"
            f" budget.steps is {limit.steps}"
        )
        out.append(("over_budget", "warning", where, message))
    calls = [p.step for p in placed]
    for name in ("tokens", "cost", "latency_ms"):
        cap = getattr(limit, name)
        if cap is None:
            continue
        known = [getattr(s, name) for s in calls if getattr(s, name) is not None]
        if known and sum(known) > cap:
            message = f"the reference's steps record {name} {sum(known):g}; budget is {cap:g}"
            out.append(("over_budget", "error", where, message))
    return out


def _redundant(named: Sequence[tuple[str, Sequence[Step]]]) -> list[Raw]:
    out: list[Raw] = []
    if len(named) < 2:
        return out
    written = [tuple(map(walk.signature, path)) for _, path in named]
    keys = [tuple(map(walk.step_key, path)) for _, path in named]
    for j, (where, _) in enumerate(named):
        same = next((i for i in range(j) if written[i] == written[j]), None)
        if same is not None:
            message = f"the same path as {named[same][0]}"
            out.append(("duplicate_reference", "warning", where, message))
            continue
        for i, (other, _) in enumerate(named):
            if i != j and len(keys[j]) < len(keys[i]) and _subsequence(keys[j], keys[i]):
                message = (
                    f"a strict sub-path of {other}: write one path with the extra steps"
                    " 'optional: true'"
                )
                out.append(("sub_path_reference", "warning", where, message))
                break
    return out


def _subsequence(short: Sequence[object], long: Sequence[object]) -> bool:
    remaining = iter(long)
    return all(any(item == other for other in remaining) for item in short)


def _required(case: Case, paths: Sequence[Sequence[Step]]) -> list[Raw]:
    if not paths:
        return []
    called = {p.step.tool for path in paths for p in walk.walk(path, "") if not p.choice}
    return [
        (
            "unused_required_tool",
            "warning",
            f"required_tools[{k}]",
            f"required tool {tool!r} is called by no reference path",
        )
        for k, tool in enumerate(case.required_tools)
        if tool not in called
    ]
