"""One tool call of a path (:class:`Step`), its path grammar fields, and the validation of a
path of steps (the string shorthand, pooled steps; :mod:`pathgrade.core.step_paths`).

Kept apart from :mod:`pathgrade.core.types` so that the conversation model
(:mod:`pathgrade.core.conversation`), which holds steps, and the case and run models, which
hold conversations, import without a circle. ``pathgrade.core.types`` re-exports everything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field, ModelWrapValidatorHandler, field_validator, model_validator

from pathgrade.core.fields import (
    Amount,
    Approval,
    Arguments,
    FieldError,
    Flag,
    Free,
    FreeObject,
    Int64,
    Name,
    Number,
    RepeatBounds,
    _Strict,
)
from pathgrade.core.plain_steps import template
from pathgrade.core.step_paths import path as step_path
from pathgrade.core.step_text import format_step, parse_step_shorthand

__all__ = [
    "GRAMMAR_FIELDS",
    "ONE_OF_TOOL",
    "Step",
    "grammar_field",
    "validate_path",
]


class Step(_Strict):
    """One tool call. Only ``tool`` is required.

    ``id`` and ``after`` express a partial order in reference paths (``order = "partial"``):
    a step may happen only after the steps whose ids it lists.
    """

    tool: Name = Field(min_length=1)
    arguments: Arguments = Field(default_factory=dict)
    output: Free = None
    error: str | None = None
    id: str | None = None
    after: tuple[str, ...] = ()
    latency_ms: Amount | None = None
    tokens: Amount | None = None
    cost: Amount | None = None
    #: Provenance from ingested traces: the tool call id, the parent call/agent span id, the
    #: turn (same-turn parallel calls share it), unix start/end seconds, the raw argument text.
    call_id: str | None = None
    parent: str | None = None
    turn: Int64 | None = None  # a negative turn is a group of its own (docs/trajectory.md)
    start_time: Number | None = None
    end_time: Number | None = None
    raw_arguments: str | None = None
    metadata: FreeObject = Field(default_factory=dict)
    #: The first step after a resume: the run was interrupted just before it (docs/layers.md).
    resumed: Flag = False
    #: A human-in-the-loop decision recorded on this call ("granted" or "denied"; null: none).
    approval: Approval | None = None
    #: The path grammar, in reference paths only (docs/trajectory.md "A path grammar"): the
    #: step may be left out; alternative sub-paths (this step is then no call of its own);
    #: how many times the call may happen; any order among consecutive ``unordered`` steps.
    optional: Flag = False
    one_of: tuple[tuple[Step, ...], ...] | None = None
    repeat: RepeatBounds | None = None
    group: Literal["unordered"] | None = None

    @model_validator(mode="wrap")
    @classmethod
    def _validate(cls, value: Any, handler: ModelWrapValidatorHandler[Step]) -> Step:
        # A ``Step`` was checked when it was made (it is frozen): it is accepted as it is,
        # in one call (pooled steps are handed to every record that repeats them).
        if type(value) is Step:
            return value
        if isinstance(value, str):
            value = parse_step_shorthand(value)
        elif isinstance(value, dict) and "one_of" in value and "tool" not in value:
            value = {**value, "tool": ONE_OF_TOOL}  # a choice is no call: it needs no tool
        step = handler(value)
        step._check_grammar()
        return step

    def _check_grammar(self) -> None:
        """The grammar fields fit together (docs/trajectory.md "A path grammar")."""
        if self.one_of is not None:
            if not self.one_of:
                raise FieldError("one_of", "one_of needs at least one alternative")
            for name in ("repeat", "id"):
                if getattr(self, name) is not None:
                    raise FieldError(name, f"a one_of step cannot carry {name!r}")
            if self.optional or self.after:
                raise FieldError(
                    "optional" if self.optional else "after",
                    "a one_of step cannot be optional or 'after' (give an empty alternative [])",
                )
        if self.repeat is not None and self.optional:
            raise FieldError("optional", "an optional repeat is repeat with min 0")

    @field_validator("arguments", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        # No arguments is one value, however it was written: null, [] and {} are all {}.
        return {} if value is None or (isinstance(value, list) and not value) else value

    def __str__(self) -> str:
        return format_step(self)


def validate_path(value: Any, handler: Callable[[Any], Any]) -> Any:
    """``value`` validated as a path of steps (:func:`~pathgrade.core.step_paths.path`)."""
    return step_path(Step, _STEP_DEFAULTS, value, handler)


_STEP_DEFAULTS = template(Step)


#: The ``tool`` of a ``one_of`` step written without one (it is no call of its own).
ONE_OF_TOOL = "one_of"
#: The fields of the path grammar: reference-only (a run's step carrying one is an error).
GRAMMAR_FIELDS = ("optional", "one_of", "repeat", "group")


def grammar_field(step: Step) -> str | None:
    """The first grammar field ``step`` carries (``None``: a plain call)."""
    if step.optional:
        return "optional"
    if step.one_of is not None:
        return "one_of"
    if step.repeat is not None:
        return "repeat"
    if step.group is not None:
        return "group"
    return None
