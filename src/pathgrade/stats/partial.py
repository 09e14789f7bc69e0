"""Mergeable partial summaries: partitions are scored apart and their summaries added up.

A :class:`SummaryPartial` holds, for a set of scored runs, what the final summary needs and
nothing a partition cannot compute alone:

- per metric the sum and count of defined values, defect counts, skipped records;
- per run, in compact NumPy arrays: the case code (the case's position in the cases file),
  the trial number and the ``goal_success`` outcome (for ``pass@k`` and ``cases_without_runs``),
  and the abstention inputs (answered, answerable, judged correct, confidence);
- the retrieval layer's micro-average numerators and denominators;
- the tool layer's per-tool confusion counts;
- per case, its runs and per metric its defined runs and their exact sum
  (:mod:`pathgrade.stats.case_sums`), and, for ``score --by FIELD``, its slice keys: what the
  summary over cases (:mod:`pathgrade.stats.case_summary`) needs, in memory per case, not
  per run.

``merge`` is associative, so any engine, partition order or worker count gives the same
summary as long as partitions are merged in input order (sums are then added in the same
order, per-run arrays concatenated in input order). The per-case sums are exact, so they do
not depend even on that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from pathgrade.metrics.tool.confusion import ToolConfusion
from pathgrade.stats.case_sums import CaseSums, CaseTable, CaseTotals, case_sums
from pathgrade.stats.passk import passk_over_cases
from pathgrade.stats.slice_keys import SliceKey

Int64Array = npt.NDArray[np.int64]
Int8Array = npt.NDArray[np.int8]
FloatArray = npt.NDArray[np.float64]

#: Outcome codes in the int8 per-run arrays.
UNDEFINED, FALSE, TRUE = -1, 0, 1


def outcome_codes(values: FloatArray) -> Int8Array:
    """``nan`` -> -1 (undefined), 0 -> 0, anything else -> 1 (a ``goal_success`` column)."""
    out = np.where(values != 0, TRUE, FALSE).astype(np.int8)
    out[np.isnan(values)] = UNDEFINED
    return out


@dataclass
class SummaryPartial:
    """Sums, counts and compact per-run arrays of one or more partitions (see module
    docstring)."""

    runs: int = 0
    sums: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    defects: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    skipped_reasons: list[str] = field(default_factory=list)
    # Per run (chunks, concatenated at finalize): case code, trial, goal_success outcome.
    case_codes: list[Int64Array] = field(default_factory=list)
    trials: list[Int64Array] = field(default_factory=list)
    outcomes: list[Int8Array] = field(default_factory=list)
    # Per run, abstention inputs: answered (0/1), case answerable (0/1), judged correct
    # (-1 undefined / 0 / 1; -1 when not answered), confidence (nan = none).
    answered: list[Int8Array] = field(default_factory=list)
    answerable: list[Int8Array] = field(default_factory=list)
    correct: list[Int8Array] = field(default_factory=list)
    confidence: list[FloatArray] = field(default_factory=list)
    # Retrieval: runs with gold, runs without ``retrieved``; per metric the kind of micro
    # average ("ratio": numerator / denominator, "sum": numerator, "none": no pooled form)
    # and [numerator, denominator].
    retrieval_runs: int = 0
    retrieval_missing: int = 0
    retrieval_kinds: dict[str, str] = field(default_factory=dict)
    retrieval_micro: dict[str, list[float]] = field(default_factory=dict)
    # Tool layer: per tool [tp, fp, fn]; runs it labelled; dangerous tools; their false
    # positives (listed up to MAX_LISTED); calls of tools no schema names.
    tool_counts: dict[str, list[int]] = field(default_factory=dict)
    tool_runs: int = 0
    dangerous: set[str] = field(default_factory=set)
    dangerous_runs: list[dict[str, Any]] = field(default_factory=list)
    unknown_tools: dict[str, int] = field(default_factory=dict)
    # Per case: a partition's exact sums (batches), added into ``case_totals`` on merging;
    # slice keys by case code, and whether some case had the slice field.
    case_batches: list[CaseSums] = field(default_factory=list)
    case_totals: CaseTotals = field(default_factory=CaseTotals)
    slice_keys: dict[int, tuple[SliceKey, ...]] = field(default_factory=dict)
    slice_field_found: bool = False

    MAX_REASONS = 20
    MAX_LISTED = 1000

    def add_tool_report(self, report: Mapping[str, Any]) -> None:
        """Account for one partition's tool-layer report (``summary()["tools"]``)."""
        rows = report.get("per_tool", [])
        if rows:
            first = rows[0]
            self.tool_runs += first["tp"] + first["fp"] + first["fn"] + first["tn"]
        for row in rows:
            counts = self.tool_counts.setdefault(row["tool"], [0, 0, 0])
            counts[0] += row["tp"]
            counts[1] += row["fp"]
            counts[2] += row["fn"]
            if row.get("dangerous"):
                self.dangerous.add(row["tool"])
        room = self.MAX_LISTED - len(self.dangerous_runs)
        self.dangerous_runs.extend(report.get("dangerous", {}).get("runs", [])[: max(room, 0)])
        for tool, count in report.get("unknown_tools", {}).items():
            self.unknown_tools[tool] = self.unknown_tools.get(tool, 0) + count

    def add_metrics(self, metrics: Mapping[str, FloatArray]) -> None:
        """Account for the metric columns of a batch of runs (``nan`` = undefined: counted in
        ``runs``, not summed). ``runs`` is advanced by :meth:`add_runs`."""
        for name, values in metrics.items():
            defined = values[~np.isnan(values)]
            self.counts[name] = self.counts.get(name, 0) + int(defined.size)
            self.sums[name] = self.sums.get(name, 0.0) + float(defined.sum())

    def add_case_sums(self, case_codes: Int64Array, metrics: Mapping[str, FloatArray]) -> None:
        """Account for the metric columns of a batch of runs, per case (their case codes)."""
        self.case_batches.append(case_sums(case_codes, metrics))

    def add_slice_keys(self, keys: Mapping[int, Sequence[SliceKey]], *, field_found: bool) -> None:
        """Slice keys of the batch's cases by case code (``score --by``), and whether one of
        them has the field."""
        for code, case_keys in keys.items():
            self.slice_keys.setdefault(code, tuple(case_keys))
        self.slice_field_found = self.slice_field_found or field_found

    def case_table(self) -> CaseTable:
        """The per-case means, cases in order of first appearance in the input."""
        totals = CaseTotals()
        totals.absorb(self.case_totals)
        for batch in self.case_batches:
            totals.add(batch)
        codes = _cat(self.case_codes, np.int64)
        distinct, first = np.unique(codes, return_index=True)
        return totals.table(distinct[np.argsort(first, kind="stable")])

    def add_defects(self, counts: Mapping[str, int]) -> None:
        """Add defect counts by kind."""
        for kind, count in counts.items():
            self.defects[kind] = self.defects.get(kind, 0) + count

    def add_runs(self, case_codes: Int64Array, trials: Int64Array, outcomes: Int8Array) -> None:
        """Account for a batch of runs: case codes, trial numbers, ``goal_success`` codes."""
        self.runs += int(case_codes.size)
        self.case_codes.append(np.asarray(case_codes, np.int64))
        self.trials.append(np.asarray(trials, np.int64))
        self.outcomes.append(np.asarray(outcomes, np.int8))

    def add_abstention(
        self,
        answered: Int8Array,
        answerable: Int8Array,
        correct: Int8Array,
        confidence: FloatArray,
    ) -> None:
        """Abstention inputs of the same batch of runs as :meth:`add_runs` (see fields)."""
        self.answered.append(answered)
        self.answerable.append(answerable)
        self.correct.append(correct)
        self.confidence.append(confidence)

    def add_retrieval(
        self, runs_with_gold: int, missing: int, micro: Mapping[str, tuple[str, float, float]]
    ) -> None:
        """Retrieval counts and micro-average parts ``(kind, numerator, denominator)`` of a
        batch (kinds as in the field comment)."""
        self.retrieval_runs += runs_with_gold
        self.retrieval_missing += missing
        for name, (kind, numerator, denominator) in micro.items():
            self.retrieval_kinds.setdefault(name, kind)
            parts = self.retrieval_micro.setdefault(name, [0.0, 0.0])
            parts[0] += numerator
            parts[1] += denominator

    def add_skipped(self, reason: str) -> None:
        self.skipped += 1
        if len(self.skipped_reasons) < self.MAX_REASONS:
            self.skipped_reasons.append(reason)

    def merge(self, other: SummaryPartial) -> SummaryPartial:
        """A new partial equal to ``self`` followed by ``other``."""
        out = SummaryPartial()
        out.absorb(self)
        out.absorb(other)
        return out

    def absorb(self, other: SummaryPartial) -> None:
        """Add ``other`` into ``self`` (in place; ``other`` comes after ``self``)."""
        out = self
        out.runs += other.runs
        out.skipped += other.skipped
        room = self.MAX_REASONS - len(out.skipped_reasons)
        out.skipped_reasons.extend(other.skipped_reasons[: max(room, 0)])
        for name, count in other.counts.items():
            out.counts[name] = out.counts.get(name, 0) + count
            out.sums[name] = out.sums.get(name, 0.0) + other.sums[name]
        for kind, count in other.defects.items():
            out.defects[kind] = out.defects.get(kind, 0) + count
        out.case_codes.extend(other.case_codes)
        out.trials.extend(other.trials)
        out.outcomes.extend(other.outcomes)
        out.answered.extend(other.answered)
        out.answerable.extend(other.answerable)
        out.correct.extend(other.correct)
        out.confidence.extend(other.confidence)
        out.retrieval_runs += other.retrieval_runs
        out.retrieval_missing += other.retrieval_missing
        for name, kind in other.retrieval_kinds.items():
            out.retrieval_kinds.setdefault(name, kind)
            parts = out.retrieval_micro.setdefault(name, [0.0, 0.0])
            parts[0] += other.retrieval_micro[name][0]
            parts[1] += other.retrieval_micro[name][1]
        out.tool_runs += other.tool_runs
        for tool, counts in other.tool_counts.items():
            mine_counts = out.tool_counts.setdefault(tool, [0, 0, 0])
            for k in range(3):
                mine_counts[k] += counts[k]
        out.dangerous |= other.dangerous
        room = self.MAX_LISTED - len(out.dangerous_runs)
        out.dangerous_runs.extend(other.dangerous_runs[: max(room, 0)])
        for tool, count in other.unknown_tools.items():
            out.unknown_tools[tool] = out.unknown_tools.get(tool, 0) + count
        out.case_totals.absorb(other.case_totals)
        for batch in other.case_batches:
            out.case_totals.add(batch)
        for code, case_keys in other.slice_keys.items():
            out.slice_keys.setdefault(code, case_keys)
        out.slice_field_found = out.slice_field_found or other.slice_field_found
        out.compact()

    def compact(self, every: int = 64) -> None:
        """Concatenate the per-run chunks once there are ``every`` of them (fewer objects)."""
        if len(self.case_codes) >= every:
            self.case_codes = [_cat(self.case_codes, np.int64)]
            self.trials = [_cat(self.trials, np.int64)]
            self.outcomes = [_cat(self.outcomes, np.int8)]
        if len(self.answered) >= every:
            self.answered = [_cat(self.answered, np.int8)]
            self.answerable = [_cat(self.answerable, np.int8)]
            self.correct = [_cat(self.correct, np.int8)]
            self.confidence = [_cat(self.confidence, np.float64)]

    def finalize(self, n_cases: int = 0) -> dict[str, Any]:
        """The summary: metric means over defined values, ``runs``, ``undefined``,
        ``defects``, ``cases_without_runs`` (``n_cases`` minus the distinct case codes seen),
        ``skipped``, and ``pass@k`` / ``pass^k`` / ``trials`` when some case has several trial
        numbers."""
        summary: dict[str, Any] = {}
        undefined: dict[str, int] = {}
        for name, count in self.counts.items():
            summary[name] = self.sums[name] / count if count else None
            if count < self.runs:
                undefined[name] = self.runs - count
        summary["runs"] = self.runs
        summary["undefined"] = undefined
        summary["defects"] = dict(sorted(self.defects.items()))
        codes = _cat(self.case_codes, np.int64)
        summary["cases_without_runs"] = n_cases - int(np.unique(codes).size)
        if self.skipped:
            summary["skipped"] = {"count": self.skipped, "reasons": list(self.skipped_reasons)}
        summary.update(
            passk_from_codes(codes, _cat(self.trials, np.int64), _cat(self.outcomes, np.int8))
        )
        if self.tool_counts:
            summary["tools"] = self._tools()
        if self.retrieval_kinds:
            summary["retrieval"] = self._retrieval()
        return summary

    def abstention_inputs(self) -> tuple[Int8Array, Int8Array, Int8Array, FloatArray]:
        """The per-run abstention arrays, concatenated in input order."""
        return (
            _cat(self.answered, np.int8),
            _cat(self.answerable, np.int8),
            _cat(self.correct, np.int8),
            _cat(self.confidence, np.float64),
        )

    def _retrieval(self) -> dict[str, Any]:
        """As the in-memory summary: micro = sum of numerators / sum of denominators (None
        when the denominator is 0), or the sum for count metrics."""
        micro: dict[str, float | None] = {}
        for name, kind in self.retrieval_kinds.items():
            numerator, denominator = self.retrieval_micro[name]
            if kind == "sum":
                micro[name] = numerator
            elif kind == "ratio" and denominator > 0:
                micro[name] = numerator / denominator
            else:
                micro[name] = None
        return {
            "runs_with_gold": self.retrieval_runs,
            "runs_without_retrieved": self.retrieval_missing,
            "micro": micro,
        }

    def _tools(self) -> dict[str, Any]:
        """Per-tool confusion over all partitions. A partition reports only the tools it saw,
        so true negatives are recomputed: labelled runs - tp - fp - fn."""
        rows = []
        fp_d = tn_d = 0
        for tool in sorted(self.tool_counts):
            tp, fp, fn = self.tool_counts[tool]
            tn = self.tool_runs - tp - fp - fn
            row = ToolConfusion(tool, tp, fp, fn, tn, tool in self.dangerous)
            rows.append(row.as_dict())
            if tool in self.dangerous:
                fp_d, tn_d = fp_d + fp, tn_d + tn
        return {
            "per_tool": rows,
            "dangerous": {
                "tools": sorted(self.dangerous),
                "false_positives": fp_d,
                "true_negatives": tn_d,
                "false_positive_rate": fp_d / (fp_d + tn_d) if fp_d + tn_d else None,
                "runs": self.dangerous_runs,
            },
            "unknown_tools": dict(self.unknown_tools),
        }


def _cat(chunks: list[Any], dtype: Any) -> Any:
    if not chunks:
        return np.zeros(0, dtype)
    return chunks[0] if len(chunks) == 1 else np.concatenate(chunks)


def passk_from_codes(codes: Int64Array, trials: Int64Array, outcomes: Int8Array) -> dict[str, Any]:
    """:func:`pathgrade.stats.passk.passk_summary` over integer case codes, with the same
    values: cases in order of first appearance, each case's estimate summed left to right.

    Empty when no case has two trial numbers; ``not_computed`` when a ``(case, trial)`` pair
    has several runs.
    """
    if codes.size == 0 or not trials.any():
        return {}
    order = np.lexsort((trials, codes))
    sorted_codes, sorted_trials = codes[order], trials[order]
    same_case = sorted_codes[1:] == sorted_codes[:-1]
    repeated = same_case & (sorted_trials[1:] == sorted_trials[:-1])
    case_starts = np.flatnonzero(np.concatenate(([True], ~same_case)))
    distinct = np.concatenate(([True], ~repeated)).astype(np.int64)
    per_case_distinct = np.add.reduceat(distinct, case_starts)
    if per_case_distinct.max() < 2:
        return {}
    if repeated.any():
        return {"not_computed": {"pass@k": "some (case_id, trial) pairs have several runs"}}
    unique_codes, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    n_runs = np.bincount(inverse, minlength=unique_codes.size)
    defined_mask = outcomes != UNDEFINED
    n_defined = np.bincount(inverse[defined_mask], minlength=unique_codes.size)
    successes = np.bincount(inverse[outcomes == TRUE], minlength=unique_codes.size)
    appearance = np.argsort(first, kind="stable")
    n_list = n_defined[appearance].tolist()
    c_list = successes[appearance].tolist()
    undefined_runs = int(n_runs.sum() - n_defined.sum())
    return passk_over_cases(list(zip(n_list, c_list, strict=True)), undefined_runs)
