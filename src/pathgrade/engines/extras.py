"""Dataset-level extras of one partition, in a form the coordinator can merge exactly.

- **Retrieval micro averages.** The in-memory summary pools, over the runs with a defined
  value (``mask``: the same runs as the macro mean, whatever the ``no_gold`` policy):
  precision@K = sum hits@K / (K * |mask|) (without K: / sum N, the retrieved count),
  recall@K = sum hits@K / sum |G|, hit_rate@K = |{hits@K > 0}| / |mask|;
  count metrics are sums; the rest have no pooled form. The numerators are integers, so a
  partition's numerator is recovered exactly from its micro value ``m`` and denominator
  ``D`` as ``round(m * D)``; ``D`` is computed here from the per-run values and the cases'
  gold (``|G|`` = distinct gold ids with gain >= the metric's ``rel``).
- **Abstention inputs** per run, as :func:`pathgrade.layers.answer_columns` builds them:
  answered, the case's ``answerable``, judged correct (``goal_success``, else
  :func:`~pathgrade.metrics.answer.layer.answer_correct`; none when abstained) and
  confidence. The coordinator rebuilds the report over all runs (:func:`abstention_summary`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pathgrade.core.config import ScoringConfig
from pathgrade.core.results import ScoreResult
from pathgrade.core.types import Case, Run
from pathgrade.metrics.answer.abstention import Outcome, abstention_report
from pathgrade.metrics.answer.layer import answer_correct
from pathgrade.metrics.registry import info
from pathgrade.metrics.retrieval.evaluate import resolve_all
from pathgrade.stats.partial import FALSE, TRUE, UNDEFINED, FloatArray, Int8Array

_NONE = frozenset({"dcg", "ndcg", "mrr", "ap", "map"})
_SUMS = frozenset({"num_rel", "num_rel_ret", "num_ret"})


def _gold_count(gold: Any, threshold: float) -> int:
    """``|G|``: distinct gold ids with gain >= ``threshold`` (a list of ids: gain 1 each)."""
    if isinstance(gold, Mapping):
        return sum(1 for gain in gold.values() if float(gain) >= threshold)
    return len(dict.fromkeys(str(g) for g in gold)) if threshold <= 1.0 else 0


def retrieval_parts(
    result: ScoreResult, runs: Sequence[Run], cases: Mapping[str, Case], config: ScoringConfig
) -> tuple[int, int, dict[str, tuple[str, float, float]]] | None:
    """``(runs with gold, runs without retrieved, {metric: (kind, numerator, denominator)})``
    for :meth:`~pathgrade.stats.partial.SummaryPartial.add_retrieval`, or None when the
    retrieval layer did not run."""
    report = result.summary_extra.get("retrieval")
    if not report:
        return None
    micro: dict[str, float | None] = report["micro"]
    specs = {str(spec): spec for spec in resolve_all(config.retrieval.metrics)}
    counts: dict[float, Any] = {}
    parts: dict[str, tuple[str, float, float]] = {}
    for name, value in micro.items():
        spec = specs[name]
        row = info(spec.name)
        if row.name in _NONE:
            parts[name] = ("none", 0.0, 0.0)
            continue
        if row.name in _SUMS:
            parts[name] = ("sum", float(value or 0.0), 0.0)
            continue
        threshold = float(row.value(spec, "rel"))
        if threshold not in counts:
            per_case: dict[str, int] = {}
            for case_id, case in cases.items():
                gold = case.gold_evidence
                per_case[case_id] = 0 if gold is None else _gold_count(gold, threshold)
            counts[threshold] = np.fromiter(
                (per_case[r.case_id] for r in runs), np.int64, len(runs)
            )
        gold_sizes = counts[threshold]
        mask = ~np.isnan(result.metrics[name])
        if row.name == "recall":
            denominator = float(gold_sizes[mask].sum())
        elif row.name == "hit_rate":
            denominator = float(mask.sum())
        elif spec.k is not None:
            denominator = float(spec.k * mask.sum())
        else:  # precision over the whole list: the retrieved count after dropping repeats
            n_ret = [
                len(dict.fromkeys(_ids(runs[i].retrieved))) for i in np.flatnonzero(mask).tolist()
            ]
            denominator = float(sum(n_ret))
        numerator = float(round(value * denominator)) if value is not None else 0.0
        parts[name] = ("ratio", numerator, denominator)
    return int(report["runs_with_gold"]), int(report["runs_without_retrieved"]), parts


def _ids(items: Any) -> list[str]:
    return [item if isinstance(item, str) else item.id for item in items or ()]


def abstention_inputs(
    result: ScoreResult, runs: Sequence[Run], cases: Mapping[str, Case]
) -> tuple[Int8Array, Int8Array, Int8Array, FloatArray]:
    """Per run: answered, answerable, judged correct (-1 none / 0 / 1), confidence (nan)."""
    n = len(runs)
    answered = np.fromiter((not r.abstained for r in runs), np.int8, n)
    answerable = np.fromiter((cases[r.case_id].answerable for r in runs), np.int8, n)
    goal = result.metrics["goal_success"]
    correct = np.where(goal != 0, TRUE, FALSE).astype(np.int8)
    for i in np.flatnonzero(np.isnan(goal)).tolist():
        verdict = answer_correct(cases[runs[i].case_id], runs[i])
        correct[i] = UNDEFINED if verdict is None else int(verdict)
    correct[answered == 0] = UNDEFINED
    confidence = np.fromiter(
        (math.nan if r.confidence is None else r.confidence for r in runs), np.float64, n
    )
    return answered, answerable, correct, confidence


def abstention_summary(
    answered: Int8Array, answerable: Int8Array, correct: Int8Array, confidence: FloatArray
) -> dict[str, Any]:
    """The in-memory summary's ``abstention`` entry, over all runs in input order."""
    outcomes = [
        Outcome(
            answered=bool(a),
            answerable=bool(b),
            correct=None if c == UNDEFINED else bool(c),
            confidence=None if math.isnan(p) else p,
        )
        for a, b, c, p in zip(
            answered.tolist(),
            answerable.tolist(),
            correct.tolist(),
            confidence.tolist(),
            strict=True,
        )
    ]
    report = abstention_report(outcomes)
    return {
        **report.metrics(),
        "curve": [
            {"threshold": p.threshold, "coverage": p.coverage, "risk": p.risk, "kept": p.kept}
            for p in report.curve or ()
        ],
    }
