"""A path of steps validated at a fraction of the generic cost (the models' path fields).

A list or tuple of ``Step`` objects alone (the pooled steps of a loaded file, each checked
when it was made) is taken as it is, found at C speed; the usual record
``{"tool": T, "arguments": A}`` is built by :func:`~pathgrade.core.plain_steps.plain_step`
(exactly what validation gives); any other record by the model. When a record does not
validate, the whole path is validated by the field's ``handler``, so the error is the one it
always was, located in the path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from pathgrade.core.plain_steps import plain_step

_M = TypeVar("_M", bound=BaseModel)
#: What :func:`refuse` returns: a path that the generic validator must validate.
REFUSED = object()


def refuse(value: Any) -> Any:
    """A ``handler`` for :func:`path` that says "validate the whole field" (``REFUSED``)."""
    return REFUSED


def path(
    model: type[_M], defaults: dict[str, Any], value: Any, handler: Callable[[Any], Any]
) -> Any:
    """``value`` validated as a path of ``model`` steps (module docstring); ``defaults`` is
    :func:`~pathgrade.core.plain_steps.template` of ``model``."""
    if type(value) not in (list, tuple):
        return handler(value)
    if {model}.issuperset(map(type, value)):  # at C speed
        return tuple(value)
    made: list[_M] = []
    for item in value:
        step = plain_step(model, defaults, item) if type(item) is dict else None
        if step is None:
            if type(item) is model:
                step = item
            else:
                try:
                    step = model.model_validate(item)
                except ValidationError:
                    return handler(value)
        made.append(step)
    return tuple(made)
