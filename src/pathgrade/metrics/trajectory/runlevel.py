"""Run-level checks that do not depend on which reference path is used.

- ``goal_success``: the run's ``success`` when the harness recorded it; else undefined
  (``nan``) when a judge was asked for it and failed (:mod:`pathgrade.core.judged`); else, for an
  unanswerable case, whether the run abstained; else the answer matched against the case's
  gold answers after normalisation (NFKC, case and whitespace folding; numeric strings
  compared as numbers); else undefined (``nan``), never 0. A case with gold answers and a run
  that gave no answer (or abstained) is a failure.
- Budget: ``steps`` = number of steps; ``tokens``/``cost``/``latency_ms`` = the run's
  ``usage`` value when given, else the sum over steps when any step has one, else unknown
  (an unknown value never counts as over budget). Over budget means strictly greater.
- ``recovery_rate``: of the steps that returned an error, the share followed by a retry (the
  next step calls the same tool), a declared fallback tool (``fallbacks`` in the config), or
  a clean stop (no further step). ``nan`` when no step failed.
- Forbidden actions: a step whose tool is in ``forbidden_tools``, or that matches a
  ``forbidden_actions`` entry: same tool and every argument the entry gives (an entry
  without arguments forbids every call of the tool).
- ``required_tool_coverage``: share of ``required_tools`` the agent called at least once;
  ``nan`` when the case requires none.
- System defects (approvals, writes repeated after a resume, acl leaks, followed
  injections): :mod:`pathgrade.metrics.trajectory.system_checks`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pathgrade.core.judged import GOAL, judgement_failed
from pathgrade.core.types import Budget, Case, Run, Step
from pathgrade.metrics.trajectory import messages
from pathgrade.metrics.trajectory.arguments import normalize_text

# The run-level checks have no faster form: the engine uses the definition's own matcher.
from pathgrade.metrics.trajectory.definition.checks import forbids

# The system layer's checks (approvals, resume, tenant boundaries, injections).
from pathgrade.metrics.trajectory.system_checks import case_needs_check as case_needs_check
from pathgrade.metrics.trajectory.system_checks import runs_to_check as runs_to_check
from pathgrade.metrics.trajectory.system_checks import system_defects as system_defects

NAN = math.nan


def _answer_key(text: str) -> object:
    try:
        number = float(text)
    except ValueError:
        return normalize_text(text)
    return number if math.isfinite(number) else normalize_text(text)


def goal_success(run: Run, case: Case) -> float:
    """1.0, 0.0, or ``nan`` when nothing says whether the goal was reached."""
    if run.success is not None:
        return 1.0 if run.success else 0.0
    if judgement_failed(run, GOAL):  # the judge was asked and failed: no fallback
        return NAN
    if not case.answerable:  # the goal is to abstain
        return 1.0 if run.abstained else 0.0
    if run.abstained and case.gold_answers():
        return 0.0
    gold = case.gold_answers()
    if not gold:
        return NAN
    if run.answer is None:
        return 0.0
    answer = _answer_key(run.answer)
    return 1.0 if any(_answer_key(g) == answer for g in gold) else 0.0


@dataclass(frozen=True)
class UsageTotals:
    """Effective totals of one run (``None`` = unknown)."""

    steps: int
    tokens: float | None
    cost: float | None
    latency_ms: float | None

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "steps": self.steps,
            "tokens": self.tokens,
            "cost": self.cost,
            "latency_ms": self.latency_ms,
        }


def _total(recorded: float | None, per_step: Sequence[float | None]) -> float | None:
    if recorded is not None:
        return recorded
    known = [v for v in per_step if v is not None]
    return float(sum(known)) if known else None


def usage_totals(run: Run) -> UsageTotals:
    usage = run.usage
    steps = run.steps
    return UsageTotals(
        steps=len(steps),
        tokens=_total(usage.tokens if usage else None, [s.tokens for s in steps]),
        cost=_total(usage.cost if usage else None, [s.cost for s in steps]),
        latency_ms=_total(usage.latency_ms if usage else None, [s.latency_ms for s in steps]),
    )


def budget_violations(run: Run, budget: Budget | None) -> list[tuple[str, float, float]]:
    """``(budget name, value, limit)`` for every budget the run exceeds.

    Only the totals a budget limits are computed.
    """
    if budget is None:
        return []
    out: list[tuple[str, float, float]] = []
    if budget.steps is not None and len(run.steps) > budget.steps:
        out.append(("steps", float(len(run.steps)), float(budget.steps)))
    usage = run.usage
    for name in ("tokens", "cost", "latency_ms"):
        limit = getattr(budget, name)
        if limit is None:
            continue
        value = _total(
            getattr(usage, name) if usage else None, [getattr(s, name) for s in run.steps]
        )
        if value is not None and value > limit:
            out.append((name, float(value), float(limit)))
    return out


def unrecovered_errors(
    steps: Sequence[Step], fallbacks: Mapping[str, Sequence[str]]
) -> tuple[int, list[int]]:
    """``(number of failed steps, indices of failed steps that were not recovered)``."""
    failed = 0
    unrecovered: list[int] = []
    for index, step in enumerate(steps):
        if not step.error:
            continue
        failed += 1
        if index + 1 == len(steps):
            continue  # clean stop
        following = steps[index + 1].tool
        if following == step.tool or following in fallbacks.get(step.tool, ()):
            continue
        unrecovered.append(index)
    return failed, unrecovered


def forbidden_steps(steps: Sequence[Step], case: Case) -> list[tuple[int, str]]:
    """``(agent step index, reason)`` for every forbidden step."""
    if not case.forbidden_tools and not case.forbidden_actions:
        return []
    banned = set(case.forbidden_tools)
    out: list[tuple[int, str]] = []
    for index, step in enumerate(steps):
        if step.tool in banned:
            out.append((index, messages.FORBIDDEN_TOOL.format(tool=step.tool)))
            continue
        for entry in case.forbidden_actions:
            if forbids(entry, step):
                out.append((index, messages.FORBIDDEN_ACTION.format(action=entry)))
                break
    return out


def required_tool_coverage(steps: Sequence[Step], case: Case) -> tuple[float, list[str]]:
    """``(coverage, required tools never called)``; coverage is ``nan`` with none required."""
    required = list(dict.fromkeys(case.required_tools))
    if not required:
        return NAN, []
    used = {s.tool for s in steps}
    unused = [t for t in required if t not in used]
    return (len(required) - len(unused)) / len(required), unused
