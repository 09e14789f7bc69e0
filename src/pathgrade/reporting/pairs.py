"""A changed case's two paths side by side: the baseline's run against the variant's.

The two agent paths are aligned to each other with the trajectory alignment
(:func:`pathgrade.metrics.trajectory.definition.alignment.align`, the baseline's path in the
role of the reference): the shortest tool-level edit script, then the most pairs matching in
full. Two steps match in full when they call the same tool with equal arguments (as JSON,
key order ignored; without traces, the same recorded step text): the report does not know
the scoring's argument matching modes, so this compares the two runs, not either with the
reference. Each row is ``same``, ``changed`` (same tool, other arguments), ``replaced``
(another tool), ``added`` (variant only) or ``dropped`` (baseline only).

A case's first variant run is paired with the baseline run of the same trial, else with the
baseline's first run of the case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from pathgrade.metrics.trajectory.definition.alignment import DELETE, INSERT, align
from pathgrade.reporting.cases import (
    agent_tools,
    dangerous_calls,
    failed_steps,
    run_key,
    step_flags,
)
from pathgrade.reporting.loading import LoadedRun

__all__ = ["case_pairs", "path_pair"]


def _steps(trace: Mapping[str, Any] | None, record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The agent's steps: the trace's, else ``{"tool", "text"}`` from the alignment."""
    if trace is not None:
        return [dict(step) for step in trace.get("steps", ())]
    texts = {
        e.get("agent_step"): str(e.get("agent"))
        for e in record.get("alignment") or ()
        if isinstance(e.get("agent_step"), int)
    }
    tools = agent_tools(None, record)
    return [{"tool": tools.get(j, texts[j]), "text": texts[j]} for j in sorted(texts)]


def _key(step: Mapping[str, Any]) -> bytes:
    if "text" in step:
        return str(step["text"]).encode()
    return orjson.dumps(step.get("arguments"), option=orjson.OPT_SORT_KEYS)


def _rows(base: Sequence[Mapping[str, Any]], var: Sequence[Mapping[str, Any]]) -> list[Any]:
    tools = [[b.get("tool") == v.get("tool") for v in var] for b in base]
    full = [
        [tools[i][j] and _key(b) == _key(v) for j, v in enumerate(var)] for i, b in enumerate(base)
    ]
    rows = []
    for op in align(tools, full, len(base), len(var)).ops:
        if op.kind == INSERT:
            rows.append({"op": "added", "b": None, "v": op.agent_pos})
        elif op.kind == DELETE:
            rows.append({"op": "dropped", "b": op.ref_pos, "v": None})
        else:
            same_tool = tools[op.ref_pos][op.agent_pos]
            kind = "same" if op.full else "changed" if same_tool else "replaced"
            rows.append({"op": kind, "b": op.ref_pos, "v": op.agent_pos})
    return rows


def _side(
    record: Mapping[str, Any], trace: Mapping[str, Any] | None, summary: Mapping[str, Any]
) -> dict[str, Any]:
    tools = agent_tools(trace, record)
    dangerous = dangerous_calls(summary).get(run_key(record), set())
    return {
        "run_id": record.get("run_id"),
        "trial": record.get("trial", 0),
        "steps": _steps(trace, record),
        "flags": step_flags(record, tools, dangerous, failed_steps(trace)),
        "defects": list(record.get("defects") or ()),
    }


def path_pair(
    base: tuple[Mapping[str, Any], Mapping[str, Any] | None, Mapping[str, Any]],
    var: tuple[Mapping[str, Any], Mapping[str, Any] | None, Mapping[str, Any]],
) -> dict[str, Any]:
    """The side-by-side view of one case: each side is ``(record, trace, run summary)``.

    Returns ``{"baseline": side, "variant": side, "rows": [...], "defects": [...]}``: a side's
    run id, trial, steps, step flags and defects; ``rows`` the aligned entries (``op``, ``b``
    and ``v`` step positions or ``None``); ``defects`` per kind the count on each side.
    """
    b_side, v_side = _side(*base), _side(*var)
    b_count = Counter(str(d.get("kind")) for d in b_side["defects"])
    v_count = Counter(str(d.get("kind")) for d in v_side["defects"])
    kinds = sorted(set(b_count) | set(v_count), key=lambda k: (b_count[k] - v_count[k], k))
    return {
        "baseline": b_side,
        "variant": v_side,
        "rows": _rows(b_side["steps"], v_side["steps"]),
        "defects": [{"kind": k, "baseline": b_count[k], "variant": v_count[k]} for k in kinds],
    }


def _first_rows(records: Sequence[Mapping[str, Any]]) -> dict[tuple[str, int], int]:
    out: dict[tuple[str, int], int] = {}
    for index, record in enumerate(records):
        out.setdefault((str(record["case_id"]), int(record.get("trial") or 0)), index)
    return out


def case_pairs(
    baseline: LoadedRun, variant: LoadedRun, rows: Sequence[int], metric: str
) -> dict[str, Any]:
    """:func:`path_pair` for each variant row of ``rows``, keyed by that row (as text), with
    the two runs' values of ``metric`` (``baseline_value``, ``variant_value``)."""
    by_trial = _first_rows(baseline.records)
    by_case: dict[str, int] = {}
    for (case_id, _), index in sorted(by_trial.items(), key=lambda item: item[1]):
        by_case.setdefault(case_id, index)
    out: dict[str, Any] = {}
    for row in rows:
        record = variant.records[row]
        case_id, trial = str(record["case_id"]), int(record.get("trial") or 0)
        b_row = by_trial.get((case_id, trial), by_case.get(case_id))
        if b_row is None:
            continue
        base = baseline.records[b_row]
        pair = path_pair(
            (base, baseline.traces[b_row], baseline.summary),
            (record, variant.traces[row], variant.summary),
        )
        pair["baseline_value"] = (base.get("metrics") or {}).get(metric)
        pair["variant_value"] = (record.get("metrics") or {}).get(metric)
        out[str(row)] = pair
    return out
