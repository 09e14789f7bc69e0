"""Custom argument validators: semantic checks a JSON comparison cannot make.

A validator is a callable ``(value, reference) -> bool`` for one argument field: ``value`` is
what the agent passed, ``reference`` what the reference step passed (e.g. a SQL or PromQL
checker that compares two queries by meaning). A field uses one by naming it as its mode in
the matching configuration (``[matching.tools.query_db.fields.sql] mode = "sql_equiv"``).

Validators come from three places, looked up in this order: the ``validators`` mapping passed
to the layer; :func:`register_validator`; the entry-point group ``pathgrade.validators``
(discovered by :func:`pathgrade.io.tools.entry_point_validators`, which the CLI passes in).
Two built-ins are always present: ``unordered`` (lists equal as multisets of JSON values) and
``casefold`` (strings equal after Unicode case folding and whitespace collapsing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson

Validator = Callable[[Any, Any], bool]

#: The entry-point group plug-in validators are published under.
ENTRY_POINT_GROUP = "pathgrade.validators"


def _canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _unordered(value: Any, reference: Any) -> bool:
    if not isinstance(value, list) or not isinstance(reference, list):
        return False
    return sorted(map(_canonical, value)) == sorted(map(_canonical, reference))


def _casefold(value: Any, reference: Any) -> bool:
    if not isinstance(value, str) or not isinstance(reference, str):
        return False
    return " ".join(value.casefold().split()) == " ".join(reference.casefold().split())


BUILTIN_VALIDATORS: Mapping[str, Validator] = {"unordered": _unordered, "casefold": _casefold}

_REGISTERED: dict[str, Validator] = {}


def register_validator(name: str, validator: Validator, *, replace: bool = False) -> None:
    """Register ``validator`` under ``name``; an existing name is an error unless ``replace``."""
    if not name:
        raise ValueError("a validator needs a non-empty name")
    if not callable(validator):
        raise TypeError(f"validator {name!r} is not callable")
    if not replace and (name in _REGISTERED or name in BUILTIN_VALIDATORS):
        raise ValueError(f"validator {name!r} is already registered")
    _REGISTERED[name] = validator


def unregister_validator(name: str) -> None:
    """Remove a validator registered with :func:`register_validator` (no error if absent)."""
    _REGISTERED.pop(name, None)


def resolve_validators(extra: Mapping[str, Validator] | None = None) -> dict[str, Validator]:
    """The validators in effect: built-ins, then registered ones, then ``extra`` (wins)."""
    table: dict[str, Validator] = dict(BUILTIN_VALIDATORS)
    table.update(_REGISTERED)
    if extra:
        table.update(extra)
    return table
