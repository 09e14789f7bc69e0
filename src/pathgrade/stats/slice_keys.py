"""Which slice(s) each case belongs to, for ``--by FIELD``.

``FIELD`` is resolved, for each case, as follows:

* ``group``: the results records' ``group`` (every record carries it), or the case's
  ``group`` when the cases are given;
* ``metadata.KEY`` (``metadata.a.b`` walks nested objects): the case's ``metadata`` entry;
* a field of the case model (``order``, ``answerable``, ``required_tools`` ...): its value;
* any other name (the methodology's ``difficulty``, ``failure_type``, ``service``, ``tags``,
  which the case model keeps in ``metadata``): ``metadata.FIELD``.

Every field but ``group`` needs the cases (the results records do not carry them). A value
that is a list puts the case in one slice per element (``tags``); a missing value, ``null`` or
an empty list is the slice ``None`` (shown as ``(none)``). Keys are JSON scalars: a string,
number or bool as is; any other value (an object) as its compact JSON text. A field that no
case has at all is an error (a typo must not read as one slice ``None``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pathgrade.core.types import Case

__all__ = ["SliceFieldError", "SliceKey", "needs_cases", "slice_keys"]

SliceKey = str | int | float | bool | None
_MISSING = object()


class SliceFieldError(ValueError):
    """A slice field that cannot be resolved (no cases given, unknown field, unknown case)."""


def needs_cases(field: str) -> bool:
    """Whether ``field`` can only be read from the cases (every field but ``group``)."""
    return field != "group"


def _scalar(value: Any) -> SliceKey:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", exclude_defaults=True)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _keys(value: Any) -> tuple[SliceKey, ...]:
    if value is _MISSING or value is None:
        return (None,)
    if isinstance(value, list | tuple):
        keys = tuple(dict.fromkeys(_scalar(v) for v in value))
        return keys or (None,)
    return (_scalar(value),)


def _walk(metadata: Mapping[str, Any], path: Sequence[str]) -> Any:
    value: Any = metadata
    for part in path:
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _case_value(case: Case, field: str) -> Any:
    if field.startswith("metadata."):
        return _walk(case.metadata, field.removeprefix("metadata.").split("."))
    if field in Case.model_fields:
        return getattr(case, field)
    return _walk(case.metadata, field.split("."))


def slice_keys(
    field: str,
    case_ids: Iterable[str],
    *,
    records: Sequence[Mapping[str, Any]] = (),
    cases: Mapping[str, Case] | None = None,
) -> dict[str, tuple[SliceKey, ...]]:
    """The slice keys of each case of ``case_ids`` (module docstring), in their order.

    Raises:
        SliceFieldError: ``field`` needs the cases and none are given; a case that the cases
            do not have; a field that no case has.
    """
    ids = list(dict.fromkeys(case_ids))
    if cases is None:
        if needs_cases(field):
            raise SliceFieldError(
                f"slicing by {field!r} needs the cases file: the results carry only 'group'"
            )
        group = {str(r.get("case_id")): r.get("group") for r in reversed(records)}
        return {c: _keys(group.get(c)) for c in ids}
    out: dict[str, tuple[SliceKey, ...]] = {}
    found = field in Case.model_fields and not field.startswith("metadata.")
    for case_id in ids:
        case = cases.get(case_id)
        if case is None:
            raise SliceFieldError(f"case {case_id!r} of the results is not in the cases file")
        value = _case_value(case, field)
        found = found or value is not _MISSING
        out[case_id] = _keys(value)
    if not found and ids:
        where = field if field.startswith("metadata.") else f"{field} (nor metadata.{field})"
        raise SliceFieldError(f"no case has the field {where}")
    return out
