"""Mergeable partial summaries: partitions are scored apart and their summaries added up.

A :class:`SummaryPartial` holds, for a set of scored runs, what the final summary needs and
nothing a partition cannot compute alone: per metric the sum and count of defined values,
defect counts, skipped records, the cases seen, and per case the trial outcomes (for
``pass@k``). ``merge`` is associative, so any engine, partition order or worker count gives
the same summary as long as partitions are merged in input order (sums are then added in
the same order).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pathgrade.metrics.tool.confusion import ToolConfusion
from pathgrade.stats.passk import passk_summary


@dataclass
class SummaryPartial:
    """Sums and counts of one or more partitions (see module docstring)."""

    runs: int = 0
    sums: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    defects: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    skipped_reasons: list[str] = field(default_factory=list)
    cases_seen: set[str] = field(default_factory=set)
    trials: dict[str, list[tuple[int, bool | None]]] = field(default_factory=dict)
    # Tool layer: per tool [tp, fp, fn]; runs it labelled; dangerous tools; their false
    # positives (listed up to MAX_LISTED); calls of tools no schema names.
    tool_counts: dict[str, list[int]] = field(default_factory=dict)
    tool_runs: int = 0
    dangerous: set[str] = field(default_factory=set)
    dangerous_runs: list[dict[str, Any]] = field(default_factory=list)
    unknown_tools: dict[str, int] = field(default_factory=dict)

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

    def add_run(
        self,
        case_id: str,
        trial: int,
        metrics: Mapping[str, float | int | bool | None],
        defect_kinds: Iterable[str],
    ) -> None:
        """Account for one scored run (``None`` metrics are undefined: counted, not summed)."""
        self.runs += 1
        for name, value in metrics.items():
            if name not in self.counts:
                self.counts[name] = 0
                self.sums[name] = 0.0
            if value is None or (isinstance(value, float) and math.isnan(value)):
                continue
            self.sums[name] += float(value)
            self.counts[name] += 1
        for kind in defect_kinds:
            self.defects[kind] = self.defects.get(kind, 0) + 1
        self.cases_seen.add(case_id)
        success = metrics.get("goal_success")
        outcome = None if success is None else bool(success)
        self.trials.setdefault(case_id, []).append((trial, outcome))

    def add_skipped(self, reason: str) -> None:
        self.skipped += 1
        if len(self.skipped_reasons) < self.MAX_REASONS:
            self.skipped_reasons.append(reason)

    def merge(self, other: SummaryPartial) -> SummaryPartial:
        """A new partial equal to ``self`` followed by ``other``."""
        out = SummaryPartial(
            runs=self.runs,
            sums=dict(self.sums),
            counts=dict(self.counts),
            defects=dict(self.defects),
            skipped=self.skipped,
            skipped_reasons=list(self.skipped_reasons),
            cases_seen=set(self.cases_seen),
            trials={k: list(v) for k, v in self.trials.items()},
            tool_counts={k: list(v) for k, v in self.tool_counts.items()},
            tool_runs=self.tool_runs,
            dangerous=set(self.dangerous),
            dangerous_runs=list(self.dangerous_runs),
            unknown_tools=dict(self.unknown_tools),
        )
        out.absorb(other)
        return out

    def absorb(self, other: SummaryPartial) -> None:
        """Add ``other`` into ``self`` (in place; ``other`` comes after ``self``)."""
        out = self
        out.runs += other.runs
        out.skipped += other.skipped
        room = self.MAX_REASONS - len(out.skipped_reasons)
        out.skipped_reasons.extend(other.skipped_reasons[: max(room, 0)])
        out.cases_seen |= other.cases_seen
        for name, count in other.counts.items():
            out.counts[name] = out.counts.get(name, 0) + count
            out.sums[name] = out.sums.get(name, 0.0) + other.sums[name]
        for kind, count in other.defects.items():
            out.defects[kind] = out.defects.get(kind, 0) + count
        for case_id, outcomes in other.trials.items():
            out.trials.setdefault(case_id, []).extend(outcomes)
        out.tool_runs += other.tool_runs
        for tool, counts in other.tool_counts.items():
            mine = out.tool_counts.setdefault(tool, [0, 0, 0])
            for k in range(3):
                mine[k] += counts[k]
        out.dangerous |= other.dangerous
        room = self.MAX_LISTED - len(out.dangerous_runs)
        out.dangerous_runs.extend(other.dangerous_runs[: max(room, 0)])
        for tool, count in other.unknown_tools.items():
            out.unknown_tools[tool] = out.unknown_tools.get(tool, 0) + count

    def finalize(self, case_ids: Iterable[str] = ()) -> dict[str, Any]:
        """The summary: metric means over defined values, ``runs``, ``undefined``,
        ``defects``, ``cases_without_runs`` (of ``case_ids``), ``skipped``, and ``pass@k`` /
        ``pass^k`` / ``trials`` when some case has several trial numbers."""
        summary: dict[str, Any] = {}
        undefined: dict[str, int] = {}
        for name, count in self.counts.items():
            summary[name] = self.sums[name] / count if count else None
            if count < self.runs:
                undefined[name] = self.runs - count
        summary["runs"] = self.runs
        summary["undefined"] = undefined
        summary["defects"] = dict(sorted(self.defects.items()))
        summary["cases_without_runs"] = sum(1 for c in case_ids if c not in self.cases_seen)
        if self.skipped:
            summary["skipped"] = {"count": self.skipped, "reasons": list(self.skipped_reasons)}
        summary.update(self._passk())
        if self.tool_counts:
            summary["tools"] = self._tools()
        return summary

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

    def _passk(self) -> dict[str, Any]:
        if not self.trials or max(len({t for t, _ in v}) for v in self.trials.values()) < 2:
            return {}
        if any(len({t for t, _ in v}) != len(v) for v in self.trials.values()):
            return {"not_computed": {"pass@k": "some (case_id, trial) pairs have several runs"}}
        case_ids = [c for c, outcomes in self.trials.items() for _ in outcomes]
        trials = [t for outcomes in self.trials.values() for t, _ in outcomes]
        success = [o for outcomes in self.trials.values() for _, o in outcomes]
        return passk_summary(case_ids, trials, success)
