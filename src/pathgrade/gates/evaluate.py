"""Evaluating gates on a variant against a baseline (pure; records in memory).

Every gate yields a :class:`GateResult` with the statistic on each side, the value compared
(``observed``), the threshold it was compared with and a one-line message. A gate whose metric
is missing from the results, or has no defined value, *fails* with a message saying so: it
never passes by default. The report passes only when every gate passes.

A ``changed_variables`` gate (:data:`~pathgrade.gates.model.CHANGED_VARIABLES`) compares the
number of controlled variables that changed between the sides (``changed``, as
:func:`pathgrade.core.provenance.changed_variables` gives them) with its threshold; without
``changed`` (a side records no provenance) it fails.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pathgrade.gates.model import (
    ABSOLUTE_RULES,
    CI_RULES,
    PROVENANCE_CHECKS,
    Gate,
    GateSet,
    percentile_of,
)
from pathgrade.stats.bootstrap import bootstrap_mean_ci
from pathgrade.stats.percentiles import quantile
from pathgrade.stats.records import MissingMetricError, case_values, run_values

__all__ = ["GateReport", "GateResult", "evaluate_gates"]

Records = Sequence[Mapping[str, Any]]
#: The controlled variables that changed: ``{name: (baseline value, variant value)}``.
Changed = Mapping[str, tuple[str | None, str | None]]


def _json(value: float | None) -> float | str | None:
    if value is None or math.isnan(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


@dataclass(frozen=True)
class GateResult:
    """The outcome of one gate."""

    gate: Gate
    passed: bool
    message: str
    baseline: float | None = None
    variant: float | None = None
    observed: float | None = None
    threshold: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``inf`` as the string ``"inf"``, ``nan`` as ``null``)."""
        return {
            "name": self.gate.name,
            "metric": self.gate.metric,
            "rule": self.gate.rule,
            "statistic": self.gate.statistic,
            "hard": self.gate.hard,
            "baseline": _json(self.baseline),
            "variant": _json(self.variant),
            "value": _json(self.observed),
            "threshold": _json(self.threshold),
            "passed": self.passed,
            "message": self.message,
        }


@dataclass(frozen=True)
class GateReport:
    """All gate outcomes; ``passed`` only when every gate passed."""

    results: tuple[GateResult, ...]
    paired_cases: int
    unpaired_cases: int

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def hard_failures(self) -> tuple[GateResult, ...]:
        return tuple(r for r in self.results if r.gate.hard and not r.passed)

    def to_dict(self) -> dict[str, Any]:
        """The ``pathgrade gate --json`` document."""
        return {
            "passed": self.passed,
            "failed": sum(1 for r in self.results if not r.passed),
            "hard_failed": len(self.hard_failures),
            "paired_cases": self.paired_cases,
            "unpaired_cases": self.unpaired_cases,
            "gates": [r.to_dict() for r in self.results],
        }


class _NoDataError(Exception):
    """A side has the metric but no defined value to reduce."""


def _statistic(records: Records, gate: Gate, side: str) -> tuple[float, int]:
    """The gate's statistic over ``records`` and the number of undefined values."""
    name = gate.statistic
    if name in ("mean", "rate", "median"):
        per_case = case_values(records, gate.metric, side)
        means = np.array(list(per_case.means.values()), dtype=np.float64)
        undefined = int(np.count_nonzero(np.isnan(means)))
        means = means[~np.isnan(means)]
        if means.size == 0:
            raise _NoDataError
        value = float(np.median(means)) if name == "median" else float(means.mean())
        return value, undefined
    runs = run_values(records, gate.metric, side).values
    undefined = int(np.count_nonzero(np.isnan(runs)))
    runs = runs[~np.isnan(runs)]
    if runs.size == 0:
        raise _NoDataError
    percentile = percentile_of(name)
    if percentile is not None:
        return quantile(runs, percentile / 100.0), undefined  # pathgrade's one definition
    if name == "sum":
        return float(runs.sum()), undefined
    return float(runs.max() if name == "max" else runs.min()), undefined


def _relative(variant: float, baseline: float) -> float:
    if baseline == 0.0:
        return 0.0 if variant == 0.0 else math.copysign(math.inf, variant)
    return (variant - baseline) / abs(baseline)


def _compare(gate: Gate, base: float | None, var: float) -> tuple[bool, float, float]:
    """(passed, observed value, threshold) of a non-interval rule."""
    rule, t = gate.rule, gate.threshold if gate.threshold is not None else 0.0
    if rule == "max":
        return var <= t, var, t
    if rule == "min":
        return var >= t, var, t
    if rule == "equal":
        return var == t, var, t
    b = base if base is not None else math.nan
    if rule == "not_below_baseline":
        return var >= b - gate.tolerance, var, b - gate.tolerance
    if rule == "not_above_baseline":
        return var <= b + gate.tolerance, var, b + gate.tolerance
    if rule in ("min_relative_change", "max_relative_change"):
        change = _relative(var, b)
        return (change >= t if rule.startswith("min") else change <= t), change, t
    change = var - b
    return (change >= t if rule.startswith("min") else change <= t), change, t


_OPERATORS = {
    "not_below_baseline": ">=",
    "not_above_baseline": "<=",
    "min_relative_change": ">=",
    "max_relative_change": "<=",
    "min_absolute_change": ">=",
    "max_absolute_change": "<=",
    "max": "<=",
    "min": ">=",
    "equal": "==",
}


def _describe(gate: Gate) -> str:
    if gate.rule.endswith("relative_change"):
        return f"relative change of {gate.statistic} {gate.metric}"
    if gate.rule.endswith("absolute_change"):
        return f"change of {gate.statistic} {gate.metric}"
    if gate.rule.endswith("baseline"):
        return f"{gate.statistic} {gate.metric} (baseline-relative limit)"
    return f"{gate.statistic} {gate.metric}"


def _interval(gate: Gate, base: Records, var: Records, gates: GateSet) -> GateResult:
    b = case_values(base, gate.metric, "baseline").means
    v = case_values(var, gate.metric, "variant").means
    pairs = [(b[c], v[c]) for c in b if c in v and not (math.isnan(b[c]) or math.isnan(v[c]))]
    if not pairs:
        return GateResult(gate, False, f"no paired case with a defined {gate.metric}")
    diffs = np.array([y - x for x, y in pairs])
    settings = gates.settings
    ci = bootstrap_mean_ci(
        diffs,
        resamples=settings.resamples,
        confidence=gate.confidence,
        method=settings.ci_method,
        rng=settings.seed,
    )
    t = gate.threshold if gate.threshold is not None else 0.0
    base_mean = float(np.mean([x for x, _ in pairs]))
    var_mean = float(np.mean([y for _, y in pairs]))
    level = f"{gate.confidence:.0%} CI"
    if gate.rule == "ci_lower_above":
        ok, observed, text = ci.low > t, ci.low, f"{level} lower bound {ci.low:.4g} > {t:g}"
    else:
        ok, observed, text = ci.high < t, ci.high, f"{level} upper bound {ci.high:.4g} < {t:g}"
    message = f"{text}: {'yes' if ok else 'no'} (diff {ci.estimate:.4g}, {len(pairs)} pairs)"
    return GateResult(gate, ok, message, base_mean, var_mean, observed, t)


def _provenance_gate(gate: Gate, changed: Changed | None) -> GateResult:
    """A ``changed_variables`` gate: the count of changed variables against the threshold."""
    if changed is None:
        return GateResult(
            gate,
            False,
            f"FAILED: {gate.metric} unknown: a side records no provenance (re-score it with"
            " this pathgrade)",
        )
    count = float(len(changed))
    passed, observed, threshold = _compare(gate, None, count)
    names = f": {', '.join(changed)}" if changed else ""
    message = f"{gate.metric} {observed:g} {_OPERATORS[gate.rule]} {threshold:g}{names}"
    return GateResult(gate, passed, message, None, count, observed, threshold)


def _evaluate(
    gate: Gate, base: Records, var: Records, paired_var: Records, gates: GateSet
) -> GateResult:
    try:
        if gate.rule in CI_RULES:
            return _interval(gate, base, paired_var, gates)
        if gate.rule in ABSOLUTE_RULES:
            var_value, undefined = _statistic(var, gate, "variant")
            base_value = None
        else:
            base_value, _ = _statistic(base, gate, "baseline")
            var_value, undefined = _statistic(paired_var, gate, "variant")
    except MissingMetricError as error:
        return GateResult(gate, False, f"FAILED: {error}; a gate on a missing metric cannot pass")
    except _NoDataError:
        return GateResult(gate, False, f"FAILED: no defined value of {gate.metric}")
    passed, observed, threshold = _compare(gate, base_value, var_value)
    message = f"{_describe(gate)} {observed:.4g} {_OPERATORS[gate.rule]} {threshold:.4g}"
    if gate.hard and undefined:
        passed = False
        message += f"; {undefined} undefined value(s) in a hard gate"
    return GateResult(gate, passed, message, base_value, var_value, observed, threshold)


def evaluate_gates(
    gates: GateSet, baseline: Records, variant: Records, *, changed: Changed | None = None
) -> GateReport:
    """Evaluate every gate; baseline-relative rules use the cases present on both sides.
    ``changed``: the controlled variables that changed between the sides (``None``: not
    known), for ``changed_variables`` gates."""
    base_ids = {str(r.get("case_id")) for r in baseline}
    var_ids = {str(r.get("case_id")) for r in variant}
    paired = base_ids & var_ids
    paired_base = [r for r in baseline if str(r.get("case_id")) in paired]
    paired_var = [r for r in variant if str(r.get("case_id")) in paired]
    results = tuple(
        _provenance_gate(g, changed)
        if g.metric in PROVENANCE_CHECKS
        else _evaluate(g, paired_base, variant, paired_var, gates)
        for g in gates.gates
    )
    return GateReport(results, len(paired), len(base_ids ^ var_ids))
