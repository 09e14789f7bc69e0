"""What a :class:`~pathgrade.metrics.trajectory.diagnosis.Diagnoser` keeps to explain runs:
each run's reference-independent facts, and each batch's winning pairs."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pathgrade.core.results import Defect
from pathgrade.metrics.trajectory.pairs import PairScores

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class RunFacts:
    """Reference-independent facts about one run."""

    budget_violations: list[tuple[str, float, float]]
    forbidden: list[tuple[int, str]]
    recovery_rate: float
    unrecovered: list[int]
    required_coverage: float
    unused_required: list[str]
    fixed_penalty: float
    #: The system layer's defects (:mod:`pathgrade.metrics.trajectory.system_checks`).
    system: tuple[Defect, ...] = ()


#: The facts of a run with no budget, no errors, no required or forbidden tools.
CLEAN_RUN = RunFacts([], [], math.nan, [], math.nan, [], 0.0)


@dataclass(frozen=True)
class WinnerBatch:
    """The winning pair of each run of a batch, sliced out of :class:`PairScores`.

    Positions are recorded ones; ``scored[row, s]`` is the recorded position of the row's
    scored step ``s`` (None: the batch has no same-turn calls, so scored = recorded)."""

    runs: IntArray
    ref_paths: IntArray
    ops: IntArray
    ref_pos: IntArray
    agent_pos: IntArray
    full_op: npt.NDArray[np.bool_]
    n_ops: IntArray
    agent_status: IntArray
    ref_missing: npt.NDArray[np.bool_]
    agent_partner: IntArray
    out_of_order: npt.NDArray[np.bool_]
    premature: npt.NDArray[np.bool_]
    scored: IntArray | None = None

    @classmethod
    def take(
        cls, runs: IntArray, ref_paths: IntArray, scores: PairScores, rows: IntArray
    ) -> WinnerBatch:
        a = scores.alignment
        return cls(
            runs=runs,
            ref_paths=ref_paths,
            ops=a.ops[rows],
            ref_pos=a.ref_pos[rows],
            agent_pos=a.agent_pos[rows],
            full_op=a.full_op[rows],
            n_ops=a.n_ops[rows],
            agent_status=scores.agent_status[rows],
            ref_missing=scores.ref_missing[rows],
            agent_partner=scores.agent_partner[rows],
            out_of_order=scores.out_of_order[rows],
            premature=scores.premature[rows],
            scored=None if scores.scored is None else scores.scored[rows],
        )

    def scored_order(self, row: int, length: int) -> list[int]:
        """The recorded position of each of row ``row``'s first ``length`` scored steps."""
        if self.scored is None:
            return list(range(length))
        order: list[int] = self.scored[row, :length].tolist()
        return order
