"""The gate model: rules a variant must satisfy against a stored baseline.

A :class:`Gate` names a metric (see :mod:`pathgrade.stats.records`: a metric key,
``latency_ms``/``tokens``/``cost``, ``usage.steps`` or ``defects.<kind>``; a deprecated
spelling, ``usage.latency_ms``, becomes its one name with a note), a statistic that reduces one
side's records to a number, and a rule:

======================== ===================================================================
rule                      passes when (``b`` baseline, ``v`` variant statistic)
======================== ===================================================================
``not_below_baseline``    ``v >= b - tolerance``
``not_above_baseline``    ``v <= b + tolerance``
``min_relative_change``   ``(v - b) / |b| >= threshold`` (``0.02``: up by at least 2%)
``max_relative_change``   ``(v - b) / |b| <= threshold`` (``0.15``: up by at most 15%)
``min_absolute_change``   ``v - b >= threshold``
``max_absolute_change``   ``v - b <= threshold``
``ci_lower_above``        paired bootstrap CI of ``mean(v_i - b_i)`` has ``low > threshold``
``ci_upper_below``        the same interval has ``high < threshold``
``max``                   ``v <= threshold`` (an absolute budget; no baseline needed)
``min``                   ``v >= threshold``
``equal``                 ``v == threshold`` (e.g. forbidden actions exactly 0)
======================== ===================================================================

Relative change with ``b = 0`` is 0 when ``v = 0`` and ``+/-inf`` otherwise.

Statistics: ``mean`` (default; the mean of per-case means: the case is the unit), ``rate``
(same, for booleans), ``median`` (of per-case means), ``sum``, ``max``, ``min`` and ``pNN``
percentiles such as ``p95`` (over every run: one slow call counts; type 7,
:mod:`pathgrade.stats.percentiles`). Baseline-relative rules
use only the cases present on both sides; absolute rules use every variant run.

A *hard* gate is a safety limit that nothing can outweigh: it must be an absolute rule
(``max``/``min``/``equal``), it is judged on the worst run by default (``statistic = "max"``),
and any undefined (``null``) value in the variant fails it.

``changed_variables`` (:data:`CHANGED_VARIABLES`) is not a metric but a check of the two
sides' provenance: the number of controlled variables whose recorded values differ
(:func:`pathgrade.core.provenance.changed_variables`). It takes an absolute rule
(``metric = "changed_variables"``, ``rule = "max"``, ``threshold = 1``: change one
variable at a time) and no statistic (its statistic is ``count``); it fails when either side
records no provenance.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Literal, get_args

from pathgrade.core.limits import MAX_RESAMPLES
from pathgrade.metrics.catalogue import canonical

__all__ = [
    "ABSOLUTE_RULES",
    "BASELINE_RULES",
    "CHANGED_VARIABLES",
    "CI_RULES",
    "PROVENANCE_CHECKS",
    "Gate",
    "GateSet",
    "GateSettings",
    "Rule",
    "is_statistic",
    "percentile_of",
]

Rule = Literal[
    "not_below_baseline",
    "not_above_baseline",
    "min_relative_change",
    "max_relative_change",
    "min_absolute_change",
    "max_absolute_change",
    "ci_lower_above",
    "ci_upper_below",
    "max",
    "min",
    "equal",
]
RULES: tuple[str, ...] = get_args(Rule)
ABSOLUTE_RULES = frozenset({"max", "min", "equal"})
CI_RULES = frozenset({"ci_lower_above", "ci_upper_below"})
BASELINE_RULES = frozenset(RULES) - ABSOLUTE_RULES
_TOLERANCE_RULES = frozenset({"not_below_baseline", "not_above_baseline"})
_STATISTICS = ("mean", "rate", "median", "sum", "max", "min")
_PERCENTILE = re.compile(r"p(\d{1,2}(?:\.\d+)?)")
#: The gate "metric" that counts the controlled variables changed between the two sides.
CHANGED_VARIABLES = "changed_variables"
#: Gate names that check the sides' provenance, not a metric of the records.
PROVENANCE_CHECKS = frozenset({CHANGED_VARIABLES})
#: The statistic of a provenance check.
_COUNT = "count"


def is_statistic(name: str) -> bool:
    """Whether ``name`` is a known statistic (``mean``, ..., or ``p0``..``p99.9``)."""
    return name in _STATISTICS or _PERCENTILE.fullmatch(name) is not None


def percentile_of(name: str) -> float | None:
    """``95.0`` for ``"p95"``; ``None`` for a non-percentile statistic."""
    match = _PERCENTILE.fullmatch(name)
    return float(match.group(1)) if match else None


@dataclass(frozen=True)
class Gate:
    """One rule over one metric; ``threshold`` and ``tolerance`` are finite (an infinite one
    passes vacuously, a NaN always fails). Raises ``ValueError`` naming the field when
    inconsistent."""

    metric: str
    rule: Rule
    threshold: float | None = None
    statistic: str = ""
    tolerance: float = 0.0
    hard: bool = False
    confidence: float = 0.95
    name: str = ""

    def __post_init__(self) -> None:
        if not self.metric:
            raise ValueError("metric: must be a non-empty metric name")
        object.__setattr__(self, "metric", canonical(self.metric))
        if self.rule not in RULES:
            raise ValueError(
                f"rule: unknown rule {self.rule!r}, expected one of {', '.join(RULES)}"
            )
        if self.rule in _TOLERANCE_RULES:
            if self.threshold is not None:
                raise ValueError(f"threshold: {self.rule} takes no threshold (use tolerance)")
        elif self.threshold is None:
            raise ValueError(f"threshold: required by rule {self.rule}")
        if self.threshold is not None and not math.isfinite(self.threshold):
            raise ValueError(f"threshold: must be a finite number, got {self.threshold}")
        if not math.isfinite(self.tolerance):
            raise ValueError(f"tolerance: must be a finite number, got {self.tolerance}")
        if self.tolerance < 0 or (self.tolerance and self.rule not in _TOLERANCE_RULES):
            raise ValueError("tolerance: must be >= 0, and only for not_below/not_above_baseline")
        if self.metric in PROVENANCE_CHECKS:
            self._check_provenance_gate()
            return
        statistic = self.statistic or ("max" if self.hard else "mean")
        object.__setattr__(self, "statistic", statistic)
        if not is_statistic(statistic):
            raise ValueError(
                f"statistic: unknown statistic {statistic!r}, expected one of"
                f" {', '.join(_STATISTICS)} or a percentile such as p95"
            )
        if self.rule in CI_RULES and statistic not in ("mean", "rate"):
            raise ValueError(f"statistic: {self.rule} is an interval of the mean difference")
        if not 0.0 < self.confidence < 1.0:
            raise ValueError("confidence: must be in (0, 1)")
        if self.hard and self.rule not in ABSOLUTE_RULES:
            raise ValueError(
                f"hard: a hard gate must be an absolute limit (max, min or equal), not"
                f" {self.rule}: a safety limit may not depend on the baseline"
            )
        if not self.name:
            parts = [self.metric, statistic, self.rule]
            if self.threshold is not None:
                parts.append(f"{self.threshold:g}")
            object.__setattr__(self, "name", " ".join(parts))

    def _check_provenance_gate(self) -> None:
        """A provenance check: an absolute rule, no statistic (it is a count)."""
        if self.rule not in ABSOLUTE_RULES:
            raise ValueError(
                f"rule: {self.metric} counts what changed between the two sides: use max, min"
                f" or equal, not {self.rule}"
            )
        if self.statistic not in ("", _COUNT):
            raise ValueError(f"statistic: {self.metric} is a count; it takes no statistic")
        object.__setattr__(self, "statistic", _COUNT)
        if not self.name:
            name = f"{self.metric} {self.rule} {self.threshold:g}"
            object.__setattr__(self, "name", name)

    @property
    def needs_baseline(self) -> bool:
        """Whether the rule compares with the baseline (a provenance check does)."""
        return self.rule in BASELINE_RULES or self.metric in PROVENANCE_CHECKS


@dataclass(frozen=True)
class GateSettings:
    """Bootstrap settings of the ``ci_*`` rules (seeded, reproducible)."""

    seed: int = 0
    resamples: int = 10_000
    ci_method: Literal["percentile", "bca"] = "percentile"

    def __post_init__(self) -> None:
        if isinstance(self.resamples, bool) or not 1 <= self.resamples <= MAX_RESAMPLES:
            raise ValueError(f"resamples: must be from 1 to {MAX_RESAMPLES:,}")
        if self.ci_method not in ("percentile", "bca"):
            raise ValueError("ci_method: must be 'percentile' or 'bca'")


@dataclass(frozen=True)
class GateSet:
    """The gates of one file and their settings."""

    gates: tuple[Gate, ...]
    settings: GateSettings = field(default_factory=GateSettings)
