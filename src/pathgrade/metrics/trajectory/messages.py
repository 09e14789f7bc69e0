"""The detail text of every trajectory defect, written once.

Each template is a ``str.format`` pattern over the texts of the steps it names (a step's text
is :func:`pathgrade.core.types.format_step`, e.g. ``refund:A17`` or ``search(q='x')``). The
plain definition, the defect objects and the byte-level record writer all format these same
templates; nothing else spells a defect's detail.
"""

from __future__ import annotations

from collections.abc import Sequence

#: ``missing_step``: reference step ``{reference}`` was never matched by an agent step.
MISSING_STEP = "reference step {reference} never happened"
#: ``wasted_step``: the agent made this call before, and that earlier call did not fail.
WASTED_REPEAT = "{agent} repeats an earlier call"
#: ``wasted_step``: a premature copy of a later identical call that a reference step matched.
WASTED_EARLY = "{agent} is repeated later, where the reference counts it"
#: ``unexpected_write``: an extra step whose tool is declared ``write``.
UNEXPECTED_WRITE = "{agent} is a write no reference step asked for"
#: ``out_of_order``: the step ran although a step it depends on never ran.
ORDER_NEVER_RAN = "{agent} ran but {reference}, which it depends on, never did"
#: ``out_of_order``: the step ran before a step it depends on.
ORDER_RAN_LATER = "{agent} ran before {reference}, which it depends on"
#: ``out_of_order``: a call made before its turn and made again later.
ORDER_PREMATURE = "{agent} ran before its turn and was made again later"
#: ``out_of_order``: nothing more precise can be said.
ORDER_UNSPECIFIED = "the reference order was not followed"
#: ``forbidden_action``: the step's tool is in ``forbidden_tools``.
FORBIDDEN_TOOL = "tool {tool!r} is forbidden"
#: ``forbidden_action``: the step matches an entry of ``forbidden_actions``.
FORBIDDEN_ACTION = "matches forbidden action {action}"
#: ``unrecovered_error``: a failed step followed by neither retry, fallback nor stop.
UNRECOVERED_ERROR = (
    "{failed} failed and the agent went on with {after} (no retry, fallback or stop)"
)
#: ``missing_required_tool``: a required tool that was never called.
MISSING_REQUIRED_TOOL = "required tool {tool!r} was never called"
#: One ``over_budget`` violation; several are joined with ``"; "``.
BUDGET_VIOLATION = "{name} {value:g} > budget {limit:g}"


def over_budget(violations: Sequence[tuple[str, float, float]]) -> str:
    """The detail of the ``over_budget`` defect: each ``(name, value, limit)`` violated."""
    return "; ".join(
        BUDGET_VIOLATION.format(name=name, value=value, limit=limit)
        for name, value, limit in violations
    )
