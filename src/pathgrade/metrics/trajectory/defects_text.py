"""Every run's defects, as objects and as columns (entries the record writer turns into text).

Most defects are step defects: a reference step that never happened (``missing_step``), an
agent step that repeats an earlier call or is a premature copy of a later one
(``wasted_step``), or writes where no reference step asked for it (``unexpected_write``); and
the order defect of a run whose reference is in total order. Each is a few integers (a code,
positions, call codes: :class:`~pathgrade.core.explanations.DefectColumns`), found for all the
winners of a batch at once. The rarer defects of a run (missing required tools, budget,
forbidden and unrecovered-error defects, and the order defect of a partial order) are made
as objects. Every detail is a template of :mod:`pathgrade.metrics.trajectory.messages`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import Penalties
from pathgrade.core.explanations import StepDefectKind
from pathgrade.core.results import Defect
from pathgrade.core.types import Step
from pathgrade.metrics.trajectory import messages
from pathgrade.metrics.trajectory.encode import EncodedPaths
from pathgrade.metrics.trajectory.winners import WinnerBatch

IntArray = npt.NDArray[np.int64]

#: Codes of the step defects (``DefectColumns.code``): see :func:`step_defect_kinds`. The
#: order codes say what a total-order defect names: a dependency that never ran, one that
#: ran later, a step made before its turn (and again later), or nothing more precise.
MISSING, WASTED, WASTED_EARLY, UNEXPECTED = 0, 1, 2, 3
NEVER_RAN, RAN_LATER, PREMATURE, UNSPECIFIED = 4, 5, 6, 7


def step_defect_kinds(penalties: Penalties) -> tuple[StepDefectKind, ...]:
    """The kind, penalty and detail template of each step-defect code."""
    order = penalties.out_of_order
    return (
        StepDefectKind("missing_step", penalties.missing_step, messages.MISSING_STEP),
        StepDefectKind("wasted_step", penalties.wasted_step, messages.WASTED_REPEAT),
        StepDefectKind("wasted_step", penalties.wasted_step, messages.WASTED_EARLY),
        StepDefectKind("unexpected_write", penalties.unexpected_write, messages.UNEXPECTED_WRITE),
        StepDefectKind("out_of_order", order, messages.ORDER_NEVER_RAN),
        StepDefectKind("out_of_order", order, messages.ORDER_RAN_LATER),
        StepDefectKind("out_of_order", order, messages.ORDER_PREMATURE),
        StepDefectKind("out_of_order", order, messages.ORDER_UNSPECIFIED),
    )


def order_defect(
    scored: Sequence[int],
    partner: Sequence[int],
    premature: Sequence[bool],
    agent_text: Sequence[str],
    ref_text: Sequence[str],
    reference: Sequence[Step],
    partial: bool,
    penalty: float,
) -> Defect:
    """The ``out_of_order`` defect of a run whose winning pair is out of order, read on the
    scored order (same-turn calls in their favourable order): ``scored[s]`` is the recorded
    position of scored step ``s``; ``partner[j]`` is the reference position recorded agent
    step ``j`` was paired with (-1: none) and ``premature[j]`` whether it was made before
    its turn and again later.

    It names the first agent step (in scored order) that ran before a reference step it
    depends on (every earlier reference step in a total order, the steps its ``after`` ids
    name in a partial one) or whose dependency never ran; failing that, the first premature
    step (scored order); failing that, nothing more precise. ``agent_step`` is recorded.
    """
    made_at = [-1] * len(reference)  # the scored position each reference step was made at
    for s, j in enumerate(scored):
        if partner[j] >= 0:
            made_at[partner[j]] = s
    preds: list[list[int]] = []
    if partial:
        ids = {step.id: k for k, step in enumerate(reference) if step.id is not None}
        preds = [[ids[d] for d in step.after] for step in reference]
    for s, j in enumerate(scored):
        i = partner[j]
        if i < 0:
            continue
        for p in preds[i] if partial else range(i):
            if made_at[p] < 0:
                detail = messages.ORDER_NEVER_RAN.format(agent=agent_text[j], reference=ref_text[p])
                return Defect("out_of_order", penalty, detail, j, i)
            if made_at[p] > s:
                detail = messages.ORDER_RAN_LATER.format(agent=agent_text[j], reference=ref_text[p])
                return Defect("out_of_order", penalty, detail, j, i)
    for j in scored:
        if premature[j]:
            detail = messages.ORDER_PREMATURE.format(agent=agent_text[j])
            return Defect("out_of_order", penalty, detail, j)
    return Defect("out_of_order", penalty, messages.ORDER_UNSPECIFIED)


def run_defects(
    budget_violations: Sequence[tuple[str, float, float]],
    forbidden: Sequence[tuple[int, str]],
    unrecovered: Sequence[int],
    agent_text: Sequence[str],
    penalties: Penalties,
) -> list[Defect]:
    """A run's defects that no reference path decides: over budget, forbidden actions and
    errors the agent went on from (``unrecovered`` step positions), in that order.
    ``agent_text[j]`` is the text of the run's step ``j`` (its call's first occurrence, as
    in every other defect)."""
    out: list[Defect] = []
    if budget_violations:
        text = messages.over_budget(budget_violations)
        budgets = [v[0] for v in budget_violations]
        out.append(Defect("over_budget", penalties.over_budget, text, extra={"budgets": budgets}))
    for index, reason in forbidden:
        out.append(Defect("forbidden_action", penalties.forbidden_action, reason, index))
    for index in unrecovered:
        detail = messages.UNRECOVERED_ERROR.format(
            failed=agent_text[index], after=agent_text[index + 1]
        )
        out.append(Defect("unrecovered_error", penalties.unrecovered_error, detail, index))
    return out


def total_order_violations(
    partner: IntArray, lengths: IntArray, n_ref: int, premature: npt.NDArray[np.bool_]
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """What :func:`order_defect` finds for rows whose reference is in total order, for all
    the rows at once: per row ``(what, agent step j, its reference step i, dependency p)``.

    Row ``r``'s agent step ``j < lengths[r]`` (in scored order: the caller permutes the
    rows and maps ``j`` back to its recorded position) was paired with reference step
    ``partner[r, j]`` (-1: none); ``premature[r]`` flags the steps made before their turn.
    The first agent step (in that order) with a reference step ``p < i`` that was never
    made (``NEVER_RAN``) or made after it (``RAN_LATER``, the smallest such ``p``); else the
    first premature step (``PREMATURE``); else ``UNSPECIFIED``. Unused entries are -1.
    """
    n_rows, width = partner.shape
    agent = np.arange(width)
    valid = (agent < lengths[:, None]) & (partner >= 0)
    made_at = np.full((n_rows, max(n_ref, 1)), -1, np.int64)  # the (last) step pairing p
    rows, steps = np.nonzero(valid)
    np.maximum.at(made_at, (rows, partner[rows, steps]), steps)
    dependency = np.arange(made_at.shape[1])
    bad: npt.NDArray[np.bool_] = (
        valid[:, :, None]
        & (dependency[None, None, :] < partner[:, :, None])
        & ((made_at[:, None, :] < 0) | (made_at[:, None, :] > agent[None, :, None]))
    )
    step_bad = np.any(bad, axis=2)
    found = np.any(step_bad, axis=1)
    every = np.arange(n_rows)
    j = np.where(found, step_bad.argmax(axis=1), -1)
    p = np.where(found, bad[every, np.maximum(j, 0)].argmax(axis=1), -1)
    i = np.where(found, partner[every, np.maximum(j, 0)], -1)
    never = made_at[every, np.maximum(p, 0)] < 0
    early = ~found & premature.any(axis=1)
    what = np.where(found, np.where(never, NEVER_RAN, RAN_LATER), UNSPECIFIED)
    what = np.where(early, PREMATURE, what)
    j = np.where(early, premature.argmax(axis=1), j)
    return what, j, i, p


def total_order_entries(
    batches: Sequence[WinnerBatch],
    total_order: Callable[[int], bool],
    agents: EncodedPaths,
    refs: EncodedPaths,
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]:
    """The order defect of every out-of-order run of ``batches`` whose reference is in total
    order (``total_order(run)``), found for each batch at once, as entries: per defect
    ``(run, code, agent step, reference step, agent call, dependency's call)``, -1 where
    the code names no such step (the defect :func:`order_defect` makes, as columns)."""
    parts: list[tuple[IntArray, ...]] = []
    for batch in batches:
        rows = np.flatnonzero(batch.out_of_order)
        rows = rows[np.fromiter(map(total_order, batch.runs[rows].tolist()), np.bool_, rows.size)]
        if not rows.size:
            continue
        runs = batch.runs[rows]
        partner, premature = batch.agent_partner[rows], batch.premature[rows]
        scored = None if batch.scored is None else batch.scored[rows]
        if scored is not None:  # read the steps in scored order
            partner = np.take_along_axis(partner, scored, axis=1)
            premature = np.take_along_axis(premature, scored, axis=1)
        what, j, i, p = total_order_violations(
            partner,
            agents.offsets[runs + 1] - agents.offsets[runs],
            batch.ref_missing.shape[1],
            premature,
        )
        if scored is not None:  # the scored position found, as recorded
            j = np.where(j >= 0, np.take_along_axis(scored, np.maximum(j, 0)[:, None], 1)[:, 0], -1)
        names_agent = what != UNSPECIFIED
        names_reference = (what == NEVER_RAN) | (what == RAN_LATER)
        agent_call = agents.calls[agents.offsets[runs] + np.maximum(j, 0)]
        ref_call = refs.calls[refs.offsets[batch.ref_paths[rows]] + np.maximum(p, 0)]
        parts.append(
            (
                runs,
                what,
                np.where(names_agent, j, -1),
                np.where(names_reference, i, -1),
                np.where(names_agent, agent_call, -1),
                np.where(names_reference, ref_call, -1),
            )
        )
    if not parts:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty, empty, empty, empty
    run, code, agent_step, ref_step, agent_call, ref_call = (
        np.concatenate(c).astype(np.int64) for c in zip(*parts, strict=True)
    )
    return run, code, agent_step, ref_step, agent_call, ref_call
