"""Abstention and selective prediction, over a set of runs.

A run *answers* unless ``abstained`` is true. With N runs, A of them answering, and C of the
answering runs judged correct (J of them judged at all):

* ``coverage`` = A / N;
* ``selective_accuracy`` = C / J (answering runs whose correctness is unknown are left out
  and counted as ``unjudged``); ``risk`` = 1 - selective_accuracy;
* ``unnecessary_refusals``: abstained on an answerable case (a false negative), with their
  rate over the runs of answerable cases; ``correct_refusals``: abstained on an unanswerable
  case, with their rate over the runs of unanswerable cases.

**Risk-coverage curve**: for every distinct confidence t (descending), the judged answering
runs with ``confidence >= t`` are kept; the point is (t, coverage = kept / N, risk = 1 -
accuracy of the kept). Abstaining runs are never kept. Runs of equal confidence enter
together, so the order of ties cannot change the curve. **AURC** is the area under this step
curve normalised by its last coverage: ``sum_j (cov_j - cov_{j-1}) * risk_j / cov_last``.
With distinct confidences and no abstention this equals the AURC of Geifman et al. (2019),
``(1/n) sum_i risk(top-i)``. The curve needs a confidence on every judged answering run;
otherwise it is not computed (None, with the reason).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Outcome:
    """One run, for abstention: did it answer, was its case answerable, was it right."""

    answered: bool
    answerable: bool = True
    correct: bool | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class RiskCoveragePoint:
    threshold: float
    coverage: float
    risk: float
    kept: int


@dataclass(frozen=True)
class AbstentionReport:
    """Counts, rates and the risk-coverage curve of a set of runs."""

    runs: int
    answered: int
    judged: int
    correct: int
    unjudged: int
    answerable_runs: int
    unanswerable_runs: int
    unnecessary_refusals: int
    correct_refusals: int
    curve: tuple[RiskCoveragePoint, ...] | None = None
    aurc: float | None = None
    not_computed: dict[str, str] = field(default_factory=dict)

    @property
    def coverage(self) -> float | None:
        return None if self.runs == 0 else self.answered / self.runs

    @property
    def selective_accuracy(self) -> float | None:
        return None if self.judged == 0 else self.correct / self.judged

    @property
    def risk(self) -> float | None:
        accuracy = self.selective_accuracy
        return None if accuracy is None else 1.0 - accuracy

    @property
    def unnecessary_refusal_rate(self) -> float | None:
        n = self.answerable_runs
        return None if n == 0 else self.unnecessary_refusals / n

    @property
    def correct_refusal_rate(self) -> float | None:
        n = self.unanswerable_runs
        return None if n == 0 else self.correct_refusals / n

    def metrics(self) -> dict[str, float | None]:
        """The scalar results by name (None: undefined)."""
        return {
            "coverage": self.coverage,
            "selective_accuracy": self.selective_accuracy,
            "risk": self.risk,
            "unnecessary_refusals": float(self.unnecessary_refusals),
            "unnecessary_refusal_rate": self.unnecessary_refusal_rate,
            "correct_refusals": float(self.correct_refusals),
            "correct_refusal_rate": self.correct_refusal_rate,
            "aurc": self.aurc,
        }


def risk_coverage_curve(
    outcomes: Sequence[Outcome],
) -> tuple[tuple[RiskCoveragePoint, ...], float | None]:
    """The risk-coverage curve and its AURC (see the module docstring).

    Only judged answering runs enter; each must carry a confidence (ValueError otherwise).

    >>> pts, area = risk_coverage_curve(
    ...     [Outcome(True, correct=c, confidence=p) for c, p in [(True, .9), (False, .5)]]
    ... )
    >>> [(p.coverage, p.risk) for p in pts], area
    ([(0.5, 0.0), (1.0, 0.5)], 0.25)
    """
    n = len(outcomes)
    kept = [o for o in outcomes if o.answered and o.correct is not None]
    if any(o.confidence is None for o in kept):
        raise ValueError("every judged answering run needs a confidence")
    by_confidence = sorted(kept, key=lambda o: -(o.confidence or 0.0))
    points: list[RiskCoveragePoint] = []
    right = 0
    i = 0
    while i < len(by_confidence):
        threshold = by_confidence[i].confidence or 0.0
        while i < len(by_confidence) and by_confidence[i].confidence == threshold:
            right += bool(by_confidence[i].correct)
            i += 1
        points.append(RiskCoveragePoint(threshold, i / n, 1.0 - right / i, i))
    if not points:
        return (), None
    area = 0.0
    previous = 0.0
    for point in points:
        area += (point.coverage - previous) * point.risk
        previous = point.coverage
    return tuple(points), area / points[-1].coverage


def abstention_report(outcomes: Sequence[Outcome]) -> AbstentionReport:
    """Coverage, selective accuracy, risk, refusals and the risk-coverage curve.

    >>> r = abstention_report([Outcome(True, correct=True)] * 6 + [Outcome(True, correct=False)]
    ...     * 2 + [Outcome(False)] * 2)
    >>> r.coverage, r.selective_accuracy, r.risk
    (0.8, 0.75, 0.25)
    """
    answered = [o for o in outcomes if o.answered]
    judged = [o for o in answered if o.correct is not None]
    skipped: dict[str, str] = {}
    curve: tuple[RiskCoveragePoint, ...] | None = None
    aurc: float | None = None
    if not judged:
        skipped["aurc"] = "no judged answering run"
    elif any(o.confidence is None for o in judged):
        skipped["aurc"] = "a judged answering run has no confidence"
    else:
        curve, aurc = risk_coverage_curve(outcomes)
    return AbstentionReport(
        runs=len(outcomes),
        answered=len(answered),
        judged=len(judged),
        correct=sum(bool(o.correct) for o in judged),
        unjudged=len(answered) - len(judged),
        answerable_runs=sum(o.answerable for o in outcomes),
        unanswerable_runs=sum(not o.answerable for o in outcomes),
        unnecessary_refusals=sum((not o.answered) and o.answerable for o in outcomes),
        correct_refusals=sum((not o.answered) and not o.answerable for o in outcomes),
        curve=curve,
        aurc=aurc,
        not_computed=skipped,
    )
