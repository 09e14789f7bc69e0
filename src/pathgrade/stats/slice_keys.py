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

This is the one definition of slice membership: ``score``, ``compare`` and ``report`` all
take their ``--by`` keys from here. :class:`Membership` turns per-run values into the
``(key, case_id)`` entries that :mod:`pathgrade.stats.slices` groups, so that a case in
several slices counts once in each.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case
from pathgrade.stats.records import RunValues

__all__ = [
    "Membership",
    "SliceFieldError",
    "SliceKey",
    "case_slice_keys",
    "check_field",
    "missing_field",
    "needs_cases",
    "slice_keys",
]

SliceKey = str | int | float | bool | None
_MISSING = object()


class SliceFieldError(InputError):
    """A slice field that cannot be resolved (no cases given, unknown field, unknown case)."""


def check_field(name: str) -> None:
    """Raise a one-line :class:`SliceFieldError` (field ``--by``) unless ``name`` can name a
    slice field: not empty, not ``case_id`` or ``metadata`` alone, no empty ``.`` part."""
    parts = name.removeprefix("metadata.").split(".")
    if name in ("case_id", "metadata") or not all(parts):
        raise SliceFieldError(
            f"cannot slice by {name!r}: expected a case field (group, order, ...), a"
            " metadata.KEY or a metadata key (difficulty, tags, ...)",
            field="--by",
        )


def missing_field(name: str) -> SliceFieldError:
    """The error for a field that no case has."""
    where = name if name.startswith("metadata.") else f"{name} (nor metadata.{name})"
    return SliceFieldError(f"no case has the field {where}")


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


def case_slice_keys(case: Case, field: str) -> tuple[tuple[SliceKey, ...], bool]:
    """One case's slice keys, and whether it has ``field`` at all (a case model field is
    always had; a metadata key only when present)."""
    value = _case_value(case, field)
    model_field = field in Case.model_fields and not field.startswith("metadata.")
    return _keys(value), model_field or value is not _MISSING


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
    check_field(field)
    if cases is None:
        if needs_cases(field):
            raise SliceFieldError(
                f"cannot slice by {field!r} from the results alone: it needs the cases file"
                " (the results carry only 'group'); pass the cases file with --cases"
            )
        group = {str(r.get("case_id")): r.get("group") for r in reversed(records)}
        return {c: _keys(group.get(c)) for c in ids}
    out: dict[str, tuple[SliceKey, ...]] = {}
    found = False
    for case_id in ids:
        case = cases.get(case_id)
        if case is None:
            raise SliceFieldError(f"case {case_id!r} of the results is not in the cases file")
        out[case_id], has = case_slice_keys(case, field)
        found = found or has
    if not found and ids:
        raise missing_field(field)
    return out


class Membership:
    """Cases in slices, from :func:`slice_keys`: every ``(key, case_id)`` pair is a member.

    :meth:`expand` repeats each run once per slice of its case, with the id
    ``(key, case_id)``; :attr:`slice_of` maps those ids to their key. Given to
    :func:`pathgrade.stats.slices.slice_summaries` or ``paired_slices``, a case in several
    slices (tags) counts once in each; a case with no keys here is in no slice.
    """

    def __init__(self, keys: Mapping[str, Sequence[SliceKey]]) -> None:
        self.keys = keys
        self.slice_of: dict[Hashable, Hashable] = {(k, c): k for c, ks in keys.items() for k in ks}

    def __repr__(self) -> str:
        return f"Membership(cases={len(self.keys)}, members={len(self.slice_of)})"

    def expand(self, runs: RunValues) -> tuple[list[float], list[Hashable]]:
        """Per-run values and ids, each run repeated once per slice of its case."""
        out_values: list[float] = []
        out_ids: list[Hashable] = []
        for case_id, value in zip(runs.case_ids, runs.values.tolist(), strict=True):
            for key in self.keys.get(case_id, ()):
                out_values.append(value)
                out_ids.append((key, case_id))
        return out_values, out_ids
