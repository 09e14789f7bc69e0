"""The summary of a judge run: what was judged, what failed, the metrics the labels give.

Metric means come from the answer layer (:func:`pathgrade.metrics.answer.layer.answer_layer`)
on the judged runs; an undefined or not-computed value is left out of the mean and counted.
The judged trajectory verdict is summarised in its own section, apart from every deterministic
path metric. Nothing here holds the API key: the config enters through ``public()``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pathgrade.core.judged import GOAL, judgement_failed
from pathgrade.core.types import Case, Run
from pathgrade.judge.bias import length_correlation
from pathgrade.judge.client import JudgeClient
from pathgrade.judge.fill import FillResult
from pathgrade.metrics.answer.layer import answer_layer
from pathgrade.metrics.answer.rubric_columns import (
    DEFAULT_MAX_DIMENSIONS,
    OTHER,
    PREFIX,
    fold_rubric,
    kept_dimensions,
)

JUDGED_METRICS = ("faithfulness", "citation_precision", "citation_recall")
OFFLINE_NOTICE = "OFFLINE: recorded verdicts were replayed; no judge call was made"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def metric_means(
    cases_by_id: Mapping[str, Case],
    runs: Sequence[Run],
    *,
    max_rubric_dimensions: int = DEFAULT_MAX_DIMENSIONS,
) -> dict[str, Any]:
    """Mean of each judged metric over the runs where it is defined, with the counts.

    At most ``max_rubric_dimensions`` rubric dimensions are listed (the first seen, as in
    scoring: :mod:`pathgrade.metrics.answer.rubric_columns`); the scores of the others are
    counted in ``rubric_other``.

    ``undefined``: the label was asked for and is missing (for ``goal_success``: its judgement
    failed); ``not_computed``: the metric does not apply (for ``goal_success``: no success
    recorded and none asked for, e.g. decided by the state match at scoring).
    """
    collected: dict[str, list[float]] = {}
    undefined: dict[str, int] = {}
    not_computed: dict[str, int] = {}
    kept, dropped = _rubric_columns(runs, max_rubric_dimensions)
    for run in runs:
        result = answer_layer(cases_by_id[run.case_id], run)
        metrics = fold_rubric(result.metrics, kept, count_other=True) if dropped else result.metrics
        for name, value in metrics.items():
            if name in JUDGED_METRICS or name.startswith(PREFIX) or name == OTHER:
                if value is None:
                    undefined[name] = undefined.get(name, 0) + 1
                else:
                    collected.setdefault(name, []).append(float(value))
        for name in result.not_computed:
            if name in JUDGED_METRICS:
                not_computed[name] = not_computed.get(name, 0) + 1
    successes = [float(run.success) for run in runs if run.success is not None]
    collected["goal_success"] = successes
    failed = sum(run.success is None and judgement_failed(run, GOAL) for run in runs)
    undefined["goal_success"] = failed
    not_computed["goal_success"] = len(runs) - len(successes) - failed
    names = sorted(set(collected) | set(undefined) | set(not_computed))
    return {
        name: {
            "mean": _mean(collected.get(name, [])),
            "n": len(collected.get(name, [])),
            "undefined": undefined.get(name, 0),
            "not_computed": not_computed.get(name, 0),
        }
        for name in names
    }


def _rubric_columns(runs: Sequence[Run], max_dimensions: int) -> tuple[frozenset[str], bool]:
    return kept_dimensions((run.rubric for run in runs), max_dimensions=max_dimensions)


def _trajectory(runs: Sequence[Run]) -> dict[str, Any]:
    verdicts = [
        run.metadata["judge"]["trajectory"]["accurate"]
        for run in runs
        if isinstance(run.metadata.get("judge"), dict) and "trajectory" in run.metadata["judge"]
    ]
    return {"accurate_rate": _mean([float(v) for v in verdicts]), "n": len(verdicts)}


def _verbosity(runs: Sequence[Run]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    kept, _ = _rubric_columns(runs, DEFAULT_MAX_DIMENSIONS)
    dimensions = sorted(kept)
    for dimension in dimensions:
        pairs = [
            (float(score), float(len(run.answer or "")))
            for run in runs
            if isinstance(score := (run.rubric or {}).get(dimension), int | float)
        ]
        corr = length_correlation([s for s, _ in pairs], [n for _, n in pairs])
        out[f"rubric.{dimension}"] = {
            "n": corr.n,
            "spearman": corr.spearman,
            "pearson": corr.pearson,
        }
    return out


def summarize(
    cases_by_id: Mapping[str, Case], result: FillResult, client: JudgeClient
) -> dict[str, Any]:
    """One JSON-ready document describing a judge run (no API key anywhere)."""
    config = client.config.public()
    errors = [{"item": o.item, "prompt": o.prompt, "judge_error": o.error} for o in result.errors]
    sources: dict[str, int] = {}
    for outcome in result.outcomes:
        if outcome.source is not None:
            sources[outcome.source] = sources.get(outcome.source, 0) + 1
    document: dict[str, Any] = {
        "mode": "offline" if result.offline else "live",
        "judge": {
            k: config[k]
            for k in ("base_url", "model", "model_version", "temperature", "seed", "max_tokens")
        },
        "runs": len(result.runs),
        "items": len(result.outcomes),
        "judged": len(result.outcomes) - len(errors),
        "judge_errors": len(errors),
        "errors": errors,
        "skipped": [{"item": s.item, "reason": s.reason} for s in result.skipped],
        "sources": sources,
        "prompts": sorted({o.prompt for o in result.outcomes}),
        "calls": client.stats.to_dict(),
        "cache": client.cache.stats() if client.cache is not None else None,
        "metrics": metric_means(cases_by_id, result.runs),
        "judged_trajectory": _trajectory(result.runs),
        "verbosity": _verbosity(result.runs),
    }
    if result.offline:
        document["notice"] = OFFLINE_NOTICE
    return document
