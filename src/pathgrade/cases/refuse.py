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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, compress
from operator import attrgetter

from pathgrade.cases.lint import Finding, lint_case
from pathgrade.core.errors import InputError
from pathgrade.core.fields import setting_any
from pathgrade.core.run_columns import distinct_objects
from pathgrade.core.types import GRAMMAR_STORED, Budget, Case, Step
from pathgrade.metrics.tool.schemas import ToolSet, schema_violations

#: A step's grammar fields (the first four) and order fields; a plain step has _PLAIN.
_SHAPE = attrgetter("optional", "one_of", "repeat", "group", "id", "after")
_PLAIN = (False, None, None, None, None, ())
_SHAPE_FIELDS = GRAMMAR_STORED | {"id", "after"}
_TOOL = attrgetter("tool")
#: A case's fields that can make a plain reference impossible.
_RISK = attrgetter("forbidden_actions", "forbidden_tools", "budget")


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
    shapes: ReferenceShapes | None = None,
) -> list[Finding]:
    """The error-level findings of ``cases`` (in order; ``budget``: the config's; without
    ``strict``, no ``unknown_tool`` finding: module docstring).

    Only the cases :func:`clear` cannot clear are linted (the findings are the lint's own).
    On plain references, the common case, each distinct step object is read once and each
    case's risk fields at C speed: a case without ``forbidden_*`` or a budget, none of whose
    steps is flagged, is clear without a Python-level call. ``shapes``: the cases'
    :func:`reference_shapes` when the caller has them (``score`` shares them with the
    scorer)."""
    cases = list(cases)
    flagged = (shapes or reference_shapes(cases, tools, strict)).flagged
    if not flagged and budget is None:  # only the cases with a risk field can be refused
        cases = list(compress(cases, map(any, map(_RISK, cases))))
    return [
        Finding(case.case_id, field, level, code, message)
        for case in cases
        if not clear(case, budget, flagged)
        for code, level, field, message in lint_case(
            case, tools, budget=budget, across=False, agents=False
        )
        if level == "error" and (strict or code != "unknown_tool")
    ]


def clear(case: Case, budget: Budget | None, flagged: frozenset[int] | None = None) -> bool:
    """Whether no error-level check of the lint can fire on ``case``'s scored paths, decided
    without walking them: no step is flagged (by :func:`reference_shapes`: not plain, i.e. a
    grammar field, an ``id`` or ``after``; or rejected by the tools file), no step's tool is
    in ``forbidden_tools``, the case has no ``forbidden_actions``, and no path is longer than
    the budget's ``steps`` (a budget of tokens, cost or latency is left to the lint). False
    says only "lint it". ``tests/cases/test_refuse.py`` checks that what it clears, the lint
    finds no error in."""
    if case.forbidden_actions:
        return False
    paths = case.reference_paths()
    steps: Sequence[Step] = tuple(chain.from_iterable(paths))
    if flagged is None:
        flagged = reference_shapes([case]).flagged
    if flagged and not flagged.isdisjoint(map(id, steps)):
        return False
    if case.forbidden_tools and not set(case.forbidden_tools).isdisjoint(map(_TOOL, steps)):
        return False
    limit = case.budget or budget
    if limit is None:
        return True
    if limit.tokens is not None or limit.cost is not None or limit.latency_ms is not None:
        return False
    return limit.steps is None or all(len(path) <= limit.steps for path in paths)


@dataclass(frozen=True)
class ReferenceShapes:
    """What one read of the cases' distinct reference step objects found: ``flagged``, the
    addresses of the steps that are not plain (a grammar field, an ``id`` or ``after``) or
    that the tools file rejects (an undefined tool under ``strict``, arguments its schema
    rejects); ``grammar``, whether any step carries a grammar field (the scorer's
    :func:`~pathgrade.metrics.trajectory.grammar.any_grammar`). The cases keep every object
    alive while the addresses are used."""

    flagged: frozenset[int]
    grammar: bool


_REFERENCE = attrgetter("reference")
_REFERENCES = attrgetter("references")


def _reference_steps(cases: Sequence[Case]) -> tuple[Step, ...]:
    """Every step of every reference path of ``cases`` (``Case.reference_paths``, read at C
    speed: no Python call per case)."""
    single = chain.from_iterable(filter(None, map(_REFERENCE, cases)))
    alternatives = chain.from_iterable(chain.from_iterable(filter(None, map(_REFERENCES, cases))))
    return tuple(chain(single, alternatives))


def reference_shapes(
    cases: Sequence[Case], tools: ToolSet | None = None, strict: bool = True
) -> ReferenceShapes:
    """The :class:`ReferenceShapes` of ``cases``. Only the steps that set a grammar or order
    field (:func:`~pathgrade.core.fields.setting_any`, at C speed) are read for their shape;
    under a tools file every distinct step object is checked once (pooled steps)."""
    flat = _reference_steps(cases)
    candidates = distinct_objects((setting_any(flat, _SHAPE_FIELDS),))
    shapes = list(map(_SHAPE, candidates))
    bad = {id(s) for s, shape in zip(candidates, shapes, strict=True) if shape != _PLAIN}
    grammar = any(shape[:4] != _PLAIN[:4] for shape in shapes if shape != _PLAIN)
    if tools is None:
        return ReferenceShapes(frozenset(bad), grammar)
    for step in distinct_objects((flat,)):
        spec = tools.get(step.tool)
        if spec is None:
            if strict:
                bad.add(id(step))
        elif schema_violations(spec, step.arguments):
            bad.add(id(step))
    return ReferenceShapes(frozenset(bad), grammar)


def refuse_impossible(
    cases: Iterable[Case],
    tools: ToolSet | None = None,
    *,
    budget: Budget | None = None,
    strict: bool = True,
    shapes: ReferenceShapes | None = None,
    file: str | None = None,
    line_of: Callable[[str], int | None] | None = None,
) -> None:
    """Raise :class:`ImpossibleReferenceError` for the first error-level finding of ``cases``
    (module docstring), at ``file`` and ``line_of(case_id)`` when given; else return."""
    found = impossible(cases, tools, budget=budget, strict=strict, shapes=shapes)
    if not found:
        return
    error = ImpossibleReferenceError(found[0], len(found) - 1)
    if file is not None:
        error = error.located(file, line_of(error.case_id) if line_of is not None else None)
    raise error
