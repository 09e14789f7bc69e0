"""What the HTML report shows, computed beforehand by :mod:`pathgrade.reporting`.

Plain data: :mod:`pathgrade.report.html` renders a :class:`ReportData` and computes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathgrade.report.latency_chart import LatencyData
from pathgrade.report.trials_chart import TrialRow

__all__ = [
    "CaseChange",
    "DefectRow",
    "McNemarTable",
    "ReportData",
    "SliceTable",
    "SummaryRow",
]


@dataclass(frozen=True)
class SummaryRow:
    """One metric of the summary: the mean of per-case means, its cluster-bootstrap interval,
    ``n`` cases and ``runs`` runs with a defined value, ``undefined`` runs, and which way is
    better (``higher``, ``lower`` or ``neither``, from the metric catalogue)."""

    metric: str
    mean: float | None
    low: float | None
    high: float | None
    n: int
    runs: int
    undefined: int
    direction: str


@dataclass(frozen=True)
class SliceTable:
    """One metric by slices of ``field``: ``rows`` are ``SliceSummary.to_dict()`` (one run) or
    ``SliceDiff.to_dict()`` (``paired``) of :mod:`pathgrade.stats.slices`, with ``slice`` as
    display text; slices under ``min_n`` cases have ``tested`` false."""

    metric: str
    field: str
    paired: bool
    min_n: int
    rows: list[dict[str, Any]]


@dataclass(frozen=True)
class McNemarTable:
    """The paired 2x2 table of a binary metric, with the exact McNemar p-value."""

    metric: str
    both: int
    wins: int  # baseline 0, variant 1
    losses: int  # baseline 1, variant 0
    neither: int
    p_value: float


@dataclass(frozen=True)
class CaseChange:
    """A case whose (per-case mean) value changed; ``row`` indexes the variant's case table."""

    case_id: str
    baseline: float
    variant: float
    diff: float
    row: int


@dataclass(frozen=True)
class DefectRow:
    """One defect kind over the run: ``count`` defects, in ``runs`` runs of ``cases`` cases,
    ``penalty`` points in all; ``flag`` the step mark it gives (empty: none)."""

    kind: str
    count: int
    runs: int
    cases: int
    penalty: float
    flag: str


@dataclass
class ReportData:
    """Everything the page shows, computed beforehand (see :mod:`pathgrade.reporting`)."""

    title: str
    run_name: str
    manifest: dict[str, Any] | None
    summary: list[SummaryRow]
    confidence: float
    cases: list[dict[str, Any]]
    columns: list[str]
    n_cases: int = 0
    extras: dict[str, Any] = field(default_factory=dict)
    abstention: dict[str, Any] | None = None
    retrieval: dict[str, Any] | None = None
    gates: dict[str, Any] | None = None
    baseline_name: str | None = None
    baseline_manifest: dict[str, Any] | None = None
    comparison: dict[str, Any] | None = None
    mcnemar: McNemarTable | None = None
    change_metric: str | None = None
    better: list[CaseChange] = field(default_factory=list)
    worse: list[CaseChange] = field(default_factory=list)
    slices: list[SliceTable] = field(default_factory=list)
    ablation: dict[str, Any] | None = None
    #: Provenance warnings (runs scored differently, compared anyway): the page's banner.
    warnings: list[str] = field(default_factory=list)
    #: Provenance notes (``provenance not recorded: comparability unchecked``).
    notes: list[str] = field(default_factory=list)
    #: Defects per kind over the variant's runs, most frequent first.
    defects: list[DefectRow] = field(default_factory=list)
    #: pass@k and pass^k by k, and the trial counts (``trials`` of the run summary).
    trials: list[TrialRow] = field(default_factory=list)
    trial_info: dict[str, Any] | None = None
    #: The run summary's ``conversations`` (docs/conversations.md): runs, turns, pass^k of
    #: conversation_success, trial divergence (None: no conversation).
    conversations: dict[str, Any] | None = None
    #: The runs' latency distribution (None: no run has a latency).
    latency: LatencyData | None = None
    #: Changed cases' side-by-side paths, by variant row (as text): see
    #: :func:`pathgrade.reporting.pairs.path_pair`.
    pairs: dict[str, Any] = field(default_factory=dict)
