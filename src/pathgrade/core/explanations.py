"""Every run's defects and alignment as columns: what the trajectory layer hands the record
writer (:mod:`pathgrade.io.results.writer`), which turns them into the records' JSON text.

No text is made here and no object per defect or aligned step: an entry is a few integers
(its run, a code, positions, indexes into one list of call texts). Codes are described by
the tables the columns carry, so the writer knows nothing of how they were found.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from pathgrade.core.results import Defect

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: The ``op`` of each alignment code (:attr:`AlignmentColumns.op`), as ``AlignedStep.op``.
ALIGNED_OPS = ("match", "substitution", "insertion", "deletion")


@dataclass(frozen=True)
class StepDefectKind:
    """What a :class:`DefectColumns` code stands for: the defect kind, its penalty, and its
    detail template (a ``str.format`` pattern over ``{agent}`` and ``{reference}``, the
    texts of the entry's calls; see :mod:`pathgrade.metrics.trajectory.messages`)."""

    kind: str
    penalty: float
    template: str


@dataclass(frozen=True)
class DefectColumns:
    """The defects of ``n_runs`` runs.

    Entry ``e`` is a defect of run ``run[e]`` described by ``kinds[code[e]]``, at agent
    step ``agent_step[e]`` and reference step ``reference_step[e]`` (-1: the defect names
    none); its detail is the template formatted with ``agent=texts[agent_text[e]]`` and
    ``reference=texts[reference_text[e]]`` (-1: the template has no such field). Entries are
    sorted by run, each run's in its list order. ``made[r]`` are run ``r``'s other defects,
    as objects, listed after its entries.
    """

    n_runs: int
    run: IntArray
    code: IntArray
    agent_step: IntArray
    reference_step: IntArray
    agent_text: IntArray
    reference_text: IntArray
    texts: Sequence[str]
    kinds: Sequence[StepDefectKind]
    made: Mapping[int, Sequence[Defect]] = field(default_factory=dict)

    def counts(self) -> Counter[str]:
        """How many defects of each kind the runs have (kinds counted zero times left out)."""
        out: Counter[str] = Counter()
        per_code = np.bincount(self.code, minlength=len(self.kinds)).tolist()
        for kind, count in zip(self.kinds, per_code, strict=True):
            out[kind.kind] += count
        for defects in self.made.values():
            out.update(d.kind for d in defects)
        return +out  # drop the zero counts


@dataclass(frozen=True)
class AlignmentColumns:
    """The alignments of ``n_runs`` runs from run ``first_run`` on.

    Entry ``e`` is an aligned step of run ``run[e]`` (entries sorted by run, in op order):
    its op is ``ALIGNED_OPS[op[e]]``, at agent step ``agent_step[e]`` and reference step
    ``reference_step[e]`` (-1: none, as for an insertion's reference step), with
    ``tool_match[e]`` and ``arguments_match[e]``, and the texts ``texts[agent_text[e]]`` and
    ``texts[reference_text[e]]`` (-1: none).
    """

    first_run: int
    n_runs: int
    run: IntArray
    op: IntArray
    agent_step: IntArray
    reference_step: IntArray
    tool_match: BoolArray
    arguments_match: BoolArray
    agent_text: IntArray
    reference_text: IntArray
    texts: Sequence[str]
