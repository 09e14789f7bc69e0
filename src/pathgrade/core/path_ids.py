"""The checks of one reference path's step ids that the case model runs when it loads: ids are
unique, every ``after`` names one of them, and steps inside a ``one_of`` carry neither."""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING

from pathgrade.core.fields import FieldError, setting_any

if TYPE_CHECKING:
    from pathgrade.core.types import Step

_STEP_ID = attrgetter("id")
_ONE_OF = frozenset(("grammar",))  # where a step's one_of is stored (Step.grammar)
_ORDER = frozenset(("id", "after"))
#: The fields :func:`check_path_ids` reads: a path with no step setting one passes it.
CHECKED_FIELDS = _ONE_OF | _ORDER


def any_checked(paths: tuple[tuple[Step, ...], ...]) -> bool:
    """Whether a step of ``paths`` sets a field :func:`check_path_ids` reads (the usual
    answer, no, in one pass at C speed; a path with none passes every check)."""
    return bool(setting_any(tuple(chain.from_iterable(paths)), CHECKED_FIELDS))


def _check_branches(path: tuple[Step, ...], where: str) -> None:
    """Steps inside a ``one_of`` alternative carry no ``id`` nor ``after`` (an alternative is
    ordered by its place in the path)."""
    for step in setting_any(path, _ONE_OF):  # at C speed: usually no step has a one_of
        position = path.index(step)
        for b, branch in enumerate(step.one_of or ()):
            inner = f"{where}[{position}].one_of[{b}]"
            for k, sub in enumerate(branch):
                for name in ("id", "after"):
                    if getattr(sub, name):
                        raise FieldError(
                            f"{inner}[{k}].{name}", f"a step inside one_of cannot carry {name!r}"
                        )
            _check_branches(branch, inner)


def check_path_ids(path: tuple[Step, ...], where: str, name: str) -> None:
    """Step ids of one reference path are unique and every ``after`` names one of them."""
    _check_branches(path, where)
    if not setting_any(path, _ORDER):
        return  # no ids, no dependencies: nothing to check (the usual case)
    ids = list(map(_STEP_ID, path))
    known: set[str] = set()
    for position, step_id in enumerate(ids):
        if step_id is not None and step_id in known:
            raise FieldError(f"{where}[{position}].id", f"duplicate step id {step_id!r} in {name}")
        if step_id is not None:
            known.add(step_id)
    for position, step in enumerate(path):
        for dep in step.after:
            if dep not in known:
                raise FieldError(
                    f"{where}[{position}].after",
                    f"step {step.tool!r} is 'after' unknown id {dep!r} (no step of {name} has"
                    " that id)",
                )
