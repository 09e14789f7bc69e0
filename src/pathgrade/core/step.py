"""One tool call of a path (:class:`Step`), its path grammar fields, and the validation of a
path of steps (the string shorthand, pooled steps; :mod:`pathgrade.core.step_paths`).

Kept apart from :mod:`pathgrade.core.types` so that the conversation model
(:mod:`pathgrade.core.conversation`), which holds steps, and the case and run models, which
hold conversations, import without a circle. ``pathgrade.core.types`` re-exports everything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, Self, cast

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

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
    "GRAMMAR_STORED",
    "ONE_OF_TOOL",
    "Grammar",
    "Step",
    "grammar_field",
    "validate_path",
]


class Step(_Strict):
    """One tool call. Only ``tool`` is required.

    ``id`` and ``after`` express a partial order in reference paths (``order = "partial"``):
    a step may happen only after the steps whose ids it lists.

    The path grammar's four fields (``optional``, ``one_of``, ``repeat``, ``group``) are
    written, read and dumped as fields of the step, and stored together in one field,
    ``grammar`` (:class:`Grammar`; ``None``: a plain call). A step's instance dictionary then
    holds 19 entries, not 22: a CPython dict of more than 21 entries doubles its table (464 to
    832 bytes), which cost the per-case scorer 13-17% on 500,000 steps (docs/scale.md).
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
    #: The path grammar (reference paths only): read it through the four properties below.
    grammar: Grammar | None = None

    @property
    def optional(self) -> bool:
        """The step may be left out (docs/trajectory.md "A path grammar")."""
        grammar = self.grammar
        return grammar is not None and grammar.optional

    @property
    def one_of(self) -> tuple[tuple[Step, ...], ...] | None:
        """Alternative sub-paths (this step is then no call of its own)."""
        grammar = self.grammar
        return None if grammar is None else grammar.one_of

    @property
    def repeat(self) -> RepeatBounds | None:
        """How many times the call may happen."""
        grammar = self.grammar
        return None if grammar is None else grammar.repeat

    @property
    def group(self) -> Literal["unordered"] | None:
        """Any order among consecutive ``unordered`` steps."""
        grammar = self.grammar
        return None if grammar is None else grammar.group

    @model_validator(mode="wrap")
    @classmethod
    def _validate(cls, value: Any, handler: ModelWrapValidatorHandler[Step]) -> Step:
        # A ``Step`` was checked when it was made (it is frozen): it is accepted as it is,
        # in one call (pooled steps are handed to every record that repeats them).
        if type(value) is Step:
            return value
        if isinstance(value, str):
            value = parse_step_shorthand(value)
        if isinstance(value, dict):
            if "grammar" in value:
                raise FieldError("grammar", "unknown field (write optional, one_of or repeat)")
            if not _GRAMMAR_KEYS.isdisjoint(value):
                value = _gather_grammar(value)
        step = handler(value)
        if step.grammar is not None:
            step._check_grammar()
        return step

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        # The grammar is dumped as the step's own four fields, where they were when they were
        # fields: the same JSON, and so the same case hashes, as before it was one field.
        data = handler(self)
        if type(data) is dict:
            if "grammar" in data:
                grammar = data.pop("grammar")
                data.update(_PLAIN_DUMP if grammar is None else grammar)
            elif self.grammar is None and info.exclude_none and not _dropping_defaults(info):
                data["optional"] = False  # the one grammar default an exclude_none dump keeps
        return data

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """pydantic's copy; grammar fields in ``update`` go into :attr:`grammar` (unchecked,
        as every ``update`` of ``model_copy`` is)."""
        if update and not _GRAMMAR_KEYS.isdisjoint(update):
            update = _copy_grammar(self.grammar, update)
        return super().model_copy(update=update, deep=deep)

    @classmethod
    def model_construct(  # type: ignore[override]  # pydantic's plugin types it per field
        cls, _fields_set: set[str] | None = None, **values: Any
    ) -> Self:
        """pydantic's unchecked construction; grammar fields go into :attr:`grammar`."""
        if not _GRAMMAR_KEYS.isdisjoint(values):
            values = _copy_grammar(None, values)
            if _fields_set is not None:
                _fields_set = {*(_fields_set - _GRAMMAR_KEYS), "grammar"}
        return cast(Self, super().model_construct(_fields_set, **values))

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


class Grammar(_Strict):
    """The path grammar fields of a reference step (docs/trajectory.md "A path grammar"):
    the step may be left out; alternative sub-paths; how many times the call may happen; any
    order among consecutive ``unordered`` steps. Stored as :attr:`Step.grammar`."""

    optional: Flag = False
    one_of: tuple[tuple[Step, ...], ...] | None = None
    repeat: RepeatBounds | None = None
    group: Literal["unordered"] | None = None


Step.model_rebuild()

#: The fields of the path grammar: reference-only (a run's step carrying one is an error).
GRAMMAR_FIELDS = ("optional", "one_of", "repeat", "group")
_GRAMMAR_KEYS = frozenset(GRAMMAR_FIELDS)
#: The stored field that holds them (``model_fields_set`` names it when any was written).
GRAMMAR_STORED = frozenset(("grammar",))
_PLAIN_DUMP = {"optional": False, "one_of": None, "repeat": None, "group": None}


def _gather_grammar(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` with its grammar keys moved into one ``grammar`` entry, none when they are
    all at their defaults (so a dumped plain step reads back equal); a choice written without
    a tool gets :data:`ONE_OF_TOOL` (it is no call of its own)."""
    out = {k: v for k, v in value.items() if k not in _GRAMMAR_KEYS}
    grammar = {k: v for k, v in value.items() if k in _GRAMMAR_KEYS}
    if any(v is not _PLAIN_DUMP[k] for k, v in grammar.items()):
        out["grammar"] = grammar
    if "one_of" in value and "tool" not in value:
        out["tool"] = ONE_OF_TOOL
    return out


def _dropping_defaults(info: SerializationInfo) -> bool:
    return info.exclude_defaults or info.exclude_unset


def _copy_grammar(grammar: Grammar | None, update: Mapping[str, Any]) -> dict[str, Any]:
    """``update`` with its grammar keys merged into ``grammar`` (constructed, unchecked)."""
    merged = dict(_PLAIN_DUMP) if grammar is None else dict(grammar.__dict__)
    merged.update((k, v) for k, v in update.items() if k in _GRAMMAR_KEYS)
    out = {k: v for k, v in update.items() if k not in _GRAMMAR_KEYS}
    plain = all(v is _PLAIN_DUMP[k] for k, v in merged.items())
    out["grammar"] = None if plain else Grammar.model_construct(**merged)
    return out


def validate_path(value: Any, handler: Callable[[Any], Any]) -> Any:
    """``value`` validated as a path of steps (:func:`~pathgrade.core.step_paths.path`)."""
    return step_path(Step, _STEP_DEFAULTS, value, handler)


_STEP_DEFAULTS = template(Step)


#: The ``tool`` of a ``one_of`` step written without one (it is no call of its own).
ONE_OF_TOOL = "one_of"


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
