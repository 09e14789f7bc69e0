"""Per-run rows of the report's case table: identity, metrics, defects, the marks on steps.

A step's marks (:mod:`pathgrade.report.step_flags`) come from the run's defects that name an
agent step (``unapproved`` only from the approval defects), from the trace (``failed``: the
step returned an error) and from the stored summary's dangerous false positives
(``dangerous``: a call of a dangerous tool that the run's reference path never calls; runs
read from a results file have no summary and no trace, so neither mark).

A row's latency, tokens and cost are among its ``metrics``, each under its one name and read by
:func:`pathgrade.stats.records.amount` (so a record scored before the system layer shows them
too); its ``usage`` keeps the other usage fields (``steps``), never a second copy of them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pathgrade.report.page_data import DefectRow
from pathgrade.report.step_flags import DEFECT_FLAGS, flag_keys
from pathgrade.reporting.conversation import conversation_entry
from pathgrade.stats.records import AMOUNTS, amount

__all__ = [
    "RunKey",
    "agent_tools",
    "case_rows",
    "dangerous_calls",
    "defect_rows",
    "failed_steps",
    "run_key",
    "step_flags",
]

_TOOL = re.compile(r"^([^:(]+)")
RunKey = tuple[str, str | None, int]


def run_key(record: Mapping[str, Any]) -> RunKey:
    """``(case_id, run_id, trial)`` of a record."""
    return str(record.get("case_id")), record.get("run_id"), int(record.get("trial") or 0)


def agent_tools(trace: Mapping[str, Any] | None, record: Mapping[str, Any]) -> dict[int, str]:
    """The tool of each agent step by recorded position: from the trace, else from the
    recorded alignment's step texts (``tool(args)``)."""
    if trace is not None:
        return {j: str(s.get("tool")) for j, s in enumerate(trace.get("steps", ()))}
    out: dict[int, str] = {}
    for entry in record.get("alignment") or ():
        match = _TOOL.match(str(entry.get("agent") or ""))
        step = entry.get("agent_step")
        if entry.get("agent") and match and isinstance(step, int):
            out[step] = match.group(1)
    return out


def failed_steps(trace: Mapping[str, Any] | None) -> list[int]:
    """The positions of the trace's steps that returned an error (none without a trace)."""
    steps = (trace or {}).get("steps") or ()
    return [j for j, step in enumerate(steps) if isinstance(step, Mapping) and step.get("error")]


def dangerous_calls(summary: Mapping[str, Any]) -> dict[RunKey, set[str]]:
    """The dangerous tools each run called that its reference never calls (tool layer)."""
    dangerous = (summary.get("tools") or {}).get("dangerous") or {}
    out: dict[RunKey, set[str]] = {}
    for entry in dangerous.get("runs") or ():
        out.setdefault(run_key(entry), set()).add(str(entry.get("tool")))
    return out


def step_flags(
    record: Mapping[str, Any],
    tools: Mapping[int, str],
    dangerous: Iterable[str] = (),
    failed: Iterable[int] = (),
) -> dict[str, list[str]]:
    """Flag keys by agent step (as text, for JSON), most severe first
    (:func:`pathgrade.report.step_flags.flag_keys`); ``dangerous`` on the steps whose tool
    (``tools[step]``) is one of ``dangerous``."""
    banned = set(dangerous)
    positions = [step for step, tool in tools.items() if tool in banned]
    keys = flag_keys(record, dangerous=positions, failed=failed)
    return {str(step): flags for step, flags in keys.items()}


def _metrics_and_usage(record: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The row's metrics (the amounts under their one name) and its other usage fields."""
    metrics = dict(record["metrics"])
    usage = dict(record.get("usage") or {})
    for name in AMOUNTS:
        if name in metrics or name in usage:
            metrics[name] = amount(record, name)
            usage.pop(name, None)
    return metrics, usage


def case_rows(
    records: Sequence[Mapping[str, Any]],
    traces: Sequence[Mapping[str, Any] | None],
    summary: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """One row per run, as the page's script reads it (``flags`` only when some step has;
    ``conversation`` only for a run with turns, :func:`conversation_entry`)."""
    dangerous = dangerous_calls(summary)
    rows = []
    for record, trace in zip(records, traces, strict=True):
        tools = agent_tools(trace, record)
        metrics, usage = _metrics_and_usage(record)
        row = {
            "case_id": record["case_id"],
            "run_id": record.get("run_id"),
            "trial": record.get("trial", 0),
            "group": record.get("group"),
            "ref": record.get("reference_index"),
            "metrics": metrics,
            "usage": usage,
            "defects": record.get("defects") or [],
            "alignment": record.get("alignment") or [],
            "tools": sorted(set(tools.values())),
            "trace": trace,
        }
        flags = step_flags(record, tools, dangerous.get(run_key(record), ()), failed_steps(trace))
        if flags:
            row["flags"] = flags
        conversation = conversation_entry(record, trace)
        if conversation is not None:
            row["conversation"] = conversation
        rows.append(row)
    return rows


def defect_rows(records: Sequence[Mapping[str, Any]]) -> list[DefectRow]:
    """Per defect kind: defects, runs and cases with one, the summed penalty; by count."""
    count: Counter[str] = Counter()
    runs: Counter[str] = Counter()
    penalty: dict[str, float] = {}
    cases: dict[str, set[str]] = {}
    for record in records:
        kinds = set()
        for defect in record.get("defects") or ():
            kind = str(defect.get("kind"))
            count[kind] += 1
            value = defect.get("penalty")
            points = float(value) if isinstance(value, int | float) else 0.0
            penalty[kind] = penalty.get(kind, 0.0) + points
            kinds.add(kind)
        for kind in kinds:
            runs[kind] += 1
            cases.setdefault(kind, set()).add(str(record.get("case_id")))
    order = sorted(count, key=lambda k: (-count[k], k))
    return [
        DefectRow(k, count[k], runs[k], len(cases[k]), penalty[k], DEFECT_FLAGS.get(k, ""))
        for k in order
    ]
