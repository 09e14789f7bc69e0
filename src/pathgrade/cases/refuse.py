"""What ``score`` checks before it trusts a reference: the error-level findings of
:mod:`pathgrade.cases.lint`.

A case whose reference no run can follow without a defect (a forbidden step, a budget the
reference itself exceeds, arguments its tool's schema rejects, an order no path satisfies)
would give every run a score that says nothing of the run. :func:`refuse_impossible` raises
one :class:`ImpossibleReferenceError` naming the first such finding (cases in the given order,
findings in lint order) and how many others there are; ``pathgrade cases lint`` lists them
all. ``unknown_tool`` (a reference step whose tool the tools file does not define) refuses only
under ``strict``, where an agent's call of an undefined tool is itself an error; otherwise such
a call is counted (the tool layer's ``unknown_tool_calls``) and the reference can be followed.
Only the cases that runs are scored against are checked, and only the paths scored:
``reference``/``references`` (under ``score --agent``, the agent's view of the case has the
agent's paths there; ``references_by_agent`` is not read otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pathgrade.cases.lint import Finding, lint_case
from pathgrade.core.errors import InputError
from pathgrade.core.types import Budget, Case
from pathgrade.metrics.tool.schemas import ToolSet


class ImpossibleReferenceError(InputError):
    """A case's reference fails an error-level lint check; ``case_id`` names the case (the
    caller that knows the cases file puts it at the case's line: :meth:`located`)."""

    def __init__(self, first: Finding, others: int) -> None:
        more = f" (and {others} other error(s): pathgrade cases lint lists them)" if others else ""
        super().__init__(
            f"case {first.case_id!r}: refusing to score against an impossible reference:"
            f" {first.message} [{first.code}]{more}",
            file=first.file,
            line=first.line,
            field=first.field,
        )
        self.first, self.others, self.case_id = first, others, first.case_id

    def __reduce__(self) -> tuple[type[ImpossibleReferenceError], tuple[Finding, int]]:
        return type(self), (self.first, self.others)  # picklable to and from workers

    def located(self, file: str, line: int | None) -> ImpossibleReferenceError:
        """The same error at ``file:line`` (the case's record), unless already located."""
        if self.file is not None:
            return self
        first = Finding(**{**vars(self.first), "file": file, "line": line})
        return ImpossibleReferenceError(first, self.others)


def impossible(
    cases: Iterable[Case],
    tools: ToolSet | None = None,
    *,
    budget: Budget | None = None,
    strict: bool = True,
) -> list[Finding]:
    """The error-level findings of ``cases`` (in order; ``budget``: the config's; without
    ``strict``, no ``unknown_tool`` finding: module docstring)."""
    return [
        Finding(case.case_id, field, level, code, message)
        for case in cases
        for code, level, field, message in lint_case(
            case, tools, budget=budget, across=False, agents=False
        )
        if level == "error" and (strict or code != "unknown_tool")
    ]


def refuse_impossible(
    cases: Iterable[Case],
    tools: ToolSet | None = None,
    *,
    budget: Budget | None = None,
    strict: bool = True,
    file: str | None = None,
    line_of: Callable[[str], int | None] | None = None,
) -> None:
    """Raise :class:`ImpossibleReferenceError` for the first error-level finding of ``cases``
    (module docstring), at ``file`` and ``line_of(case_id)`` when given; else return."""
    found = impossible(cases, tools, budget=budget, strict=strict)
    if not found:
        return
    error = ImpossibleReferenceError(found[0], len(found) - 1)
    if file is not None:
        error = error.located(file, line_of(error.case_id) if line_of is not None else None)
    raise error
