"""Reading a reference path written in the path grammar, whatever its steps carry.

A reference step may carry ``optional`` (a bool), ``one_of`` (alternative sub-paths),
``repeat`` (``{"min": m, "max": n}``) and ``group`` (``"unordered"``) (docs/trajectory.md).
The accessors here read them with defaults, so that a step without them (or a model that
predates them) reads as a plain step: required, once, no alternatives.

:func:`walk` lists every step of a path with its field path, nested alternatives included
(``reference[2].one_of[1][0]``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from pathgrade.core.types import Step
from pathgrade.metrics.trajectory.arguments import freeze


def optional(step: Step) -> bool:
    """The step may be left out (``optional: true``)."""
    return bool(getattr(step, "optional", False))


def one_of(step: Step) -> tuple[tuple[Step, ...], ...]:
    """The step's alternative sub-paths (empty for a plain step)."""
    value = getattr(step, "one_of", None)
    return tuple(tuple(path) for path in value) if value else ()


def repeat_bounds(step: Step) -> tuple[int, int] | None:
    """``(min, max)`` of ``repeat``, or None when the step has no ``repeat``."""
    value: Any = getattr(step, "repeat", None)
    if value is None:
        return None
    if isinstance(value, dict):
        return int(value["min"]), int(value["max"])
    return int(value.min), int(value.max)


def unordered(step: Step) -> bool:
    """The step belongs to a run of consecutive steps in any order (``group: "unordered"``)."""
    return getattr(step, "group", None) == "unordered"


class Placed:
    """One step of a reference path and where it is written: ``field`` (made when asked:
    most steps are never named), ``position`` in the written order of the whole walk
    (nested steps included) and ``choice`` (a ``one_of`` step: its own tool is no call)."""

    __slots__ = ("_index", "_prefix", "choice", "position", "step")

    def __init__(self, step: Step, prefix: str, index: int, position: int) -> None:
        self.step, self._prefix, self._index, self.position = step, prefix, index, position
        self.choice = step.one_of is not None and len(step.one_of) > 0

    @property
    def field(self) -> str:
        """Where the step is written: ``reference[2]``, ``reference[1].one_of[0][1]``."""
        return f"{self._prefix}[{self._index}]"

    def __repr__(self) -> str:
        return f"Placed({self.field}: {self.step.tool})"


def walk(path: Sequence[Step], where: str) -> list[Placed]:
    """Every step of ``path`` (field prefix ``where``) in written order, depth first: a
    choice step, then the steps of its alternatives."""
    if not any(step.one_of for step in path):  # the usual path: no alternatives
        return [Placed(step, where, index, index) for index, step in enumerate(path)]
    out: list[Placed] = []

    def visit(steps: Sequence[Step], prefix: str) -> None:
        for index, step in enumerate(steps):
            out.append(Placed(step, prefix, index, len(out)))
            for alt, sub in enumerate(one_of(step)):
                visit(sub, f"{prefix}[{index}].one_of[{alt}]")

    visit(path, where)
    return out


def alternatives(path: Sequence[Step]) -> int:
    """How many combinations of ``one_of`` branches ``path`` has (1 without ``one_of``)."""
    total = 1
    for step in path:
        branches = one_of(step)
        if branches:
            total *= sum(alternatives(branch) for branch in branches)
    return total


def step_key(step: Step) -> Hashable:
    """What makes two calls the same call under exact matching: tool and arguments."""
    return (step.tool, freeze(step.arguments))


def signature(step: Step) -> Hashable:
    """A step as written, grammar included (equal signatures: the same reference step)."""
    return (
        step_key(step),
        optional(step),
        repeat_bounds(step),
        unordered(step),
        step.id,
        step.after,
        tuple(tuple(signature(s) for s in alt) for alt in one_of(step)),
    )


def length_bounds(path: Sequence[Step]) -> tuple[int, int]:
    """``(fewest, most)`` calls a run following ``path`` makes: an optional step counts
    0..1 (0..max with ``repeat``), a repeated step min..max, a choice its shortest to its
    longest alternative."""
    if not any(s.optional or s.one_of or s.repeat for s in path):  # the usual path
        return len(path), len(path)
    low = high = 0
    for step in path:
        alternatives = one_of(step)
        if alternatives:
            bounds = [length_bounds(alt) for alt in alternatives]
            lo, hi = min(b[0] for b in bounds), max(b[1] for b in bounds)
        else:
            lo, hi = repeat_bounds(step) or (1, 1)
        low += 0 if optional(step) else lo
        high += hi
    return low, high
