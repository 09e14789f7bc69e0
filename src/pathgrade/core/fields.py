"""The field types and small value models (repeat bounds, budgets, usage) of the data model
(:mod:`pathgrade.core.types`): strict at the boundary.

``true`` is not a number and ``1`` is not a boolean; numbers are finite; integers fit in 64
bits; free-form values nest at most :data:`~pathgrade.core.nesting.MAX_DEPTH` levels.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from itertools import compress
from operator import attrgetter, not_
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Strict, model_validator

from pathgrade.core.nesting import check_nesting

_M = TypeVar("_M", bound=BaseModel)

#: A name that recurs across many records (a tool, a case id): interned when validated, so
#: equal names share one string object (less memory; dictionary look-ups that compare by
#: identity first, as the scorer's per-step interning does, touch no second string).
Name = Annotated[str, AfterValidator(sys.intern)]
OrderMode = Literal["total", "partial", "none"]
ToolKind = Literal["read", "write"]
Approval = Literal["granted", "denied"]
#: Free-form JSON (arguments, outputs, metadata, states): any value nesting at most
#: :data:`~pathgrade.core.nesting.MAX_DEPTH` levels (deeper could be read, but not stored,
#: reported or scored: orjson writes at most 254 levels).
Free = Annotated[Any, AfterValidator(check_nesting)]
FreeObject = Annotated[dict[str, Any], AfterValidator(check_nesting)]
Arguments = Annotated[dict[str, Any] | list[Any], AfterValidator(check_nesting)]
#: The largest integer a field holds (it is stored as a signed 64-bit integer).
INT64_MAX = (1 << 63) - 1
#: A count or an index: an integer (not a boolean, not a float) from 0 to ``INT64_MAX``.
Count = Annotated[int, Strict(), Field(ge=0, le=INT64_MAX)]
#: A signed 64-bit integer (not a boolean, not a float).
Int64 = Annotated[int, Strict(), Field(ge=-INT64_MAX - 1, le=INT64_MAX)]
#: An amount (tokens, cost, milliseconds): a finite number >= 0 (an integer is accepted).
Amount = Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)]
#: A finite number (an integer is accepted; a boolean is not).
Number = Annotated[float, Strict(), Field(allow_inf_nan=False)]
#: ``true`` or ``false``, nothing else.
Flag = Annotated[bool, Strict()]


class FieldError(ValueError):
    """A problem of a record that involves several of its fields, found in ``field`` (a path
    relative to the record, such as ``reference[2].after``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)


class RepeatBounds(_Strict):
    """A call that may legitimately happen ``min`` to ``max`` times (polling, pagination)."""

    min: Count = 1
    max: Count

    @model_validator(mode="after")
    def _ordered(self) -> RepeatBounds:
        if self.max < max(self.min, 1):
            raise FieldError("max", f"max {self.max} is below min {self.min} (or 1)")
        return self


class Budget(_Strict):
    """Limits for one run; each is optional. A run is over budget when it exceeds any."""

    steps: Count | None = None
    tokens: Amount | None = None
    cost: Amount | None = None
    latency_ms: Amount | None = None


class Usage(_Strict):
    """Totals the harness recorded for a run (preferred over the sums of per-step values).

    ``input_tokens``/``output_tokens``: the split of the tokens, which prices a run whose
    trace gives no cost (``[prices]``, :mod:`pathgrade.metrics.system.usage`)."""

    tokens: Amount | None = None
    cost: Amount | None = None
    latency_ms: Amount | None = None
    input_tokens: Amount | None = None
    output_tokens: Amount | None = None


_FIELDS_SET = attrgetter("__pydantic_fields_set__")


def setting_any(models: Iterable[_M], names: frozenset[str]) -> list[_M]:
    """The models of ``models`` (in order, repeats kept) whose ``model_fields_set`` names any
    of ``names``; read at C speed, one slot of each object, so the usual answer (none) costs
    no Python-level loop.

    A field absent from ``model_fields_set`` holds its default: pydantic keeps that set for
    validated, constructed (``model_construct``), copied (``model_copy(update=...)``) and
    pickled models alike (only ``model_construct(_fields_set=...)`` can state otherwise). So
    every model whose value of one of ``names`` differs from the default is among the result:
    a check of those fields needs to read only these (``tests/core/test_setting_any.py``).
    """
    listed = models if isinstance(models, (list, tuple)) else list(models)
    if all(map(names.isdisjoint, map(_FIELDS_SET, listed))):
        return []
    return list(compress(listed, map(not_, map(names.isdisjoint, map(_FIELDS_SET, listed)))))
