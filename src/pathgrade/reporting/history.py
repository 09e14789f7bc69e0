"""The history of stored runs: each primary metric over the runs, with its interval.

For each run, in the order given, and each metric: the mean of per-case means over defined
trials and its cluster-bootstrap interval over cases
(:func:`pathgrade.stats.bootstrap.case_mean_interval`, the summary of a single report), with
the cases and runs counted. The metrics are those asked for, else every primary metric
(:data:`pathgrade.reporting.build.HEADLINE`) that some run defines. Consecutive runs are checked
for provenance (:func:`pathgrade.core.comparability.check_records`, allowed): a run scored
differently from the one before it is marked, since its change may come from the scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pathgrade.core.comparability import check_records
from pathgrade.core.errors import InputError
from pathgrade.metrics import catalogue
from pathgrade.report.history_page import (
    HistoryData,
    HistoryMetric,
    HistoryPoint,
    HistoryRun,
    render_history,
)
from pathgrade.report.html import write_text_atomic
from pathgrade.reporting.build import HEADLINE
from pathgrade.reporting.loading import LoadedRun, load_run
from pathgrade.stats.bootstrap import case_mean_interval
from pathgrade.stats.records import MissingMetricError, metric_names, run_values

__all__ = ["build_history", "history_report"]


def _point(
    run: LoadedRun, metric: str, resamples: int, confidence: float, seed: int
) -> HistoryPoint:
    try:
        values = run_values(run.records, metric)
    except MissingMetricError:
        return HistoryPoint(None, None, None, 0, 0, 0)
    except ValueError as error:
        raise InputError(str(error), file=run.name, field=metric) from None
    defined = int(np.count_nonzero(~np.isnan(values.values)))
    undefined = int(values.values.size) - defined
    if defined == 0:
        return HistoryPoint(None, None, None, 0, 0, undefined)
    ci = case_mean_interval(
        values.values, values.case_ids, resamples=resamples, confidence=confidence, rng=seed
    )
    return HistoryPoint(ci.mean, ci.low, ci.high, ci.n_cases, defined, undefined)


def _run(run: LoadedRun, previous: LoadedRun | None) -> HistoryRun:
    manifest = run.manifest or {}
    changed = None
    if previous is not None:
        check = check_records(
            previous.records, run.records, names=(previous.name, run.name), allow=True
        )
        if check.differences:
            changed = "; ".join(check.differences)
    return HistoryRun(
        name=run.name,
        created=str(manifest.get("created") or ""),
        labels=dict(manifest.get("labels") or {}),
        config_hash=manifest.get("config_hash"),
        n_cases=len({str(r.get("case_id")) for r in run.records}),
        n_runs=len(run.records),
        scoring_changed=changed,
    )


def build_history(
    runs: Sequence[str],
    *,
    store: str | Path | None = None,
    metrics: Sequence[str] = (),
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> HistoryData:
    """What the history page shows for ``runs`` (stored names or results files), in order.

    Raises:
        InputError: no run, a run named twice, an unknown run, or a metric in ``metrics``
            that no run has.
    """
    if not runs:
        raise InputError("a history needs at least one run", field="--history")
    repeated = sorted({name for name in runs if list(runs).count(name) > 1})
    if repeated:
        raise InputError(f"run(s) named twice: {', '.join(repeated)}", field="--history")
    metrics = [catalogue.canonical(m) for m in metrics]
    loaded = [load_run(name, store) for name in runs]
    found: dict[str, None] = {}
    for run in loaded:
        found.update(dict.fromkeys(metric_names(run.records)))
    absent = [m for m in metrics if m not in found]
    if absent:
        raise InputError(f"no run has metric(s) {', '.join(absent)}", field="metric")
    rows = [_run(run, loaded[i - 1] if i else None) for i, run in enumerate(loaded)]
    series = []
    for metric in dict.fromkeys(metrics or [m for m in HEADLINE if m in found]):
        points = [_point(run, metric, resamples, confidence, seed) for run in loaded]
        if not metrics and all(p.mean is None for p in points):
            continue  # a primary metric no run defines (goal_success without gold answers)
        row = catalogue.find(metric)
        series.append(
            HistoryMetric(
                metric=metric,
                direction=row.direction if row is not None else "neither",
                bounds=row.range if row is not None else None,
                points=points,
            )
        )
    return HistoryData(
        runs=rows, metrics=series, confidence=confidence, resamples=resamples, seed=seed
    )


def history_report(
    runs: Sequence[str],
    *,
    store: str | Path | None = None,
    out: str | Path | None = None,
    metrics: Sequence[str] = (),
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> str:
    """The history page of ``runs`` as HTML (:func:`build_history`), also written to ``out``
    (atomically) when given."""
    data = build_history(
        runs, store=store, metrics=metrics, resamples=resamples, confidence=confidence, seed=seed
    )
    page = render_history(data)
    if out is not None:
        write_text_atomic(out, page)
    return page
