"""How a step is shown in defects and the alignment.

A step is shown as :func:`~pathgrade.core.types.format_step` of the *first* step, among the
scored runs' steps (in run order) and then their cases' reference steps (cases in order of
their first run, each case's references in ``reference_index`` order), that is the same
written call: the same tool, error and turn, and the same arguments up to the order of
object keys. So a call written ``{"b": 1, "a": 2}`` in one run and ``{"a": 2, "b": 1}`` in
another is shown one way everywhere, and a run's explanation is the same whether it is read
alone, with the others, or from a results file. Every defect shows its calls so, the two
steps of an ``unrecovered_error`` included.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from pathgrade.core.types import Step, format_step


def _written_call(step: Step) -> tuple[str, Any, str | None, int | None]:
    """The step as written, up to key order (sorted-key JSON of its arguments)."""
    try:
        arguments: Any = orjson.dumps(step.arguments, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # not plain JSON: its repr
        arguments = repr(step.arguments)
    return (step.tool, arguments, step.error, step.turn)


class StepTexts:
    """The text of each written call, fixed by its first occurrence in ``paths``."""

    def __init__(self, paths: Iterable[Sequence[Step]]) -> None:
        self._first: dict[tuple[str, Any, str | None, int | None], Step] = {}
        for path in paths:
            for step in path:
                self._first.setdefault(_written_call(step), step)

    def of(self, step: Step) -> str:
        """The text ``step`` is shown as."""
        return format_step(self._first.get(_written_call(step), step))

    def path(self, steps: Sequence[Step]) -> list[str]:
        """The text of each step of ``steps``."""
        return [self.of(step) for step in steps]
