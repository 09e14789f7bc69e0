"""The system layer's rows of the metric catalogue (:mod:`pathgrade.metrics.catalogue_rows`):
safe termination after faults, latency/tokens/cost per run and over the run set, state after
resume, and the counts that need no reference."""

from __future__ import annotations

from pathgrade.metrics.catalogue_row import UNKNOWN_TOTAL, H, L, MetricRow, N

SYSTEM = (
    MetricRow("safe_termination", "system", H, "binary",
            "after the first unrecovered fault: no write but retries, and the answer says"
            " so ([termination] markers)",
            "no unrecovered fault"),
)  # fmt: skip

# The system layer's latency, tokens and cost (metrics/system/usage.py): per run, and their
# distribution over the run set in the summary (summary["system"][amount][statistic]). Each is
# the one name of its quantity: the usage.* spelling is deprecated (read as the same row, with
# a note), and a record scored before the system layer has the value only in its usage object,
# which is read instead (pathgrade.stats.records.amount).
_STATISTIC = "(mean|p50|p95|p99|max)"
SYSTEM_USAGE = (
    MetricRow("latency_ms", "system", L, "quantity",
            "the run's recorded latency, else the sum of its steps' (time in calls)",
            UNKNOWN_TOTAL, "ms", deprecated=("usage.latency_ms",)),
    MetricRow("tokens", "system", L, "quantity",
            "the run's recorded tokens, else input + output tokens, else the steps' sum",
            UNKNOWN_TOTAL, "tokens", deprecated=("usage.tokens",)),
    MetricRow("cost", "system", L, "quantity",
            "the recorded cost, else the steps' sum, else tokens priced by [prices] for the"
            " trace's model", "nothing recorded or priceable: no tokens, no model, a model"
            " without a price, or only a total with unequal input/output prices", "USD",
            deprecated=("usage.cost",)),
    MetricRow("latency_ms.<statistic>", "system", L, "quantity",
            "over the runs' latency_ms: mean of per-case means; p50/p95/p99 (type-7"
            " percentiles) and max over every run (summary)", "no run has latency_ms", "ms",
            pattern=rf"latency_ms\.{_STATISTIC}"),
    MetricRow("tokens.<statistic>", "system", L, "quantity",
            "over the runs' tokens: mean of per-case means; p50/p95/p99 (type-7 percentiles)"
            " and max over every run (summary)", "no run has tokens", "tokens",
            pattern=rf"tokens\.{_STATISTIC}"),
    MetricRow("cost.<statistic>", "system", L, "quantity",
            "over the runs' cost: mean of per-case means; p50/p95/p99 (type-7 percentiles)"
            " and max over every run (summary)", "no run has a known cost", "USD",
            pattern=rf"cost\.{_STATISTIC}"),
)  # fmt: skip

# The system layer's state after resume (metrics/system/resume.py): runs with a resumed step.
_NO_RESUME = "the run has no resumed step"
SYSTEM_RESUME = (
    MetricRow("resumes", "system", N, "count", "steps marked resumed (the run was stopped"
            " before each and restarted)", _NO_RESUME, "resumes"),
    MetricRow("repeated_reads_after_resume", "system", L, "count",
            "non-write calls repeating a call that succeeded before the latest resume",
            _NO_RESUME, "calls"),
    MetricRow("state_consistent_after_resume", "system", H, "binary",
            "the resumed run's final_state equals the case's expected_state (no difference)",
            _NO_RESUME + ", or the case has no expected_state or the run no final_state"),
)  # fmt: skip

# The system layer's scores that need no reference (metrics/system/health.py): every run.
_NEVER = "never: a run without calls has 0"
SYSTEM_HEALTH = (
    MetricRow("repeated_calls", "system", L, "count",
            "calls that are the same call (tool, arguments as JSON values) as the call before"
            " them", _NEVER, "calls"),
    MetricRow("retries_without_change", "system", L, "count",
            "repeated calls whose previous call failed (retried unchanged)", _NEVER, "calls"),
    MetricRow("loops", "system", L, "count",
            "full copies of a block of >= 2 calls (not one call) right after it; greedy,"
            " smallest period first (docs/layers.md)",
            _NEVER, "loops"),
    MetricRow("tool_errors", "system", L, "count", "calls whose error is set (not empty)",
            _NEVER, "calls"),
    MetricRow("unrecovered_errors", "system", L, "count",
            "failed calls after which no call of the same tool succeeded", _NEVER, "calls"),
    MetricRow("empty_retrievals", "system", L, "count",
            "retrieval calls (metadata.retrieval true) that did not fail and returned null,"
            " \"\", [] or {}", _NEVER, "calls"),
)  # fmt: skip
