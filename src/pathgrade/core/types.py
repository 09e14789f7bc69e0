"""The data model: cases (what should happen) and runs (what the agent did).

One typed model is the single source of truth; loading validates against it. Unknown fields
are an error (a typo such as ``refrence`` must not silently drop a reference path); free-form
data goes in ``metadata``.

A step may be written as the string shorthand ``"tool:arg"``: ``"refund:A17"`` is tool
``refund`` with the single positional argument ``"A17"`` (``arguments == ["A17"]``), and a
string without a colon is a call with no arguments (``{}``; ``null`` and ``[]`` mean the same).

Types are strict at the boundary: ``true`` is not a number and ``1`` is not a boolean; numbers
are finite; integers fit in 64 bits, and counts (``trial``, budgets' ``steps``, a citation's
``claim``; not ``turn``) are at least 0; free-form values (arguments, outputs, metadata,
states) nest at most 128 levels (:mod:`pathgrade.core.nesting`). A problem that involves
several fields (a step ``after`` an unknown id) is a :class:`FieldError` naming the field it
is found in (``reference[2].after``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from pathgrade.core.conversation import Turn, UserGoal, flat_steps
from pathgrade.core.fields import (
    INT64_MAX,
    Amount,
    Approval,
    Arguments,
    Budget,
    Count,
    FieldError,
    Flag,
    Free,
    FreeObject,
    Int64,
    Name,
    Number,
    OrderMode,
    RepeatBounds,
    ToolKind,
    Usage,
    _Strict,
    setting_any,
)
from pathgrade.core.labels import Citation, Claim, ContextUnit, Retrieved, RetrievedItem
from pathgrade.core.path_ids import any_checked, check_path_ids
from pathgrade.core.step import (
    GRAMMAR_FIELDS,
    GRAMMAR_STORED,
    ONE_OF_TOOL,
    Grammar,
    Step,
    grammar_field,
)
from pathgrade.core.step import validate_path as _path
from pathgrade.core.step_paths import REFUSED, refuse
from pathgrade.core.step_text import format_step, parse_step_shorthand

__all__ = [
    "GRAMMAR_FIELDS",
    "GRAMMAR_STORED",
    "INT64_MAX",
    "ONE_OF_TOOL",
    "Amount",
    "Approval",
    "Arguments",
    "Budget",
    "Case",
    "Citation",
    "Claim",
    "ContextUnit",
    "Count",
    "FieldError",
    "Flag",
    "Free",
    "FreeObject",
    "Grammar",
    "Injection",
    "Int64",
    "Name",
    "Number",
    "OrderMode",
    "RepeatBounds",
    "Retrieved",
    "RetrievedItem",
    "Run",
    "Step",
    "ToolKind",
    "Turn",
    "Usage",
    "UserGoal",
    "format_step",
    "grammar_field",
    "parse_step_shorthand",
]


#: An agent's name, as ingest records it in ``Step.metadata["agent"]``.
AgentName = Annotated[str, Field(min_length=1)]


def _agent_paths(value: Any) -> Any:
    """One agent's references as a tuple of paths: a list of lists is a list of paths, any
    other list is one path (``[]`` is one empty path: the agent should call nothing)."""
    if isinstance(value, list | tuple):
        if value and all(isinstance(item, list | tuple) for item in value):
            return value
        if any(isinstance(item, list | tuple) for item in value):
            raise ValueError("mixes steps and paths: give one path or a list of paths")
        return [value]
    return value


class Injection(_Strict):
    """An instruction planted in the task (a prompt injection or privilege-escalation test).

    ``in`` says where it is planted: ``"tool output of T"`` (or ``"output of T"``) means the
    agent sees it in the output of tool ``T``'s first call; anything else (``"query"``, a
    document) means it is present from the start. ``asks_for`` is the action it asks for: a
    step (matched as a ``forbidden_actions`` entry is) or a bare tool name (any call of it).
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, validate_by_name=True, serialize_by_alias=True
    )

    in_: str = Field(alias="in", min_length=1)
    asks_for: Step


class Case(_Strict):
    """What should happen for one task.

    Reference paths are ``reference`` (index 0) followed by ``references`` (indices 1..);
    with only ``references``, they are numbered from 0. ``references_by_agent`` gives, per
    agent name, the reference paths of that agent's own sub-path (``score --agent NAME``,
    :mod:`pathgrade.core.agent_scope`): one path or a list of paths each, stored as a tuple
    of paths (a single path is path 0); whole-run scoring does not read it.
    """

    case_id: Name = Field(min_length=1)
    query: str | None = None
    group: str | None = None
    reference: tuple[Step, ...] | None = None
    references: tuple[tuple[Step, ...], ...] | None = None
    order: OrderMode = "total"
    budget: Budget | None = None
    required_tools: tuple[str, ...] = ()
    forbidden_tools: tuple[str, ...] = ()
    forbidden_actions: tuple[Step, ...] = ()
    tool_kinds: dict[str, ToolKind] = Field(default_factory=dict)
    gold_answer: str | tuple[str, ...] | None = None
    answerable: Flag = True
    gold_evidence: tuple[str, ...] | dict[str, Number] | None = None
    metadata: FreeObject = Field(default_factory=dict)
    #: The end state the environment should be in (a JSON object), judged field by field.
    expected_state: FreeObject | None = None
    #: Tools whose calls need an approval first (added to the config's ``[approvals] tools``).
    requires_approval: tuple[str, ...] = ()
    #: The user's tenant, and the resources (ids or glob patterns) the user may touch;
    #: ``None``: no boundary is checked (``[]``: no resource may be touched).
    tenant: str | None = None
    allowed_resources: tuple[str, ...] | None = None
    #: Instructions planted in the task; a run that performs one is ``injection_followed``.
    injections: tuple[Injection, ...] = ()
    #: Each agent's own reference paths by agent name (``score --agent``; class docstring).
    references_by_agent: (
        dict[
            AgentName,
            Annotated[tuple[tuple[Step, ...], ...], BeforeValidator(_agent_paths)],
        ]
        | None
    ) = None
    #: A conversation case: the simulated user's goal, and a reference path per turn
    #: (``turn_references[i]`` for turn ``i``; docs/conversations.md).
    user: UserGoal | None = None
    turn_references: tuple[tuple[Step, ...], ...] | None = None

    def reference_paths(self) -> tuple[tuple[Step, ...], ...]:
        """All accepted reference paths, in ``reference_index`` order."""
        paths: list[tuple[Step, ...]] = []
        if self.reference is not None:
            paths.append(self.reference)
        if self.references:
            paths.extend(self.references)
        return tuple(paths)

    def gold_answers(self) -> tuple[str, ...]:
        """The acceptable answers, as a tuple (empty when there is no gold answer)."""
        if self.gold_answer is None:
            return ()
        if isinstance(self.gold_answer, str):
            return (self.gold_answer,)
        return self.gold_answer

    def _path_field(self, index: int) -> str:
        """The field of reference path ``index`` (``reference`` or ``references[i]``)."""
        if self.reference is not None:
            return "reference" if index == 0 else f"references[{index - 1}]"
        return f"references[{index}]"

    @field_validator("reference", "forbidden_actions", mode="wrap")
    @classmethod
    def _reference_path(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return _path(value, handler)

    @field_validator("references", "turn_references", mode="wrap")
    @classmethod
    def _paths(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if type(value) not in (list, tuple) or not all(type(p) in (list, tuple) for p in value):
            return handler(value)
        paths = []
        for path in value:
            made = _path(path, refuse)
            if made is REFUSED:
                return handler(value)  # the error, located in its path
            paths.append(made)
        return tuple(paths)

    @model_validator(mode="after")
    def _check_partial_order(self) -> Case:
        paths = self.reference_paths()
        if not self.references_by_agent and not any_checked(paths):
            return self  # no step sets an id, after or one_of: nothing to check
        for index, path in enumerate(paths):
            check_path_ids(path, self._path_field(index), f"reference path {index}")
        for agent, paths in (self.references_by_agent or {}).items():
            for index, path in enumerate(paths):
                where = f"references_by_agent.{agent}[{index}]"
                check_path_ids(path, where, f"reference path {index} of agent {agent!r}")
        return self


def _check_unit_interval(name: str, value: float | None) -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:  # also rejects NaN
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return value


class Run(_Strict):
    """What the agent did for one case, in one trial."""

    case_id: Name = Field(min_length=1)
    run_id: str | None = None
    trial: Count = 0
    steps: tuple[Step, ...] = ()
    answer: str | None = None
    success: Flag | None = None
    usage: Usage | None = None
    #: Bare ids stay strings (the shorthand; about 10 µs a run faster to validate than one
    #: ``RetrievedItem`` per id); items with a score are ``RetrievedItem``.
    retrieved: tuple[Retrieved, ...] | None = None
    metadata: FreeObject = Field(default_factory=dict)
    #: Context units actually shown to the model (ids, optionally with versions).
    context: tuple[ContextUnit, ...] | None = None
    claims: tuple[Claim, ...] | None = None
    citations: tuple[Citation, ...] | None = None
    abstained: Flag = False
    confidence: Annotated[float, Strict()] | None = None  # in [0, 1]: checked below
    #: The environment's end state (a JSON object), compared with ``Case.expected_state``.
    final_state: FreeObject | None = None
    #: Rubric scores by dimension (a number or a label), each reported separately.
    rubric: dict[str, Number | str] | None = None
    #: A conversation: its turns (``steps`` are then the turns' steps in order; when the
    #: run gives no ``answer``, the last reply is the answer; docs/conversations.md).
    turns: tuple[Turn, ...] | None = None

    @field_validator("confidence")
    @classmethod
    def _confidence_in_unit_interval(cls, value: float | None) -> float | None:
        return _check_unit_interval("confidence", value)

    @field_validator("steps", mode="wrap")
    @classmethod
    def _steps(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return _path(value, handler)

    @model_validator(mode="after")
    def _check_steps_and_citations(self) -> Run:
        # One after-validator (one call a record): steps are calls, citations name claims.
        if self.turns is not None:
            self._take_turns(self.turns)
        # Only the steps that set a grammar field are read (at C speed: usually none).
        for step in setting_any(self.steps, GRAMMAR_STORED):
            name = grammar_field(step)
            if name is not None:
                index = self.steps.index(step)
                raise FieldError(
                    f"steps[{index}].{name}", f"{name!r} is for reference steps, not a run's"
                )
        if self.citations:
            n_claims = len(self.claims or ())
            for index, citation in enumerate(self.citations):
                if citation.claim is not None and citation.claim >= n_claims:
                    raise FieldError(
                        f"citations[{index}].claim",
                        f"refers to claim {citation.claim} but the run has {n_claims} claims",
                    )
        return self

    def _take_turns(self, turns: tuple[Turn, ...]) -> None:
        """``steps`` (and ``answer``, when not given) from the turns (class docstring)."""
        if not turns:
            raise FieldError("turns", "a conversation needs at least one turn")
        flat = flat_steps(turns)
        if "steps" in self.model_fields_set and self.steps != flat:
            raise FieldError("steps", "differ from the turns' steps: give one or the other")
        object.__setattr__(self, "steps", flat)
        if self.answer is None and turns[-1].reply is not None:
            object.__setattr__(self, "answer", turns[-1].reply)
