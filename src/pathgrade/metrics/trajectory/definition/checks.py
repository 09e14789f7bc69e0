"""The checks of a run that no reference path decides: goal, budgets, forbidden actions,
errors and required tools.

- ``goal_success``: the run's ``success`` when recorded; else undefined (``nan``) when a
  judge was asked for it and failed (:mod:`pathgrade.core.judged`); else, for an unanswerable case,
  whether the run abstained; else, when the case has gold answers, whether the answer
  equals one of them after normalisation (NFKC, case and whitespace folding; numeric
  strings compared as numbers), a missing answer or an abstention being a failure; else
  undefined (``nan``).
- **Totals** (:func:`usage_totals`): ``steps`` = number of steps; ``tokens``, ``cost``,
  ``latency_ms`` = the run's ``usage`` value when recorded, else the sum of the steps' known
  values when any step has one, else unknown (``None``).
- **Over budget** (:func:`budget_violations`): a total strictly greater than its limit; the
  budget is the case's, else the config's; an unknown total never counts (for ``steps``,
  the lesson's ``steps.length > budget``).
- **Forbidden** (:func:`forbidden_steps`): a step whose tool is in ``forbidden_tools``, or
  that matches a ``forbidden_actions`` entry: same tool and every argument the entry gives
  (by name; positional ones by position); an entry without arguments forbids every call of
  its tool.
- **Recovery** (:func:`unrecovered_errors`): a failed step is recovered when the next step
  calls the same tool (a retry) or a declared fallback of it (``[fallbacks]``), or when it
  is the last step (a clean stop). ``recovery_rate`` = recovered / failed (``nan`` when no
  step failed).
- **Required tools** (:func:`required_tool_coverage`): the share of the distinct
  ``required_tools`` called at least once (``nan`` when none is required).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pathgrade.core.judged import GOAL, judgement_failed
from pathgrade.core.types import Budget, Case, Run, Step, format_step
from pathgrade.metrics.trajectory import messages
from pathgrade.metrics.trajectory.arguments import freeze, normalize_text
from pathgrade.metrics.trajectory.definition.matching import failed

NAN = math.nan


def _answer_key(text: str) -> object:
    """How an answer is compared: as a number when it reads as a finite one, else as
    normalised text."""
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
    if not case.answerable:
        return 1.0 if run.abstained else 0.0
    gold = case.gold_answers()
    if not gold:
        return NAN
    if run.abstained or run.answer is None:
        return 0.0
    answer = _answer_key(run.answer)
    return 1.0 if any(_answer_key(g) == answer for g in gold) else 0.0


def _total(recorded: float | None, per_step: Sequence[float | None]) -> float | None:
    if recorded is not None:
        return recorded
    known = [value for value in per_step if value is not None]
    return float(sum(known)) if known else None


def usage_totals(run: Run) -> dict[str, float | int | None]:
    """``{"steps", "tokens", "cost", "latency_ms"}`` of the run (module docstring)."""
    usage, steps = run.usage, run.steps
    return {
        "steps": len(steps),
        "tokens": _total(usage.tokens if usage else None, [s.tokens for s in steps]),
        "cost": _total(usage.cost if usage else None, [s.cost for s in steps]),
        "latency_ms": _total(usage.latency_ms if usage else None, [s.latency_ms for s in steps]),
    }


def budget_violations(run: Run, budget: Budget | None) -> list[tuple[str, float, float]]:
    """``(name, total, limit)`` of every budget the run exceeds, in the order steps, tokens,
    cost, latency_ms."""
    if budget is None:
        return []
    totals = usage_totals(run)
    out: list[tuple[str, float, float]] = []
    for name in ("steps", "tokens", "cost", "latency_ms"):
        limit, value = getattr(budget, name), totals[name]
        if limit is not None and value is not None and value > limit:
            out.append((name, float(value), float(limit)))
    return out


def forbids(entry: Step, step: Step) -> bool:
    """A ``forbidden_actions`` entry matches a step: same tool, and every argument the entry
    gives equal (by name, or by position for positional arguments); an entry without
    arguments forbids every call of its tool."""
    if entry.tool != step.tool:
        return False
    want, got = entry.arguments, step.arguments
    if isinstance(want, dict) and isinstance(got, dict):
        return all(name in got and freeze(v) == freeze(got[name]) for name, v in want.items())
    if isinstance(want, list) and isinstance(got, list):
        return len(got) >= len(want) and all(
            freeze(w) == freeze(g) for w, g in zip(want, got, strict=False)
        )
    return not want


def forbidden_steps(steps: Sequence[Step], case: Case) -> list[tuple[int, str]]:
    """``(agent position, detail)`` of every forbidden step: its tool is forbidden, else the
    first ``forbidden_actions`` entry it matches."""
    out: list[tuple[int, str]] = []
    for j, step in enumerate(steps):
        if step.tool in case.forbidden_tools:
            out.append((j, messages.FORBIDDEN_TOOL.format(tool=step.tool)))
            continue
        for entry in case.forbidden_actions:
            if forbids(entry, step):
                out.append((j, messages.FORBIDDEN_ACTION.format(action=format_step(entry))))
                break
    return out


def unrecovered_errors(
    steps: Sequence[Step], fallbacks: Mapping[str, Sequence[str]]
) -> tuple[int, list[int]]:
    """``(number of failed steps, positions of the failed steps not recovered)``."""
    n_failed = 0
    unrecovered: list[int] = []
    for j, step in enumerate(steps):
        if not failed(step):
            continue
        n_failed += 1
        if j + 1 == len(steps):
            continue  # a clean stop
        following = steps[j + 1].tool
        if following != step.tool and following not in fallbacks.get(step.tool, ()):
            unrecovered.append(j)
    return n_failed, unrecovered


def recovery_rate(steps: Sequence[Step], fallbacks: Mapping[str, Sequence[str]]) -> float:
    """Recovered failed steps / failed steps; ``nan`` when no step failed."""
    n_failed, unrecovered = unrecovered_errors(steps, fallbacks)
    return (n_failed - len(unrecovered)) / n_failed if n_failed else NAN


def required_tool_coverage(steps: Sequence[Step], case: Case) -> tuple[float, list[str]]:
    """``(coverage, the required tools never called, in the case's order)``."""
    required = list(dict.fromkeys(case.required_tools))
    if not required:
        return NAN, []
    called = {s.tool for s in steps}
    unused = [tool for tool in required if tool not in called]
    return (len(required) - len(unused)) / len(required), unused


def tool_kinds(case: Case, config_kinds: Mapping[str, str]) -> dict[str, Any]:
    """The declared kind of each tool: the config's ``[tool_kinds]``, the case's winning."""
    return {**config_kinds, **case.tool_kinds}
