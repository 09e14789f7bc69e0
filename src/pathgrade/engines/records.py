"""Result records (JSONL) straight from a :class:`~pathgrade.core.results.ScoreResult`'s
columns, without a :class:`~pathgrade.core.results.RunResult` per run.

The bytes are those of ``orjson.dumps(result[i].to_dict())`` (what ``pathgrade score --out``
writes), one line per run: metric columns are converted to JSON values once per column (as
:func:`~pathgrade.core.results.json_value` does), and each run's alignment is inserted as the
JSON text ``ScoreResult.alignments_json`` builds column-wise (a result without it has its
alignment objects serialised by orjson as dataclasses, whose fields are the keys of
``AlignedStep.to_dict``, in order).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

import numpy as np
import orjson

from pathgrade.core.results import Defect, FloatArray, MetricKind, ScoreResult
from pathgrade.core.types import Run


def json_column(values: FloatArray, kind: MetricKind) -> list[Any]:
    """``[json_value(v, kind) for v in values]``, a column at a time."""
    column = values
    if kind == "count":
        defined = ~np.isnan(values)
        ints = np.zeros(values.shape, np.int64)
        ints[defined] = values[defined]
        column = ints  # type: ignore[assignment]
    out: list[Any] = column.tolist()
    undefined = np.flatnonzero(np.isnan(values)).tolist()
    if kind == "bool":
        out = [v != 0.0 for v in out]
    for position in undefined:
        out[position] = None
    return out


def _no_usage(run: Run) -> dict[str, int | None] | None:
    """A run's ``usage`` entry when nothing about its usage is recorded (no ``usage``, no
    step with tokens, cost or latency): the step count and three unknowns; else None."""
    if run.usage is not None or not set(map(_STEP_USAGE, run.steps)) <= _UNKNOWN:
        return None
    return {"steps": len(run.steps), "tokens": None, "cost": None, "latency_ms": None}


_STEP_USAGE = attrgetter("tokens", "cost", "latency_ms")
_UNKNOWN = frozenset({(None, None, None)})


def _parts(
    result: ScoreResult,
) -> tuple[Callable[[int], tuple[Defect, ...]], list[bytes] | None]:
    """Each run's defects, and every run's alignment as JSON text when the result can give
    it column-wise (None: serialise each run's alignment objects)."""
    if result.defects_of is not None and result.alignments_json is not None:
        return result.defects_of, result.alignments_json()
    return (lambda run: result.details(run)[0]), None


def write_records(
    result: ScoreResult, defects: Counter[str], runs: Sequence[Run] | None = None
) -> bytes:
    """The JSONL records of ``result`` (each line ending in a newline); the kinds of the
    defects written are counted into ``defects``. With the scored ``runs``, the usage of a
    run that records none is written without asking ``result.usage``."""
    names = list(result.metrics)
    columns = [json_column(result.metrics[n], result.kinds[n]) for n in names]
    references = [None if i < 0 else i for i in result.reference_index.tolist()]
    dumps, usage, fragment = orjson.dumps, result.usage, orjson.Fragment
    defects_of, alignments = _parts(result)
    lines: list[bytes] = []
    append = lines.append
    for i, (case_id, run_id, trial, group, reference, values) in enumerate(
        zip(
            result.case_ids,
            result.run_ids,
            result.trials,
            result.groups,
            references,
            zip(*columns, strict=True) if columns else [()] * len(result),
            strict=True,
        )
    ):
        run_defects = defects_of(i)
        defects.update(d.kind for d in run_defects)
        alignment = fragment(alignments[i]) if alignments is not None else result.details(i)[1]
        append(
            dumps(
                {
                    "schema_version": 1,
                    "case_id": case_id,
                    "run_id": run_id,
                    "trial": trial,
                    "group": group,
                    "reference_index": reference,
                    "metrics": dict(zip(names, values, strict=True)),
                    "defects": [d.to_dict() for d in run_defects],
                    "alignment": alignment,
                    "usage": (runs is not None and _no_usage(runs[i])) or dict(usage(i)),
                }
            )
        )
    append(b"")
    return b"\n".join(lines)
