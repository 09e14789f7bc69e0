"""The rows of the metric catalogue (:mod:`pathgrade.metrics.catalogue` looks them up).

One :class:`MetricRow` per emitted metric name, grouped by layer; within a layer, in the order
the layer emits them (the trajectory rows are the order of the per-run record). Add a row
here to add a metric; the catalogue rejects a duplicate name, and a test fails on any name
that scoring emits without a row.
"""

from __future__ import annotations

from pathgrade.metrics.catalogue_conversation_rows import CONVERSATION
from pathgrade.metrics.catalogue_row import (
    INF,
    JSON_KINDS,
    Kind,
    Layer,
    MetricRow,
)
from pathgrade.metrics.catalogue_row import H as _H
from pathgrade.metrics.catalogue_row import L as _L
from pathgrade.metrics.catalogue_row import N as _N
from pathgrade.metrics.catalogue_system_rows import (
    SYSTEM,
    SYSTEM_HEALTH,
    SYSTEM_RESUME,
    SYSTEM_USAGE,
)

__all__ = ["INF", "JSON_KINDS", "ROWS", "Kind", "Layer", "MetricRow"]

_NO_REF = "the case has no reference path"

_TRAJECTORY = (
    MetricRow("tool_accuracy", "trajectory", _H, "proportion",
            "aligned pairs whose tool matches / max(len(reference), len(agent)); 1 when both"
            " paths are empty", _NO_REF),
    MetricRow("argument_accuracy", "trajectory", _H, "proportion",
            "aligned pairs whose tool and arguments match / max(len(reference), len(agent))",
            _NO_REF),
    MetricRow("step_order_accuracy", "trajectory", _H, "proportion",
            "1 - Levenshtein(reference tools, agent tools) / max(len(reference), len(agent))",
            _NO_REF),
    MetricRow("path_efficiency", "trajectory", _H, "proportion",
            "min(1, len(reference) / len(agent)); 0 when only the agent's path is empty",
            _NO_REF),
    MetricRow("goal_success", "trajectory", _H, "binary",
            "the run's success; else its answer matched against gold_answer",
            "the run has no success and the case no gold_answer"),
    MetricRow("composite", "trajectory", _H, "proportion",
            "weighted mean of tool, argument and step-order accuracy and path efficiency"
            " (weights / their sum)", _NO_REF),
    MetricRow("path_score", "trajectory", _H, "score",
            "max(0, 100 - sum of the run's defect penalties)", _NO_REF, "points", (0.0, 100.0)),
    MetricRow("tool_precision", "trajectory", _H, "proportion",
            "size of the multiset intersection of reference and agent tools / len(agent)",
            "no reference path, or the agent called nothing (1 when both paths are empty)"),
    MetricRow("tool_recall", "trajectory", _H, "proportion",
            "size of the multiset intersection of reference and agent tools / len(reference)",
            "no reference path, or it is empty (1 when both paths are empty)"),
    MetricRow("tool_f1", "trajectory", _H, "proportion",
            "2 * multiset intersection / (len(reference) + len(agent)); 1 when both empty",
            _NO_REF),
    MetricRow("required_tool_coverage", "trajectory", _H, "proportion",
            "required tools called at least once / required tools", "no tool is required"),
    MetricRow("forbidden_action_count", "trajectory", _L, "count",
            "agent steps whose tool is forbidden or that match a forbidden_actions entry",
            unit="steps"),
    MetricRow("redundant_steps", "trajectory", _L, "count",
            "extra steps repeating an earlier successful call or made before their turn (at most"
            " n - 1 of n copies)", _NO_REF, "steps"),
    MetricRow("missing_steps", "trajectory", _L, "count",
            "reference steps that no agent step matches (tool and arguments)", _NO_REF, "steps"),
    MetricRow("out_of_order", "trajectory", _L, "binary",
            "a reference step ran while a step it depends on had not run before it", _NO_REF),
    MetricRow("over_budget", "trajectory", _L, "binary",
            "the run exceeds any budget (strictly greater; unknown totals never count)"),
    MetricRow("recovery_rate", "trajectory", _H, "proportion",
            "failed steps followed by a retry, a declared fallback or a clean stop / failed"
            " steps", "no step failed"),
)  # fmt: skip

_NO_GOLD = "the case has no gold_evidence, or no relevant document under no_gold=skip"
_RETRIEVAL = (
    MetricRow("precision", "retrieval", _H, "proportion",
            "relevant in the top K / K (without K: relevant retrieved / retrieved)", _NO_GOLD,
            aliases=("P",)),
    MetricRow("recall", "retrieval", _H, "proportion", "relevant in the top K / |G|", _NO_GOLD,
            aliases=("R",)),
    MetricRow("hit_rate", "retrieval", _H, "binary", "1 if a relevant document is in the top K",
            _NO_GOLD, aliases=("success", "hit")),
    MetricRow("mrr", "retrieval", _H, "proportion",
            "1 / rank of the first relevant document within K (0 when none)", _NO_GOLD,
            aliases=("recip_rank",)),
    MetricRow("ap", "retrieval", _H, "proportion", "average precision over the top K", _NO_GOLD),
    MetricRow("map", "retrieval", _H, "proportion",
            "average precision over the whole ranking, / |G|", _NO_GOLD),
    MetricRow("dcg", "retrieval", _H, "score", "discounted cumulative gain of the top K",
            _NO_GOLD, "gain", (0.0, INF)),
    MetricRow("ndcg", "retrieval", _H, "proportion", "DCG / ideal DCG of the top K", _NO_GOLD),
    MetricRow("num_rel", "retrieval", _N, "count",
            "number of relevant documents |G| (a property of the gold, not of the system)",
            unit="documents"),
    MetricRow("num_rel_ret", "retrieval", _H, "count", "relevant documents retrieved within K",
            unit="documents"),
    MetricRow("num_ret", "retrieval", _N, "count", "documents retrieved within K",
            unit="documents"),
)  # fmt: skip

_TOOL = (
    MetricRow("unknown_tool_calls", "tool", _L, "count", "calls of tools that no schema names",
            "no tools file is given", "calls"),
    MetricRow("schema_invalid_calls", "tool", _L, "count",
            "calls whose arguments fail their tool's JSON Schema", "no tools file is given",
            "calls"),
    MetricRow("schema_validity", "tool", _H, "proportion",
            "calls whose arguments pass their tool's schema / calls of tools with a schema",
            "no tools file, or no call of a tool with a schema"),
    MetricRow("argument_correctness", "tool", _H, "proportion",
            "correct calls / calls paired with a reference step of the same tool",
            "no reference path, or no paired call"),
    MetricRow("argument_precision", "tool", _H, "proportion",
            "argument fields matched / agent fields (micro over paired calls)",
            "no reference path, or no argument field"),
    MetricRow("argument_recall", "tool", _H, "proportion",
            "argument fields matched / reference fields (micro over paired calls)",
            "no reference path, or no argument field"),
    MetricRow("argument_f1", "tool", _H, "proportion",
            "2TP / (2TP + FP + FN) over argument fields of paired calls",
            "no reference path, or no argument field"),
    MetricRow("execution_success_rate", "tool", _H, "proportion",
            "calls whose error is empty / calls", "the run made no calls"),
    MetricRow("execution_errors", "tool", _L, "count", "calls whose error is not empty",
            unit="calls"),
    MetricRow("state_match", "tool", _H, "binary",
            "1 when the final state equals expected_state (no difference), else 0",
            "no expected_state or no final_state"),
    MetricRow("state_differences", "tool", _L, "count",
            "leaves where the final state differs from expected_state",
            "no expected_state or no final_state", "fields"),
    MetricRow("dangerous_false_positives", "tool", _L, "count",
            "dangerous tools called that the reference path does not contain",
            "no reference path, or no tool is marked dangerous", "tools"),
    MetricRow("tools.per_tool.precision", "tool", _H, "proportion",
            "per tool, over labelled runs: TP / (TP + FP) (summary)", "TP + FP = 0"),
    MetricRow("tools.per_tool.recall", "tool", _H, "proportion",
            "per tool, over labelled runs: TP / (TP + FN) (summary)", "TP + FN = 0"),
    MetricRow("tools.per_tool.f1", "tool", _H, "proportion",
            "per tool, over labelled runs: 2TP / (2TP + FP + FN) (summary)", "no observation"),
    MetricRow("tools.per_tool.false_positive_rate", "tool", _L, "proportion",
            "per tool, over labelled runs: FP / (FP + TN) (summary)", "FP + TN = 0"),
    MetricRow("tools.dangerous.false_positives", "tool", _L, "count",
            "runs x dangerous tools called where the reference does not call them (summary)",
            unit="calls"),
    MetricRow("tools.dangerous.false_positive_rate", "tool", _L, "proportion",
            "FP / (FP + TN) pooled over the dangerous tools (summary)", "FP + TN = 0"),
)  # fmt: skip

_NO_GOLD_ANSWER = "no gold_answer, or the run abstained"
_ANSWER = (
    MetricRow("exact_match", "answer", _H, "binary",
            "1 when the SQuAD-normalised answer equals a normalised gold answer",
            _NO_GOLD_ANSWER),
    MetricRow("token_f1", "answer", _H, "proportion",
            "SQuAD token F1 with the best gold answer", _NO_GOLD_ANSWER),
    MetricRow("numeric_match", "answer", _H, "binary",
            "1 when the answer's last number is within tolerance of a gold answer's",
            "no gold answer holds a number, or the run abstained"),
    MetricRow("context_precision", "answer", _H, "proportion",
            "context ids shown that are gold evidence / context ids shown",
            "no gold_evidence, no context, or nothing shown"),
    MetricRow("context_recall", "answer", _H, "proportion",
            "gold evidence ids shown / gold evidence ids", "no gold_evidence or no context"),
    MetricRow("faithfulness", "answer", _H, "proportion",
            "supported claims / verifiable claims", "no claims, or no claim is verifiable"),
    MetricRow("claims_supported", "answer", _H, "count", "claims labelled supported",
            "the run has no claims", "claims"),
    MetricRow("claims_unsupported", "answer", _L, "count", "claims labelled unsupported",
            "the run has no claims", "claims"),
    MetricRow("claims_unverifiable", "answer", _L, "count", "claims whose support is unknown",
            "the run has no claims", "claims"),
    MetricRow("citation_precision", "answer", _H, "proportion",
            "valid citations that entail / citations that are invalid or labelled",
            "no citations or no context"),
    MetricRow("citations_not_shown", "answer", _L, "count",
            "citations of a (chunk, version) the run was never shown",
            "no citations or no context", "citations"),
    MetricRow("citation_recall", "answer", _H, "proportion",
            "key claims with a valid, not non-entailing citation / key claims",
            "no citations, context or claims"),
    MetricRow("rubric.<dimension>", "answer", _H, "score",
            "the run's numeric rubric score of one dimension, as recorded",
            "the run has no rubric score for the dimension", "rubric points", (-INF, INF),
            pattern=r"rubric\..+"),
    MetricRow("rubric_other", "answer", _N, "count",
            "the run's numeric rubric scores whose dimension is not a column (over the cap)",
            "no dimension is over the cap, or the run has no rubric scores", "scores"),
)  # fmt: skip

_ABSTENTION = (
    MetricRow("abstention.coverage", "abstention", _H, "proportion",
            "answering runs / runs (summary)", "there are no runs"),
    MetricRow("abstention.selective_accuracy", "abstention", _H, "proportion",
            "correct answering runs / judged answering runs (summary)",
            "no answering run is judged"),
    MetricRow("abstention.risk", "abstention", _L, "proportion",
            "1 - selective_accuracy (summary)", "no answering run is judged"),
    MetricRow("abstention.unnecessary_refusals", "abstention", _L, "count",
            "runs that abstained on an answerable case (summary)", unit="runs"),
    MetricRow("abstention.unnecessary_refusal_rate", "abstention", _L, "proportion",
            "unnecessary refusals / runs of answerable cases (summary)",
            "no case is answerable"),
    MetricRow("abstention.correct_refusals", "abstention", _H, "count",
            "runs that abstained on an unanswerable case (summary)", unit="runs"),
    MetricRow("abstention.correct_refusal_rate", "abstention", _H, "proportion",
            "correct refusals / runs of unanswerable cases (summary)",
            "no case is unanswerable"),
    MetricRow("abstention.aurc", "abstention", _L, "proportion",
            "area under the risk-coverage curve / its last coverage (summary)",
            "no judged answering run, or one without a confidence"),
)  # fmt: skip

_TRIALS = (
    MetricRow("pass@<k>", "trials", _H, "proportion",
            "mean over cases of 1 - C(n-c, k) / C(n, k): one of k trials succeeds (summary)",
            "a (case_id, trial) has several runs; undefined goal_success runs are excluded"
            " and counted", pattern=r"pass@[1-9][0-9]*"),
    MetricRow("pass^<k>", "trials", _H, "proportion",
            "mean over cases of C(c, k) / C(n, k): all k trials succeed (summary)",
            "a (case_id, trial) has several runs; undefined goal_success runs are excluded"
            " and counted", pattern=r"pass\^[1-9][0-9]*"),
)  # fmt: skip

# The record's usage object: its steps. Its tokens, cost and latency_ms are the system layer's
# rows (one name each; usage.tokens, usage.cost and usage.latency_ms are their deprecated
# spellings, catalogue_system_rows.py).
_USAGE = (
    MetricRow("usage.steps", "usage", _L, "count", "steps (tool calls) the run made",
            unit="steps"),
)  # fmt: skip

_DEFECTS = tuple(
    MetricRow(f"defects.{kind}", "defects", _L, "count", f"defects of kind {kind}: {text}",
            unit="defects")
    for kind, text in (
        ("missing_step", "a reference step never matched"),
        ("wasted_step", "an extra step that repeats a call"),
        ("over_budget", "the run exceeded a budget (at most one per run)"),
        ("out_of_order", "the reference order was not followed (at most one per run)"),
        ("unexpected_write", "an extra step whose tool is declared write"),
        ("forbidden_action", "a forbidden tool or action"),
        ("missing_required_tool", "a required tool never called, not already a missing step"),
        ("unrecovered_error", "a failed step followed by no retry, fallback or stop"),
        # The system layer (docs/layers.md, "System layer").
        ("unapproved_action", "a call of a tool that needs approval, with none granted for it"),
        ("denied_action_performed", "a call made although its approval was denied"),
        ("duplicate_write_after_resume",
         "a write after a resume repeating one that succeeded before it"),
        ("acl_leak", "a call naming a resource or tenant outside the case's, or an answer"
         " quoting such data"),
        ("injection_followed", "a step doing what an injected instruction asked for"),
    )
)  # fmt: skip

_JUDGE = (
    MetricRow("judged_trajectory.accurate_rate", "judge", _H, "proportion",
            "judged trajectories the judge called accurate / judged trajectories (judge"
            " summary)", "no trajectory was judged"),
    MetricRow("observed_agreement", "judge", _H, "proportion",
            "items where judge and expert labels agree / items (judge-agreement)",
            "no item is labelled by both"),
    MetricRow("cohen_kappa", "judge", _H, "score",
            "Cohen's kappa of judge against expert labels (judge-agreement)",
            "no item, or chance agreement is 1", bounds=(-1.0, 1.0)),
    MetricRow("krippendorff_alpha", "judge", _H, "score",
            "Krippendorff's alpha of judge and expert labels (judge-agreement)",
            "fewer than two values, or no disagreement is possible", bounds=(-INF, 1.0)),
    MetricRow("position_bias_rate", "judge", _L, "proportion",
            "pairs whose verdict changed with the order shown / pairs judged in both orders",
            "no pair has both verdicts"),
    MetricRow("verbosity.spearman", "judge", _N, "score",
            "Spearman correlation of a rubric score with answer length (ideal: near 0)",
            "fewer than two scored answers, or a constant side", bounds=(-1.0, 1.0)),
    MetricRow("verbosity.pearson", "judge", _N, "score",
            "Pearson correlation of a rubric score with answer length (ideal: near 0)",
            "fewer than two scored answers, or a constant side", bounds=(-1.0, 1.0)),
)  # fmt: skip

#: Every row, grouped by layer.
ROWS: tuple[MetricRow, ...] = (
    *_TRAJECTORY,
    *_RETRIEVAL,
    *_TOOL,
    *_ANSWER,
    *_ABSTENTION,
    *_TRIALS,
    *_USAGE,
    *_DEFECTS,
    *_JUDGE,
    *SYSTEM,
    *SYSTEM_USAGE,
    *SYSTEM_RESUME,
    *SYSTEM_HEALTH,
    *CONVERSATION,
)
