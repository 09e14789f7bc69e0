"""Result types of :func:`pathgrade.score`: per-run metrics, defects, alignment, summary.

Scores are kept column-wise (one NumPy array per metric, ``nan`` = undefined) so that large
batches cost no per-run objects; :class:`RunResult` objects are built on demand. The file
form of a run's result (the record) is defined by :mod:`pathgrade.io.results.schema`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from pathgrade.core.explanations import AlignmentColumns, DefectColumns
    from pathgrade.core.provenance import Provenance
    from pathgrade.core.record_provenance import RecordProvenance

#: The version of the result record :meth:`RunResult.to_dict` gives and ``score --out``
#: writes (the record is defined, field by field, in :mod:`pathgrade.io.results.schema`).
RECORD_SCHEMA_VERSION = 1

#: How a metric value is typed in JSON (:func:`json_value`). Which kind each metric has is
#: said by the metric catalogue (``pathgrade.metrics.catalogue.json_kind``), nowhere else.
MetricKind = Literal["rate", "bool", "count", "score"]


def json_value(value: float, kind: MetricKind) -> float | int | bool | None:
    """A metric value as JSON: ``None`` for undefined, ``bool``/``int`` where the kind says."""
    if value is None or math.isnan(value):
        return None
    if kind == "bool":
        return bool(value)
    if kind == "count":
        return int(value)
    return float(value)


@dataclass(frozen=True)
class Defect:
    """One thing wrong with a path, and the points it cost (``penalty`` may be 0)."""

    kind: str
    penalty: float
    detail: str
    agent_step: int | None = None
    reference_step: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "penalty": self.penalty, "detail": self.detail}
        if self.agent_step is not None:
            out["agent_step"] = self.agent_step
        if self.reference_step is not None:
            out["reference_step"] = self.reference_step
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class Finding:
    """Why a reference-free count of the system layer counted a call: its ``code`` (e.g.
    ``repeated_call``), the 0-based agent ``step`` and a one-line ``message``
    (:mod:`pathgrade.metrics.system.health`). No points are taken for it."""

    code: str
    step: int
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "step": self.step, "message": self.message}


@dataclass(frozen=True)
class AlignedStep:
    """One entry of the alignment: ``match``, ``substitution``, ``insertion`` or ``deletion``."""

    op: Literal["match", "substitution", "insertion", "deletion"]
    agent_step: int | None
    reference_step: int | None
    tool_match: bool
    arguments_match: bool
    agent: str | None
    reference: str | None
    #: Of a pair whose arguments were compared field by field (field modes in the config):
    #: each field's mode, measure, threshold and match
    #: (:mod:`pathgrade.metrics.trajectory.field_details`); ``None``: no such comparison,
    #: and the record has no ``fields`` key.
    fields: tuple[Mapping[str, Any], ...] | None = field(default=None, hash=False)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "op": self.op,
            "agent_step": self.agent_step,
            "reference_step": self.reference_step,
            "tool_match": self.tool_match,
            "arguments_match": self.arguments_match,
            "agent": self.agent,
            "reference": self.reference,
        }
        if self.fields is not None:
            out["fields"] = [dict(f) for f in self.fields]
        return out


@dataclass(frozen=True)
class RunResult:
    """Everything pathgrade says about one run."""

    case_id: str
    run_id: str | None
    trial: int
    group: str | None
    reference_index: int | None
    metrics: Mapping[str, float | int | bool | None]
    defects: tuple[Defect, ...]
    alignment: tuple[AlignedStep, ...]
    usage: Mapping[str, float | int | None]
    #: How the run was measured, and its controlled variables (``None``: not recorded).
    provenance: Provenance | None = None
    #: Of a reference written with the path grammar: the ``one_of`` branches taken, the
    #: optional steps used and the copies of each ``repeat`` counted (``None``: plain).
    reference_branch: Mapping[str, Any] | None = None
    #: Of a conversation (a run with turns): each turn's user message, calls, reply, path
    #: against the turn's reference, defects and notes (``None``: not a conversation).
    conversation: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The run's result record (:class:`pathgrade.io.results.schema.ResultRecord`)."""
        out: dict[str, Any] = {
            "schema_version": RECORD_SCHEMA_VERSION,
            "case_id": self.case_id,
            "run_id": self.run_id,
            "trial": self.trial,
            "group": self.group,
            "reference_index": self.reference_index,
        }
        if self.reference_branch is not None:
            out["reference_branch"] = dict(self.reference_branch)
        if self.conversation is not None:
            out["conversation"] = dict(self.conversation)
        out |= {
            "metrics": dict(self.metrics),
            "defects": [d.to_dict() for d in self.defects],
            "alignment": [a.to_dict() for a in self.alignment],
            "usage": dict(self.usage),
        }
        if self.provenance is not None:
            out["provenance"] = self.provenance.to_dict()
        return out


FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ScoreResult:
    """Scores of many runs, column-wise.

    ``metrics[name][r]`` is run ``r``'s value (``nan`` = undefined); ``kinds[name]`` says how it
    is typed. ``result[r]`` (or iterating) builds :class:`RunResult` objects on demand.
    """

    case_ids: Sequence[str]
    run_ids: Sequence[str | None]
    trials: Sequence[int]
    groups: Sequence[str | None]
    reference_index: npt.NDArray[np.int64]  # -1 when the case has no reference path
    metrics: Mapping[str, FloatArray]
    kinds: Mapping[str, MetricKind]
    details: Callable[[int], tuple[tuple[Defect, ...], tuple[AlignedStep, ...]]]
    usage: Callable[[int], Mapping[str, float | int | None]]
    summary_extra: Mapping[str, Any] = field(default_factory=dict)
    #: For record writers (None: use ``details``): the same facts as ``details`` gives, as
    #: columns, without an object per run: every run's defects, and the alignments of runs
    #: ``start`` to ``stop - 1`` (``alignment_columns(start, stop)``; made a range at a time,
    #: so that the entries of all the runs are never held at once).
    defect_columns: Callable[[], DefectColumns] | None = None
    alignment_columns: Callable[[int, int], AlignmentColumns] | None = None
    #: Each run's provenance (what :func:`pathgrade.score` measured with, the controlled
    #: variables); ``None``: not recorded (a result made by hand), records carry none.
    provenance: RecordProvenance | None = None
    #: ``reference_branch`` of the runs scored against a grammar reference, by run index.
    reference_branch: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    #: ``conversation`` of the runs with turns, by run index (:class:`RunResult`).
    conversation: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    #: Each run's findings (:class:`Finding`: why its reference-free counts are what they
    #: are, :mod:`pathgrade.metrics.system.health`), made on demand; ``None``: not scored.
    findings: Callable[[int], tuple[Finding, ...]] | None = None

    def __len__(self) -> int:
        return len(self.case_ids)

    def __getitem__(self, index: int) -> RunResult:
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        index %= len(self)
        defects, alignment = self.details(index)
        ref = int(self.reference_index[index])
        return RunResult(
            case_id=self.case_ids[index],
            run_id=self.run_ids[index],
            trial=self.trials[index],
            group=self.groups[index],
            reference_index=ref if ref >= 0 else None,
            metrics={
                name: json_value(float(values[index]), self.kinds[name])
                for name, values in self.metrics.items()
            },
            defects=defects,
            alignment=alignment,
            usage=self.usage(index),
            provenance=None if self.provenance is None else self.provenance(index),
            reference_branch=self.reference_branch.get(index),
            conversation=self.conversation.get(index),
        )

    def __iter__(self) -> Iterator[RunResult]:
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return f"ScoreResult(runs={len(self)}, metrics={list(self.metrics)})"

    def summary(self) -> dict[str, Any]:
        """Mean of each metric over the runs where it is defined, the run count and, per
        metric, how many runs left it undefined (``undefined``)."""
        out: dict[str, Any] = {}
        undefined: dict[str, int] = {}
        for name, values in self.metrics.items():
            defined = ~np.isnan(values)
            count = int(defined.sum())
            out[name] = float(values[defined].mean()) if count else None
            if count < len(values):
                undefined[name] = len(values) - count
        out["runs"] = len(self)
        out["undefined"] = undefined
        out.update(self.summary_extra)
        return out

    def defect_counts(self) -> dict[str, int]:
        """How many defects of each kind the runs have, by kind name (sorted)."""
        counts: Counter[str] = Counter()
        if self.defect_columns is not None:
            counts = self.defect_columns().counts()
        else:
            for index in range(len(self)):
                counts.update(d.kind for d in self.details(index)[0])
        return dict(sorted(counts.items()))

    def to_json_dict(self) -> dict[str, Any]:
        """The document ``pathgrade score --json`` prints."""
        return {"summary": self.summary(), "results": [r.to_dict() for r in self]}
