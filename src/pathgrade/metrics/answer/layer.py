"""The answer layer: every answer metric the data has labels for, per run; abstention per set.

Per run (:func:`answer_layer`), each metric is computed only when its labels exist; otherwise
it is listed in ``not_computed`` with the reason, never reported as 0. A computed metric may
still be undefined (None), e.g. ``faithfulness`` when every claim is unverifiable.

=====================  ==========================================  ======================
metric                 needs                                       module
=====================  ==========================================  ======================
exact_match, token_f1  ``Case.gold_answer``; the run did not        :mod:`.text`
                       abstain (a missing answer scores as "")
numeric_match          a gold answer holding a number               :mod:`.text`
context_precision,     ``Run.context`` and ``Case.gold_evidence``   :mod:`.grounding`
context_recall
faithfulness           ``Run.claims``                               :mod:`.grounding`
citation_precision,    ``Run.citations`` and ``Run.context``        :mod:`.grounding`
citations_not_shown    (recall also needs ``Run.claims``)
citation_recall
rubric.<dimension>     ``Run.rubric``: numbers are metrics, text    (here)
                       labels go to ``labels``
=====================  ==========================================  ======================

Across runs, :func:`abstention_layer` gives coverage, selective accuracy, risk, refusals and
the risk-coverage curve (:mod:`.abstention`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pathgrade.core.errors import InputError
from pathgrade.core.judged import GOAL, judgement_failed
from pathgrade.core.types import Case, Run
from pathgrade.metrics.answer.abstention import AbstentionReport, Outcome, abstention_report
from pathgrade.metrics.answer.grounding import (
    citation_report,
    context_precision,
    context_recall,
    faithfulness,
    gold_evidence_ids,
)
from pathgrade.metrics.answer.text import exact_match, numeric_match, token_f1


@dataclass(frozen=True)
class AnswerLayerResult:
    """The answer layer for one run."""

    metrics: Mapping[str, float | None]
    not_computed: Mapping[str, str]
    labels: Mapping[str, str] = field(default_factory=dict)
    citations_not_shown: tuple[int, ...] = ()


def answer_layer(
    case: Case, run: Run, *, abs_tol: float = 0.0, rel_tol: float = 1e-6
) -> AnswerLayerResult:
    """Score one run's answer against its case (``abs_tol``/``rel_tol``: numeric match)."""
    metrics: dict[str, float | None] = {}
    skipped: dict[str, str] = {}

    golds = case.gold_answers()
    text_keys = ("exact_match", "token_f1", "numeric_match")
    if not golds:
        skipped.update(dict.fromkeys(text_keys, "case has no gold_answer"))
    elif run.abstained:
        skipped.update(dict.fromkeys(text_keys, "run abstained"))
    else:
        answer = run.answer or ""
        metrics["exact_match"] = exact_match(answer, golds)
        metrics["token_f1"] = token_f1(answer, golds)
        numeric = numeric_match(answer, golds, abs_tol=abs_tol, rel_tol=rel_tol)
        if numeric is None:
            skipped["numeric_match"] = "no gold answer holds a number"
        else:
            metrics["numeric_match"] = numeric

    if case.gold_evidence is None:
        skipped["context_precision"] = skipped["context_recall"] = "case has no gold_evidence"
    elif run.context is None:
        skipped["context_precision"] = skipped["context_recall"] = "run has no context"
    else:
        shown = [unit.id for unit in run.context]
        gold = gold_evidence_ids(case.gold_evidence)
        metrics["context_precision"] = context_precision(shown, gold)
        metrics["context_recall"] = context_recall(shown, gold)

    if run.claims is None:
        skipped["faithfulness"] = "run has no claims"
    else:
        counts = faithfulness(run.claims)
        metrics["faithfulness"] = counts.value
        metrics["claims_supported"] = counts.supported
        metrics["claims_unsupported"] = counts.unsupported
        metrics["claims_unverifiable"] = counts.unverifiable

    not_shown: tuple[int, ...] = ()
    citation_keys = ("citation_precision", "citation_recall", "citations_not_shown")
    if run.citations is None:
        skipped.update(dict.fromkeys(citation_keys, "run has no citations"))
    elif run.context is None:
        skipped.update(dict.fromkeys(citation_keys, "run has no context to check citations"))
    else:
        report = citation_report(run.citations, run.claims or (), run.context)
        not_shown = report.not_shown
        metrics["citation_precision"] = report.precision
        metrics["citations_not_shown"] = len(report.not_shown)
        if run.claims is None:
            skipped["citation_recall"] = "run has no claims"
        else:
            metrics["citation_recall"] = report.recall

    labels: dict[str, str] = {}
    if run.rubric is None:
        skipped["rubric"] = "run has no rubric scores"
    else:
        for dimension, score in sorted(run.rubric.items()):
            if isinstance(score, str):
                labels[f"rubric.{dimension}"] = score
            else:
                metrics[f"rubric.{dimension}"] = float(score)
    return AnswerLayerResult(metrics, skipped, labels, not_shown)


def answer_correct(case: Case, run: Run) -> bool | None:
    """Whether an answering run is right, for abstention metrics.

    The run's ``success`` when set; else None when a judge was asked for it and failed
    (:mod:`pathgrade.core.judged`); else, for an unanswerable case, False (it should have
    abstained); else the SQuAD-normalised exact match against the gold answers; else None.
    """
    if run.success is not None:
        return run.success
    if judgement_failed(run, GOAL):
        return None
    if not case.answerable:
        return False
    golds = case.gold_answers()
    if not golds:
        return None
    return exact_match(run.answer or "", golds) == 1.0


def abstention_layer(
    cases_by_id: Mapping[str, Case],
    runs: Sequence[Run],
    correct: Sequence[bool | None] | None = None,
) -> AbstentionReport:
    """Abstention metrics over ``runs``.

    ``correct`` (one entry per run, e.g. the trajectory layer's ``goal_success``) overrides
    :func:`answer_correct`; a None entry falls back to it.
    """
    if correct is not None and len(correct) != len(runs):
        raise ValueError("correct must have one entry per run")
    outcomes: list[Outcome] = []
    for position, run in enumerate(runs):
        case = cases_by_id.get(run.case_id)
        if case is None:
            raise InputError(f"run {position} names unknown case {run.case_id!r}", field="case_id")
        given = correct[position] if correct is not None else None
        verdict = given if given is not None else answer_correct(case, run)
        outcomes.append(
            Outcome(
                answered=not run.abstained,
                answerable=case.answerable,
                correct=verdict if not run.abstained else None,
                confidence=run.confidence,
            )
        )
    return abstention_report(outcomes)
