"""The defects of a run: each is a thing wrong with the path and the points it costs.

Every defect takes its penalty from one table, ``config.penalties.of(kind)``, and its detail
from the templates of :mod:`pathgrade.metrics.trajectory.messages`. A run's defects are
listed in this order:

1. ``missing_step``: each reference step the matching leaves unpaired, by reference
   position (``reference_step``);
2. each extra agent step that is a defect, by recorded position (``agent_step``): an
   ``unexpected_write`` when its tool is declared ``write``; else a ``wasted_step`` when it
   repeats an earlier call (scored order) that did not fail ("repeats an earlier call"), or
   when it did not fail itself and a later identical call is the one the reference counts
   ("is repeated later, where the reference counts it"); any other extra step is no defect
   (it only lowers ``path_efficiency``). So of *n* identical calls at most *n* - 1 are
   wasted;
3. ``out_of_order``, once (:func:`order_defect` says which step);
4. ``missing_required_tool``: each required tool never called that the reference does not
   already count as a missing step (no step of the reference calls it);
5. ``over_budget``, once, naming every budget exceeded (``budgets``);
6. ``forbidden_action``: each forbidden step;
7. ``unrecovered_error``: each failed step followed by neither a retry, a fallback nor a stop;
8. the system defects (approvals, resume, acl, injections), in :mod:`.system`'s order.
"""

from __future__ import annotations

from collections.abc import Sequence

from pathgrade.core.config import Penalties
from pathgrade.core.results import Defect
from pathgrade.core.types import Step
from pathgrade.metrics.trajectory import messages

#: The kinds of an extra agent step, and the message of each defect kind among them.
EXTRA, WASTED_REPEAT, WASTED_EARLY, UNEXPECTED_WRITE = "extra", "repeat", "early", "write"
_STEP_MESSAGES = {
    WASTED_REPEAT: ("wasted_step", messages.WASTED_REPEAT),
    WASTED_EARLY: ("wasted_step", messages.WASTED_EARLY),
    UNEXPECTED_WRITE: ("unexpected_write", messages.UNEXPECTED_WRITE),
}


def step_defects(
    missing: Sequence[int],
    extra_kinds: Sequence[tuple[int, str]],
    ref_text: Sequence[str],
    agent_text: Sequence[str],
    penalties: Penalties,
) -> list[Defect]:
    """Items 1 and 2 of the module docstring: ``missing`` reference positions, and
    ``(recorded agent position, kind)`` of every extra step, in recorded order."""
    out = [
        Defect(
            "missing_step",
            penalties.of("missing_step"),
            messages.MISSING_STEP.format(reference=ref_text[i]),
            reference_step=i,
        )
        for i in missing
    ]
    for j, kind in extra_kinds:
        if kind in _STEP_MESSAGES:
            name, template = _STEP_MESSAGES[kind]
            out.append(Defect(name, penalties.of(name), template.format(agent=agent_text[j]), j))
    return out


def order_defect(
    scored: Sequence[int],
    partner: Sequence[int],
    premature: Sequence[bool],
    depends: Sequence[Sequence[int]],
    ref_text: Sequence[str],
    agent_text: Sequence[str],
    penalty: float,
) -> Defect:
    """The ``out_of_order`` defect of an out-of-order run, read on the scored order:
    ``scored[s]`` is the recorded position of scored step ``s``, ``partner[s]`` its
    reference step (-1: none), ``premature[s]`` whether it was made before its turn.

    It names the first matched step (scored order) with a dependency that never ran
    ("… ran but …, which it depends on, never did") or that ran after it ("… ran before
    …, which it depends on"; the lowest such dependency), with ``agent_step`` (recorded) and
    ``reference_step``; failing that, the first premature step ("… ran before its turn and
    was made again later"); failing that, "the reference order was not followed".
    """
    made_at = [-1] * len(depends)  # the scored position of each reference step's partner
    for s, i in enumerate(partner):
        if i >= 0:
            made_at[i] = s
    for s, i in enumerate(partner):
        if i < 0:
            continue
        for p in depends[i]:
            j = scored[s]
            if made_at[p] < 0:
                text = messages.ORDER_NEVER_RAN.format(agent=agent_text[j], reference=ref_text[p])
                return Defect("out_of_order", penalty, text, j, i)
            if made_at[p] > s:
                text = messages.ORDER_RAN_LATER.format(agent=agent_text[j], reference=ref_text[p])
                return Defect("out_of_order", penalty, text, j, i)
    for s, early in enumerate(premature):
        if early:
            j = scored[s]
            text = messages.ORDER_PREMATURE.format(agent=agent_text[j])
            return Defect("out_of_order", penalty, text, j)
    return Defect("out_of_order", penalty, messages.ORDER_UNSPECIFIED)


def required_tool_defects(
    unused: Sequence[str], reference: Sequence[Step], penalties: Penalties
) -> list[Defect]:
    """Item 4: the required tools never called that no reference step calls."""
    tools = {step.tool for step in reference}
    penalty = penalties.of("missing_required_tool")
    return [
        Defect("missing_required_tool", penalty, messages.MISSING_REQUIRED_TOOL.format(tool=t))
        for t in unused
        if t not in tools
    ]


def run_defects(
    violations: Sequence[tuple[str, float, float]],
    forbidden: Sequence[tuple[int, str]],
    unrecovered: Sequence[int],
    agent_text: Sequence[str],
    penalties: Penalties,
) -> list[Defect]:
    """Items 5-7: over budget, forbidden steps, unrecovered errors (the failed step and the
    one after it shown, as in every defect, by ``agent_text``: their calls' first
    occurrences)."""
    out: list[Defect] = []
    if violations:
        out.append(
            Defect(
                "over_budget",
                penalties.of("over_budget"),
                messages.over_budget(violations),
                extra={"budgets": [name for name, _, _ in violations]},
            )
        )
    for j, detail in forbidden:
        out.append(Defect("forbidden_action", penalties.of("forbidden_action"), detail, j))
    for j in unrecovered:
        detail = messages.UNRECOVERED_ERROR.format(failed=agent_text[j], after=agent_text[j + 1])
        out.append(Defect("unrecovered_error", penalties.of("unrecovered_error"), detail, j))
    return out
