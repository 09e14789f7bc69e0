"""Orchestration for the HTML report: stored runs + statistics -> what the page shows.

Everything computed for the report is computed here, with the statistics of
:mod:`pathgrade.stats` (bootstrap intervals, paired comparison, McNemar, slices, ablation)
and :mod:`pathgrade.gates`; :mod:`pathgrade.report.html` only formats the result.

The case is the unit: a summary row's mean is the mean of per-case means over defined trials
and its interval the cluster bootstrap over cases
(:func:`pathgrade.stats.bootstrap.case_mean_interval`), ``n`` the number of cases (the runs
are counted separately), as in ``compare`` and ``gate``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pathgrade.core.comparability import Comparability, check_records
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case
from pathgrade.gates import GateSet, evaluate_gates
from pathgrade.metrics import catalogue
from pathgrade.report.page_data import (
    CaseChange,
    McNemarTable,
    ReportData,
    SliceTable,
    SummaryRow,
)
from pathgrade.report.semantic_line import uncertain_line
from pathgrade.report.trials_chart import trial_rows
from pathgrade.reporting.cases import case_rows, defect_rows
from pathgrade.reporting.latency import latency_data
from pathgrade.reporting.loading import LoadedRun
from pathgrade.reporting.pairs import case_pairs
from pathgrade.stats.ablation import ARMS, CaseSetMismatchError, ablation_records
from pathgrade.stats.bootstrap import case_mean_interval
from pathgrade.stats.compare import Comparison, compare_records, metric_direction
from pathgrade.stats.passk import passk_summary
from pathgrade.stats.records import MissingMetricError, case_values, metric_names, run_values
from pathgrade.stats.slice_keys import Membership, slice_keys
from pathgrade.stats.slices import (
    MIN_SLICE_CASES,
    SliceDiff,
    SliceSummary,
    paired_slices,
    slice_summaries,
)

#: Metrics shown as table columns first, when present.
HEADLINE = ("path_score", "composite", "goal_success", "tool_accuracy", "argument_accuracy")
#: Metrics whose per-case change is listed (the first present on both sides).
CHANGE_METRICS = ("path_score", "composite", "goal_success")
SUCCESS = "goal_success"


@dataclass(frozen=True)
class SliceOptions:
    """``--by FIELD``: slice tables of ``metrics`` (default: the first of
    :data:`CHANGE_METRICS` present), keys from ``cases`` (else from the records, which carry
    only ``group``); slices under ``min_n`` cases are shown untested."""

    field: str
    cases: Mapping[str, Case] | None = None
    metrics: tuple[str, ...] = ()
    min_n: int = MIN_SLICE_CASES


def _summary_rows(
    records: Sequence[Mapping[str, Any]], resamples: int, confidence: float, seed: int
) -> list[SummaryRow]:
    """Per metric: mean of per-case means, cluster-bootstrap interval, cases and runs used."""
    rows: list[SummaryRow] = []
    for name in metric_names(records):
        runs = run_values(records, name)
        defined = int(np.count_nonzero(~np.isnan(runs.values)))
        undefined = int(runs.values.size) - defined
        direction = metric_direction(name)
        if defined == 0:
            rows.append(SummaryRow(name, None, None, None, 0, 0, undefined, direction))
            continue
        ci = case_mean_interval(
            runs.values, runs.case_ids, resamples=resamples, confidence=confidence, rng=seed
        )
        rows.append(
            SummaryRow(name, ci.mean, ci.low, ci.high, ci.n_cases, defined, undefined, direction)
        )
    return rows


def _slice_text(key: Hashable) -> str:
    return "(none)" if key is None else str(key)


def _slice_tables(
    options: SliceOptions,
    variant: Sequence[Mapping[str, Any]],
    baseline: Sequence[Mapping[str, Any]] | None,
    *,
    resamples: int,
    confidence: float,
    seed: int,
) -> list[SliceTable]:
    both = [*(baseline or ()), *variant]
    ids = [str(r.get("case_id")) for r in both]
    # A case is in each slice of its keys (tags): runs are expanded to (key, case) entries.
    members = Membership(slice_keys(options.field, ids, records=both, cases=options.cases))
    slice_of = members.slice_of
    names = set(metric_names(variant)) & set(metric_names(baseline or variant))
    found_names = [m for m in (*CHANGE_METRICS, *metric_names(variant)) if m in names]
    given = dict.fromkeys(catalogue.canonical(m) for m in options.metrics)
    metrics = tuple(given) or tuple(found_names[:1])
    tables = []
    for metric in metrics:
        found: Sequence[SliceSummary | SliceDiff]
        try:
            var = members.expand(run_values(variant, metric, "variant"))
            if baseline is None:
                found = slice_summaries(
                    var[0], var[1], slice_of, min_n=options.min_n,
                    resamples=resamples, confidence=confidence, seed=seed,
                )  # fmt: skip
            else:
                base = members.expand(run_values(baseline, metric, "baseline"))
                found = paired_slices(
                    base[0], base[1], var[0], var[1], slice_of,
                    min_n=options.min_n, resamples=resamples, confidence=confidence, seed=seed,
                )  # fmt: skip
        except MissingMetricError as error:
            side = f" ({error.side})" if error.side else ""
            raise InputError(
                f"slice metric is missing from the results{side}", field=metric
            ) from None
        except ValueError as error:
            raise InputError(str(error), field=metric) from None
        rows = [{**row.to_dict(), "slice": _slice_text(row.key)} for row in found]
        tables.append(SliceTable(metric, options.field, baseline is not None, options.min_n, rows))
    return tables


def _ablation(
    baseline: LoadedRun,
    arms: Mapping[str, LoadedRun],
    *,
    resamples: int,
    confidence: float,
    seed: int,
) -> dict[str, Any]:
    """The ablation document of ``pathgrade ablation --json`` for R0 = ``baseline``."""
    runs = {"baseline": baseline, **arms}
    try:
        result = ablation_records(
            *(runs[arm].records for arm in ARMS),
            resamples=resamples,
            confidence=confidence,
            seed=seed,
        )
    except CaseSetMismatchError as error:
        lacks = "; ".join(
            f"{arm} ({runs[arm].name}) lacks {', '.join(ids[:10])}"
            + (f" ... ({len(ids) - 10} more)" if len(ids) > 10 else "")
            for arm, ids in error.missing.items()
        )
        raise InputError(f"the four ablation runs must cover the same cases: {lacks}") from None
    document = result.to_dict()
    document["arms"] = {arm: runs[arm].name for arm in ARMS}
    return document


def _trials(records: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]) -> dict[str, Any]:
    """pass@k, pass^k and the trial counts: the stored summary's, else computed from the
    records (:func:`pathgrade.stats.passk.passk_summary`) when some case has several trials
    and no ``(case_id, trial)`` repeats; empty otherwise."""
    if summary.get("pass@k"):
        return {k: summary.get(k) for k in ("pass@k", "pass^k", "trials")}
    trials = [int(r.get("trial") or 0) for r in records]
    if len(set(trials)) < 2:
        return {}
    values = [r["metrics"].get(SUCCESS) for r in records]
    try:
        found = passk_summary([str(r["case_id"]) for r in records], trials, values)
    except ValueError:  # repeated (case_id, trial): several systems, not trials
        return {}
    return found if found.get("pass@k") else {}


def _mcnemar(
    base: Sequence[Mapping[str, Any]], var: Sequence[Mapping[str, Any]], c: Comparison
) -> McNemarTable | None:
    metric = c.metrics.get(SUCCESS)
    if metric is None or metric.discordant is None:
        return None
    b, v = case_values(base, SUCCESS).means, case_values(var, SUCCESS).means
    pairs = [(b[k], v[k]) for k in b if k in v and not (math.isnan(b[k]) or math.isnan(v[k]))]
    both = sum(1 for x, y in pairs if x == 1 and y == 1)
    neither = sum(1 for x, y in pairs if x == 0 and y == 0)
    wins, losses = metric.discordant
    return McNemarTable(SUCCESS, both, wins, losses, neither, metric.p_value)


def _changes(
    base: Sequence[Mapping[str, Any]], var: Sequence[Mapping[str, Any]], limit: int
) -> tuple[str, list[CaseChange], list[CaseChange]] | None:
    names = set(metric_names(base)) & set(metric_names(var))
    metric = next((m for m in CHANGE_METRICS if m in names), None)
    if metric is None:
        return None
    b, v = case_values(base, metric).means, case_values(var, metric).means
    first_row: dict[str, int] = {}
    for index, record in enumerate(var):
        first_row.setdefault(str(record["case_id"]), index)
    changes = [
        CaseChange(k, b[k], v[k], v[k] - b[k], first_row[k])
        for k in v
        if k in b and not (math.isnan(b[k]) or math.isnan(v[k])) and v[k] != b[k]
    ]
    higher = metric_direction(metric) != "lower"  # CHANGE_METRICS are all higher-is-better
    better = sorted((c for c in changes if (c.diff > 0) == higher), key=lambda c: -abs(c.diff))
    worse = sorted((c for c in changes if (c.diff > 0) != higher), key=lambda c: -abs(c.diff))
    return metric, better[:limit], worse[:limit]


def _provenance_checks(
    variant: LoadedRun,
    baseline: LoadedRun | None,
    ablation: Mapping[str, LoadedRun] | None,
    allow: bool,
) -> list[Comparability]:
    """The provenance check of the variant, then of each ablation arm, against the
    baseline (none without a baseline)."""
    if baseline is None:
        return []
    others = [variant, *(ablation or {}).values()]
    return [
        check_records(baseline.records, run.records, names=(baseline.name, run.name), allow=allow)
        for run in others
    ]


def _extras(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The summary's lines under the summary table: what was not computed, and the
    uncertain argument comparisons with the judge stage's cost."""
    out: dict[str, Any] = {k: summary[k] for k in ("not_computed",) if summary.get(k)}
    semantic = summary.get("semantic")
    line = uncertain_line(semantic) if isinstance(semantic, Mapping) else None
    if line:
        out["argument matching"] = line
    return out


def build_report(
    variant: LoadedRun,
    baseline: LoadedRun | None = None,
    gates: GateSet | None = None,
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    change_limit: int = 50,
    slices: SliceOptions | None = None,
    ablation: Mapping[str, LoadedRun] | None = None,
    allow_config_change: bool = False,
) -> ReportData:
    """Compute everything the report shows (intervals, comparison, gates, slices, ablation)
    for ``variant``. ``ablation`` maps ``a``, ``b`` and ``ab`` to RA, RB and RAB; R0 is
    ``baseline``.

    Before any statistic, every run compared with ``baseline`` (the variant, the ablation's
    arms) is checked for provenance (:func:`pathgrade.core.comparability.check_records`):
    runs scored differently are an :class:`InputError` unless ``allow_config_change``; then
    the page opens with a warning banner (``ReportData.warnings``)."""
    if ablation is not None:
        if baseline is None:
            raise InputError("an ablation needs its baseline R0: pass --baseline", field="ablation")
        absent = [arm for arm in ARMS[1:] if arm not in ablation]
        if absent:
            raise InputError(f"missing arm(s) {', '.join(absent)}", field="ablation")
    checks = _provenance_checks(variant, baseline, ablation, allow_config_change)
    summary = variant.summary
    trials = _trials(variant.records, summary)
    data = ReportData(
        title=f"pathgrade report: {variant.name}",
        run_name=variant.name,
        manifest=variant.manifest,
        summary=_summary_rows(variant.records, resamples, confidence, seed),
        confidence=confidence,
        extras=_extras(summary),
        abstention=summary.get("abstention"),
        retrieval=summary.get("retrieval"),
        columns=[m for m in HEADLINE if any(m in r["metrics"] for r in variant.records[:1000])],
        cases=case_rows(variant.records, variant.traces, summary),
        n_cases=len({str(r.get("case_id")) for r in variant.records}),
        warnings=[c.warning for c in checks if c.warning],
        notes=list(dict.fromkeys(c.note for c in checks if c.note)),
        defects=defect_rows(variant.records),
        trials=trial_rows(trials.get("pass@k"), trials.get("pass^k")),
        trial_info=trials.get("trials"),
        latency=latency_data(variant.records),
        conversations=summary.get("conversations"),
    )
    if slices is not None:
        data.slices = _slice_tables(
            slices,
            variant.records,
            baseline.records if baseline is not None else None,
            resamples=resamples,
            confidence=confidence,
            seed=seed,
        )
    if ablation is not None and baseline is not None:
        data.ablation = _ablation(
            baseline, ablation, resamples=resamples, confidence=confidence, seed=seed
        )
    if gates is not None:
        if baseline is None and any(g.needs_baseline for g in gates.gates):
            raise InputError("these gates compare with a baseline: pass --baseline", field="gates")
        base_records = baseline.records if baseline is not None else variant.records
        variables = checks[0].changed if checks and checks[0].recorded else None
        found = evaluate_gates(gates, base_records, variant.records, changed=variables)
        data.gates = found.to_dict()
    if baseline is None:
        return data
    try:
        comparison = compare_records(
            baseline.records,
            variant.records,
            resamples=resamples,
            confidence=confidence,
            seed=seed,
        )
    except MissingMetricError as error:
        raise InputError("metric is missing from the results", field=error.name) from None
    except ValueError as error:
        raise InputError(str(error), file=f"{baseline.name}, {variant.name}") from None
    data.baseline_name = baseline.name
    data.baseline_manifest = baseline.manifest
    data.comparison = comparison.to_dict()
    data.mcnemar = _mcnemar(baseline.records, variant.records, comparison)
    changed = _changes(baseline.records, variant.records, change_limit)
    if changed is not None:
        data.change_metric, data.better, data.worse = changed
        rows = [c.row for c in (*data.better, *data.worse)]
        data.pairs = case_pairs(baseline, variant, rows, data.change_metric)
    return data
