"""The answer layer: answer text, context, faithfulness, citations, rubric and abstention."""

from pathgrade.metrics.answer.abstention import (
    AbstentionReport,
    Outcome,
    RiskCoveragePoint,
    abstention_report,
    risk_coverage_curve,
)
from pathgrade.metrics.answer.grounding import (
    CitationReport,
    Faithfulness,
    citation_report,
    context_precision,
    context_recall,
    faithfulness,
)
from pathgrade.metrics.answer.layer import (
    AnswerLayerResult,
    abstention_layer,
    answer_correct,
    answer_layer,
)
from pathgrade.metrics.answer.text import (
    exact_match,
    normalize_answer,
    numeric_match,
    numeric_value,
    token_f1,
)

__all__ = [
    "AbstentionReport",
    "AnswerLayerResult",
    "CitationReport",
    "Faithfulness",
    "Outcome",
    "RiskCoveragePoint",
    "abstention_layer",
    "abstention_report",
    "answer_correct",
    "answer_layer",
    "citation_report",
    "context_precision",
    "context_recall",
    "exact_match",
    "faithfulness",
    "normalize_answer",
    "numeric_match",
    "numeric_value",
    "risk_coverage_curve",
    "token_f1",
]
