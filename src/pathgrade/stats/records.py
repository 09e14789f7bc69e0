"""Reading metric values out of result records (dicts as ``pathgrade score --out`` writes them).

A *metric name* is one of:

* a key of ``record["metrics"]`` (``tool_accuracy``, ``recall@20``, ...);
* ``usage.<field>``: a field of ``record["usage"]`` (``usage.latency_ms``, ``usage.tokens``);
* ``defects.<kind>``: the number of defects of that kind in ``record["defects"]``
  (``defects.timeout``); 0 when the record lists defects but none of that kind.

``null`` is an undefined value (``None``): excluded and counted, never a zero. A name that no
record carries at all is *missing*, which callers must treat as an error, not as undefined.
Booleans read as 1.0 / 0.0. Pure: works on in-memory records only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["CaseValues", "MissingMetricError", "case_values", "metric_names", "run_values"]

FloatArray = NDArray[np.float64]


class MissingMetricError(KeyError):
    """No record carries the metric at all (as opposed to records where it is ``null``)."""

    def __init__(self, name: str, side: str = "") -> None:
        self.name = name
        self.side = side
        where = f" in the {side} results" if side else ""
        super().__init__(f"metric {name!r} is missing{where}")

    def __str__(self) -> str:
        return str(self.args[0])


_ABSENT = object()


def _raw(record: Mapping[str, Any], name: str) -> object:
    if name.startswith("usage."):
        usage = record.get("usage")
        if not isinstance(usage, Mapping):
            return _ABSENT
        return usage.get(name[len("usage.") :], _ABSENT)
    if name.startswith("defects."):
        defects = record.get("defects")
        if not isinstance(defects, Sequence):
            return _ABSENT
        kind = name[len("defects.") :]
        return sum(1 for d in defects if isinstance(d, Mapping) and d.get("kind") == kind)
    metrics = record.get("metrics")
    if not isinstance(metrics, Mapping):
        return _ABSENT
    return metrics.get(name, _ABSENT)


@dataclass(frozen=True)
class RunValues:
    """One value per record (``nan`` = undefined or absent from that record)."""

    case_ids: tuple[str, ...]
    values: FloatArray
    binary: bool


def run_values(records: Sequence[Mapping[str, Any]], name: str, side: str = "") -> RunValues:
    """Per-record values of ``name``.

    Raises:
        MissingMetricError: no record carries ``name``.
        ValueError: a value that is neither a number, a bool nor null.
    """
    values = np.full(len(records), np.nan)
    present = False
    binary = True
    for i, record in enumerate(records):
        raw = _raw(record, name)
        if raw is _ABSENT:
            continue
        present = True
        if raw is None:
            continue
        if isinstance(raw, bool):
            values[i] = float(raw)
            continue
        if not isinstance(raw, int | float):
            raise ValueError(
                f"metric {name!r} of case {record.get('case_id')!r} must be a number, a bool or"
                f" null, got {raw!r}"
            )
        binary = False
        values[i] = float(raw)
    if not present:
        raise MissingMetricError(name, side)
    case_ids = tuple(str(r.get("case_id")) for r in records)
    return RunValues(case_ids, values, binary)


@dataclass(frozen=True)
class CaseValues:
    """Per-case means over defined trials; ``trials[case]`` counts the defined trials."""

    means: dict[str, float]
    trials: dict[str, int]
    binary: bool


def case_values(records: Sequence[Mapping[str, Any]], name: str, side: str = "") -> CaseValues:
    """Per-case means of ``name`` (cases with no defined trial map to ``nan``)."""
    runs = run_values(records, name, side)
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for case_id, value in zip(runs.case_ids, runs.values.tolist(), strict=True):
        sums.setdefault(case_id, 0.0)
        counts.setdefault(case_id, 0)
        if not np.isnan(value):
            sums[case_id] += value
            counts[case_id] += 1
    means = {c: (sums[c] / counts[c] if counts[c] else float("nan")) for c in sums}
    return CaseValues(means, counts, runs.binary)


def metric_names(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every metric name in ``records``: metric keys, then ``usage.*`` fields, in order seen."""
    names: dict[str, None] = {}
    usage: dict[str, None] = {}
    for record in records:
        metrics = record.get("metrics")
        if isinstance(metrics, Mapping):
            names.update(dict.fromkeys(str(k) for k in metrics))
        fields = record.get("usage")
        if isinstance(fields, Mapping):
            usage.update(dict.fromkeys(f"usage.{k}" for k in fields))
    return [*names, *usage]
