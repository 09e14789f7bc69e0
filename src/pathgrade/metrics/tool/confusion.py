"""Per-tool confusion matrices across a dataset (tool selection, counted per run).

For every labelled run (a run whose case has a reference path) and every tool in the universe
(tools named by the schemas, the reference paths or the runs), the run is one observation:

* **should**: the tool occurs in the reference path used for that run;
* **called**: the run called the tool at least once.

TP = should and called, FP = called but should not, FN = should but not called, TN = neither.
precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = 2TP / (2TP + FP + FN),
false-positive rate = FP / (FP + TN); each is None when its denominator is 0. Presence, not
counts: calling a tool twice where once was needed is the trajectory layer's
``redundant_steps``, not a false positive here.

Dangerous tools (writes, refunds, deletes) get their false-positive rate reported on its own,
pooled over all dangerous tools, with every false positive listed: calling a write that should
not happen is worse than missing one.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass


def _ratio(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


@dataclass(frozen=True)
class ToolConfusion:
    """One tool's confusion counts over the labelled runs."""

    tool: str
    tp: int
    fp: int
    fn: int
    tn: int
    dangerous: bool = False

    @property
    def precision(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        return _ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    @property
    def false_positive_rate(self) -> float | None:
        return _ratio(self.fp, self.fp + self.tn)

    def as_dict(self) -> dict[str, object]:
        return {
            "tool": self.tool,
            "dangerous": self.dangerous,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "false_positive_rate": self.false_positive_rate,
        }


@dataclass(frozen=True)
class Observation:
    """One labelled run: which tools it should have called, and which it called."""

    case_id: str
    run_id: str | None
    trial: int
    should: frozenset[str]
    called: frozenset[str]


@dataclass(frozen=True)
class FalsePositive:
    """A tool called in a run whose reference path does not contain it."""

    case_id: str
    run_id: str | None
    trial: int
    tool: str


@dataclass(frozen=True)
class DangerousReport:
    """False positives of the dangerous tools, pooled: FP / (FP + TN) over (run, tool) pairs."""

    tools: tuple[str, ...]
    fp: int
    tn: int
    false_positives: tuple[FalsePositive, ...]

    @property
    def false_positive_rate(self) -> float | None:
        return _ratio(self.fp, self.fp + self.tn)


def tool_confusion(
    observations: Sequence[Observation],
    universe: Collection[str] = (),
    dangerous: Collection[str] = (),
) -> tuple[list[ToolConfusion], DangerousReport]:
    """Confusion per tool (sorted by name) and the pooled dangerous-tool report."""
    danger = frozenset(dangerous)
    tools = set(universe) | danger
    for obs in observations:
        tools |= obs.should | obs.called
    table: list[ToolConfusion] = []
    false_positives: list[FalsePositive] = []
    for tool in sorted(tools):
        tp = fp = fn = tn = 0
        for obs in observations:
            should, called = tool in obs.should, tool in obs.called
            if should and called:
                tp += 1
            elif called:
                fp += 1
                if tool in danger:
                    false_positives.append(FalsePositive(obs.case_id, obs.run_id, obs.trial, tool))
            elif should:
                fn += 1
            else:
                tn += 1
        table.append(ToolConfusion(tool, tp, fp, fn, tn, dangerous=tool in danger))
    dangerous_rows = [row for row in table if row.dangerous]
    report = DangerousReport(
        tools=tuple(sorted(danger)),
        fp=sum(row.fp for row in dangerous_rows),
        tn=sum(row.tn for row in dangerous_rows),
        false_positives=tuple(false_positives),
    )
    return table, report
