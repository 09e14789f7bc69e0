"""``pathgrade report``: the HTML report of a run (:mod:`pathgrade.reporting` computes it,
:mod:`pathgrade.report.html` renders it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pathgrade.core.errors import InputError
from pathgrade.gates import GateSet
from pathgrade.io.cases import load_cases
from pathgrade.io.gates import load_gates
from pathgrade.report.html import write_html
from pathgrade.report.page_data import ReportData
from pathgrade.reporting import LoadedRun, SliceOptions, build_report, load_run
from pathgrade.stats.slice_keys import check_field
from pathgrade.stats.slices import MIN_SLICE_CASES

__all__ = ["report"]


def report(
    run: str,
    *,
    out: str | Path | None = None,
    baseline: str | None = None,
    gates: str | Path | GateSet | None = None,
    by: str | None = None,
    cases: str | Path | None = None,
    slice_metrics: Sequence[str] = (),
    min_slice_n: int = MIN_SLICE_CASES,
    ablation: Mapping[str, str] | None = None,
    store: str | Path | None = None,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    allow_config_change: bool = False,
) -> ReportData:
    """Compute the report of ``run`` (a stored run name, or a results file) and, with
    ``out``, write it as one self-contained HTML page (no network).

    Args:
        baseline: the run to compare with (stored name or results file).
        gates: a gates file (or a loaded set): their verdicts in the summary.
        by: slice tables by this case field or ``metadata.KEY``; ``cases`` is the cases
            file for fields other than ``group``; ``slice_metrics`` the metrics sliced
            (default ``path_score``); slices under ``min_slice_n`` cases are not tested.
        ablation: the 2x2 ablation's arms ``{"a": RA, "b": RB, "ab": RAB}`` (R0 is
            ``baseline``).
        store: the run store (default ``$PATHGRADE_STORE``, else ``.pathgrade/runs``).
        allow_config_change: report runs scored differently (the page's banner says so).

    Returns:
        What the page shows (:class:`~pathgrade.report.page_data.ReportData`; its
        ``warnings`` and ``notes`` are the provenance lines the command prints).
    """
    if by is not None:
        check_field(by)
    elif cases is not None or slice_metrics:
        raise InputError("--cases and --slice-metric need --by FIELD", field="--by")
    if ablation is not None and baseline is None:
        raise InputError("an ablation needs its baseline R0: pass --baseline", field="--ablation")
    variant = load_run(run, store)
    base = load_run(baseline, store) if baseline is not None else None
    gate_set = gates if isinstance(gates, GateSet) or gates is None else load_gates(gates)
    slices = None
    if by is not None:
        case_map = {c.case_id: c for c in load_cases(cases).items} if cases is not None else None
        slices = SliceOptions(by, case_map, tuple(slice_metrics), min_slice_n)
    arms: dict[str, LoadedRun] | None = None
    if ablation is not None:
        arms = {arm: load_run(name, store) for arm, name in ablation.items()}
    data = build_report(
        variant,
        base,
        gate_set,
        resamples=resamples,
        confidence=confidence,
        seed=seed,
        slices=slices,
        ablation=arms,
        allow_config_change=allow_config_change,
    )
    if out is not None:
        write_html(out, data)
    return data
