"""Slice keys: which slice each case belongs to, by a case field or ``metadata.KEY``.

A slice field (``--by FIELD``) is one of:

* a field of the case model (:class:`pathgrade.core.types.Case`) other than ``case_id``:
  ``group``, ``answerable``, ``order``, ...;
* ``metadata.KEY``: the value of ``KEY`` in the case's ``metadata`` (``metadata.difficulty``,
  ``metadata.service``, ``metadata.tags``); a case without ``KEY`` has the key ``None``.

A value becomes a slice key as it is when it is a string, a number, a boolean or ``None``;
a list of such values becomes the text of its items joined by ``", "`` (``["a", "b"]`` is
the slice ``"a, b"``: a case belongs to exactly one slice); anything else becomes its JSON
text (sorted keys). Result records carry only ``group``; every other field needs the cases.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import orjson

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case

__all__ = ["CASE_FIELDS", "RECORD_FIELDS", "check_field", "keys_from_cases", "keys_from_records"]

#: Case fields a slice can be taken on (``metadata.KEY`` too).
CASE_FIELDS: tuple[str, ...] = tuple(f for f in Case.model_fields if f != "case_id")
#: Case fields every result record carries (no cases file needed).
RECORD_FIELDS: tuple[str, ...] = ("group",)
_METADATA = "metadata."


def check_field(field: str) -> None:
    """Raise a one-line :class:`InputError` (field ``--by``) unless ``field`` is sliceable."""
    if field in CASE_FIELDS and field != "metadata":
        return
    if field.startswith(_METADATA) and len(field) > len(_METADATA):
        return
    fields = ", ".join(f for f in CASE_FIELDS if f != "metadata")
    raise InputError(
        f"cannot slice by {field!r}: expected a case field ({fields}) or metadata.KEY",
        field="--by",
    )


def _key(value: Any) -> Hashable:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple) and all(
        v is None or isinstance(v, str | int | float | bool) for v in value
    ):
        return ", ".join(str(v) for v in value)
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")


def _value(case: Case, field: str) -> Any:
    if field.startswith(_METADATA):
        return case.metadata.get(field[len(_METADATA) :])
    return case.model_dump(mode="json", include={field})[field]


def keys_from_cases(
    field: str, case_ids: Iterable[str], cases: Mapping[str, Case], *, file: str = "--cases"
) -> dict[Hashable, Hashable]:
    """``{case_id: key}`` for every id, read from ``cases``.

    Raises:
        InputError: an unsliceable field, or a case id that ``cases`` does not hold.
    """
    check_field(field)
    out: dict[Hashable, Hashable] = {}
    for case_id in case_ids:
        if case_id in out:
            continue
        case = cases.get(case_id)
        if case is None:
            raise InputError(f"case {case_id!r} of the results is not in the cases file", file=file)
        out[case_id] = _key(_value(case, field))
    return out


def keys_from_records(field: str, records: Iterable[Mapping[str, Any]]) -> dict[Hashable, Hashable]:
    """``{case_id: key}`` from result records, for the fields they carry (:data:`RECORD_FIELDS`).

    Raises:
        InputError: an unsliceable field, or one the records do not carry (pass the cases).
    """
    check_field(field)
    if field not in RECORD_FIELDS:
        raise InputError(
            f"the results do not carry {field!r} (only {', '.join(RECORD_FIELDS)}): pass the"
            " cases file with --cases",
            field="--by",
        )
    out: dict[Hashable, Hashable] = {}
    for record in records:
        out.setdefault(str(record.get("case_id")), _key(record.get(field)))
    return out
