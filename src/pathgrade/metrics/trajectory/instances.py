"""The paths the engine scores the runs of cases with grammar references against
(:mod:`pathgrade.metrics.trajectory.grammar`): each run's own instances, appended to the
scorer's reference lists, and how a winning slot maps back to ``reference_index`` and
``reference_branch``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.trajectory import grammar
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.order import Predecessors
from pathgrade.metrics.trajectory.pairs import ORDER_NONE, ORDER_PARTIAL, ORDER_TOTAL

IntArray = npt.NDArray[np.int64]
ORDER_CODES = {"total": ORDER_TOTAL, "partial": ORDER_PARTIAL, "none": ORDER_NONE}


def predecessors(path: Sequence[object]) -> Predecessors:
    """Each step's predecessors (positions) by its ``after`` ids."""
    ids = {step.id: i for i, step in enumerate(path) if step.id is not None}  # type: ignore[attr-defined]
    return [[ids[d] for d in step.after] for step in path]  # type: ignore[attr-defined]


class GrammarInstances:
    """The paths the runs of cases with grammar references are scored against: per run,
    each reference as written or, written with the grammar, its alternatives' instances for
    the run (:mod:`pathgrade.metrics.trajectory.grammar`), appended to the scorer's
    reference lists; ``slots[r][s]`` = (reference index, ``reference_branch``) of slot ``s``."""

    def __init__(
        self,
        matchers: MatcherSet,
        paths: list[Sequence[object]],
        order: list[int],
        preds: list[Predecessors | None],
    ) -> None:
        self._matchers = matchers
        self._paths, self._order, self._preds = paths, order, preds
        self._alternatives: dict[int, list[grammar.Alternative]] = {}
        self.slots: dict[int, list[tuple[int, dict[str, object] | None]]] = {}

    @staticmethod
    def runs_of(case_grammar: npt.NDArray[np.bool_], run_case: Sequence[int]) -> list[int]:
        """The runs whose case has a grammar reference."""
        if not case_grammar.any():
            return []
        return [r for r, c in enumerate(run_case) if case_grammar[c]]

    def _append(self, path: Sequence[Step], order_name: str) -> None:
        self._paths.append(path)
        self._order.append(ORDER_CODES[order_name])
        self._preds.append(predecessors(path) if order_name == "partial" else None)

    def add(self, r: int, run: Run, case: Case) -> tuple[int, int]:
        """Append run ``r``'s paths: ``(first index, count)``."""
        first = len(self._paths)
        slots = self.slots[r] = []
        for index, path in enumerate(case.reference_paths()):
            if not grammar.uses_grammar(path):
                self._append(path, case.order)
                slots.append((index, None))
                continue
            key = id(path)
            if key not in self._alternatives:
                self._alternatives[key] = grammar.alternatives(path)
            for alternative in self._alternatives[key]:
                made = grammar.instance(alternative, run.steps, case.order, self._matchers)
                self._append(made.steps, made.order)
                slots.append((index, made.record()))
        return first, len(slots)

    def resolve(self, reference_index: IntArray) -> dict[int, dict[str, object]]:
        """Turn the winning slots of the grammar runs into reference indices, in place, and
        give their ``reference_branch`` records."""
        out: dict[int, dict[str, object]] = {}
        for r, slots in self.slots.items():
            slot = int(reference_index[r])
            if slot < 0:
                continue
            reference_index[r], branch = slots[slot]
            if branch is not None:
                out[r] = branch
        return out
