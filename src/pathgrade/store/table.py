"""Result records <-> one Arrow table per stored run (columns documented in ``docs/report.md``).

One row per scored run: the fields of its record (:mod:`pathgrade.io.results.schema`),
flattened. Metric values are typed columns ``metrics.<name>`` (``null`` = undefined), so
DuckDB can aggregate them across runs; defects, alignment, usage and the trace excerpt the
report shows are JSON text columns, with a few flat summaries beside them (``defect_kinds``,
``penalty_total``, ``tools``, ``n_match`` ...) for filtering in SQL; ``provenance`` is the
record's provenance as JSON text (null: not recorded; stores written before it have no such
column). Records read back come in the schema's field order (without ``provenance`` when
none was recorded).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, get_args

import orjson
import pyarrow as pa

from pathgrade.core.results import MetricKind, json_value
from pathgrade.core.types import Case, Run, Step
from pathgrade.io.results.schema import RECORD_FIELDS, SCHEMA_VERSION
from pathgrade.metrics.trajectory.grammar import scored_path

METRIC_PREFIX = "metrics."
#: Characters of a step output or an answer kept in the trace excerpt.
MAX_TEXT = 2000
_OPS = ("match", "substitution", "insertion", "deletion")
_KINDS: tuple[MetricKind, ...] = get_args(MetricKind)


def _dumps(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY).decode("utf-8")


def _clip(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"... [{len(text) - MAX_TEXT} more characters]"


def _step(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": step.tool, "arguments": step.arguments}
    if step.output is not None:
        shown = step.output if isinstance(step.output, str) else _dumps(step.output)
        out["output"] = _clip(shown)
    if step.error is not None:
        out["error"] = _clip(step.error)
    return out


def trace_of(
    run: Run,
    case: Case | None,
    reference_index: int | None,
    branch: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What the report shows of one run: its steps, the chosen reference (for a grammar path,
    the instance scored, ``branch`` being the record's ``reference_branch``: the steps the
    alignment's ``reference_step`` indexes), answer, retrieval."""
    trace: dict[str, Any] = {"steps": [_step(s) for s in run.steps]}
    if run.answer is not None:
        trace["answer"] = _clip(run.answer)
    if run.retrieved is not None:
        trace["retrieved"] = [
            {"id": r, "score": None} if isinstance(r, str) else {"id": r.id, "score": r.score}
            for r in run.retrieved
        ]
    if case is None:
        return trace
    if case.query is not None:
        trace["query"] = _clip(case.query)
    gold = case.gold_answers()
    if gold:
        trace["gold_answer"] = [_clip(g) for g in gold]
    paths = case.reference_paths()
    if reference_index is not None and 0 <= reference_index < len(paths):
        scored = scored_path(paths[reference_index], branch)
        trace["reference"] = [_step(s) for s in scored]
    if case.gold_evidence is not None:
        evidence = case.gold_evidence
        gains = dict(evidence) if isinstance(evidence, dict) else dict.fromkeys(evidence, 1.0)
        trace["gold_evidence"] = gains
    return trace


def records_table(
    name: str,
    records: Sequence[Mapping[str, Any]],
    kinds: Mapping[str, str],
    traces: Sequence[Mapping[str, Any] | None] | None = None,
    schema_version: int = 1,
) -> pa.Table:
    """The Arrow table of one stored run (``records`` as the schema's, ``score --out``'s)."""
    n = len(records)
    columns: dict[str, pa.Array] = {
        "run_name": pa.array([name] * n, pa.string()),
        "schema_version": pa.array([schema_version] * n, pa.int32()),
        "case_id": pa.array([str(r["case_id"]) for r in records], pa.string()),
        "run_id": pa.array([r.get("run_id") for r in records], pa.string()),
        "trial": pa.array([int(r.get("trial") or 0) for r in records], pa.int64()),
        "group": pa.array([r.get("group") for r in records], pa.string()),
        "reference_index": pa.array([r.get("reference_index") for r in records], pa.int64()),
    }
    for metric in kinds:
        values = [_as_float(r["metrics"].get(metric)) for r in records]
        columns[METRIC_PREFIX + metric] = pa.array(values, pa.float64())
    defects = [list(r.get("defects") or ()) for r in records]
    alignment = [list(r.get("alignment") or ()) for r in records]
    columns["defect_kinds"] = pa.array(
        [sorted({str(d.get("kind")) for d in ds}) for ds in defects], pa.list_(pa.string())
    )
    columns["penalty_total"] = pa.array(
        [float(sum(float(d.get("penalty") or 0) for d in ds)) for ds in defects], pa.float64()
    )
    for op in _OPS:
        columns[f"n_{op}"] = pa.array(
            [sum(1 for a in al if a.get("op") == op) for al in alignment], pa.int64()
        )
    trace_list = list(traces) if traces is not None else [None] * n
    columns["tools"] = pa.array(
        [[str(s.get("tool")) for s in (t or {}).get("steps", ())] for t in trace_list],
        pa.list_(pa.string()),
    )
    columns["usage"] = pa.array([_dumps(r.get("usage") or {}) for r in records], pa.string())
    columns["defects"] = pa.array([_dumps(ds) for ds in defects], pa.string())
    columns["alignment"] = pa.array([_dumps(al) for al in alignment], pa.string())
    columns["trace"] = pa.array([None if t is None else _dumps(t) for t in trace_list], pa.string())
    columns["provenance"] = pa.array(_provenance_texts(records), pa.string())
    for name in ("reference_branch", "conversation"):  # a grammar reference, a conversation
        found = [r.get(name) for r in records]
        if any(b is not None for b in found):
            columns[name] = pa.array([None if b is None else _dumps(b) for b in found], pa.string())
    return pa.table(columns)


def _provenance_texts(records: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """Each record's provenance as JSON text (made once per distinct value)."""
    texts: list[str | None] = []
    last: Any = None
    text: str | None = None
    for record in records:
        raw = record.get("provenance")
        if raw is not last and raw != last:
            last, text = raw, None if raw is None else _dumps(raw)
        texts.append(text)
    return texts


def _as_float(value: Any) -> float | None:
    if value is None:
        return None
    return float(value)


#: Record fields written only when they have a value.
_OPTIONAL = ("provenance", "reference_branch", "conversation")


def table_records(
    table: pa.Table, kinds: Mapping[str, str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any] | None]]:
    """Result records (as ``score --out`` writes them) and trace excerpts of a stored table."""
    rows = table.to_pylist()
    metric_columns = [
        (c[len(METRIC_PREFIX) :], c) for c in table.column_names if c.startswith(METRIC_PREFIX)
    ]
    records: list[dict[str, Any]] = []
    traces: list[dict[str, Any] | None] = []
    for row in rows:
        metrics = {
            name: _typed(row[column], kinds.get(name, "score")) for name, column in metric_columns
        }
        fields = {
            "schema_version": SCHEMA_VERSION,
            "case_id": row["case_id"],
            "run_id": row.get("run_id"),
            "trial": row.get("trial") or 0,
            "group": row.get("group"),
            "reference_index": row.get("reference_index"),
            "metrics": metrics,
            "defects": _loads(row.get("defects"), []),
            "alignment": _loads(row.get("alignment"), []),
            "usage": _loads(row.get("usage"), {}),
            "provenance": _loads(row.get("provenance"), None),
            "reference_branch": _loads(row.get("reference_branch"), None),
            "conversation": _loads(row.get("conversation"), None),
        }
        # The schema's order; a provenance, a reference branch, a conversation only when recorded.
        records.append({n: fields[n] for n in RECORD_FIELDS if n not in _OPTIONAL or fields[n]})
        trace = row.get("trace")
        traces.append(None if trace is None else _loads(trace, {}))
    return records, traces


def _typed(value: float | None, kind: str) -> float | int | bool | None:
    if value is None:
        return None
    return json_value(value, kind if kind in _KINDS else "score")


def _loads(text: str | None, default: Any) -> Any:
    if text is None:
        return default
    return orjson.loads(text)


def _kind_of(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    return "count" if isinstance(value, int) else "score"


def kinds_of(records: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Metric kinds read off the values, for records that come without them (results files):
    ``bool`` for booleans, ``count`` for integers, ``score`` otherwise or when mixed."""
    kinds: dict[str, str | None] = {}
    for record in records:
        for name, value in record["metrics"].items():
            kind, seen = _kind_of(value), kinds.get(name)
            if seen is None or kind is None or seen == kind:
                kinds[name] = seen or kind
            else:
                kinds[name] = "score"
    return {name: kind or "score" for name, kind in kinds.items()}
