"""The usual step record, ``{"tool": T, "arguments": A}``, built without the generic validator.

Validating a step record through pydantic visits every one of the model's fields (about 37,000
machine instructions a step on this machine, most of a file's loading); the usual record of a
reference or a bare run names two of them. :func:`plain_step` builds that record's ``Step``
directly, with exactly the result validation gives: the same field values in the same order
(every other field at its default, ``metadata`` a new empty dict), the same
``model_fields_set``, the tool name interned, the ``arguments`` container copied (its values
shared, as pydantic shares the values of an ``Any``), ``null`` and ``[]`` read as ``{}``.
Anything else, and any record the generic validator would refuse (a non-string tool, an empty
one, a non-string key, a value nested too deep), returns ``None``: the generic validator then
validates it, with its own error. ``tests/core/test_plain_steps.py`` proves the two equal.
"""

from __future__ import annotations

import sys
from typing import Any, TypeVar

from pydantic import BaseModel

from pathgrade.core.nesting import check_nesting

_M = TypeVar("_M", bound=BaseModel)
_KEYS = frozenset(("tool", "arguments"))
_STR_TYPE = frozenset((str,))
_setattr = object.__setattr__


def template(model: type[BaseModel]) -> dict[str, Any]:
    """Every field of ``model`` at its plain default, in field order (the fields with a
    default factory, and those without a default, are filled per step)."""
    return {
        name: field.get_default(call_default_factory=False)
        for name, field in model.model_fields.items()
    }


def plain_step(model: type[_M], defaults: dict[str, Any], value: dict[str, Any]) -> _M | None:
    """``value``'s ``model`` instance when ``value`` is the usual step record, else ``None``
    (module docstring); ``defaults`` is :func:`template` of ``model``."""
    if not _KEYS.issuperset(value):
        return None
    tool = value.get("tool")
    if type(tool) is not str or not tool:
        return None
    arguments = value.get("arguments")
    if arguments is None:
        arguments = {}
    elif type(arguments) is dict:
        if not _STR_TYPE.issuperset(map(type, arguments)):
            return None
        arguments = dict(arguments)
    elif type(arguments) is list:
        arguments = list(arguments) if arguments else {}
    else:
        return None
    try:
        check_nesting(arguments)
    except ValueError:
        return None
    fields = dict(defaults)
    fields["tool"] = sys.intern(tool)
    fields["arguments"] = arguments
    fields["metadata"] = {}
    step = model.__new__(model)
    _setattr(step, "__dict__", fields)
    _setattr(step, "__pydantic_fields_set__", set(value))
    _setattr(step, "__pydantic_extra__", None)
    _setattr(step, "__pydantic_private__", None)
    return step
