"""Reading metric values out of result records (dicts as ``pathgrade score --out`` writes them).

A *metric name* is one of:

* a key of ``record["metrics"]`` (``tool_accuracy``, ``recall@20``, ...);
* an amount of the system layer, :data:`AMOUNTS` (``latency_ms``, ``tokens``, ``cost``): one
  name for each, read by :func:`amount`: the record's metric, else (a record scored before the
  system layer, or one where the layer emitted nothing for it) the same field of its
  ``usage`` object. ``usage.latency_ms``, ``usage.tokens`` and ``usage.cost`` read the same
  values (deprecated spellings: callers that take names as input turn them into the one name
  with a note, :func:`pathgrade.metrics.catalogue.canonical`);
* ``usage.<field>`` for the other fields of ``record["usage"]`` (``usage.steps``);
* ``defects.<kind>``: the number of defects of that kind in ``record["defects"]``
  (``defects.timeout``); 0 when the record lists defects but none of that kind.

``null`` is an undefined value (``None``): excluded and counted, never a zero. A name that no
record carries at all is *missing*, which callers must treat as an error, not as undefined.
Booleans read as 1.0 / 0.0. Pure: works on in-memory records only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "AMOUNTS",
    "CaseValues",
    "MissingMetricError",
    "amount",
    "case_values",
    "metric_names",
    "run_values",
]

FloatArray = NDArray[np.float64]
#: The system layer's amounts (:data:`pathgrade.metrics.system.usage.AMOUNTS`, which a test
#: keeps equal): each also a field of a record's ``usage`` object, with the same value.
AMOUNTS = ("latency_ms", "tokens", "cost")
_USAGE_SPELLING = {f"usage.{name}": name for name in AMOUNTS}


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


def _amount(record: Mapping[str, Any], name: str) -> object:
    """The amount's metric when it is a value; else its ``usage`` field when the record has
    one (``null`` included); else the metric's ``null``; else absent."""
    metrics = record.get("metrics")
    value = metrics.get(name, _ABSENT) if isinstance(metrics, Mapping) else _ABSENT
    if value is not None and value is not _ABSENT:
        return value
    usage = record.get("usage")
    recorded = usage.get(name, _ABSENT) if isinstance(usage, Mapping) else _ABSENT
    return value if recorded is _ABSENT else recorded


def amount(record: Mapping[str, Any], name: str) -> float | None:
    """The record's ``name`` (one of :data:`AMOUNTS`), from its metric, else from its
    ``usage`` object (records scored before the system layer); ``None`` when unknown.

    Every reader of latency, tokens or cost in result records goes through this function.

    >>> amount({"metrics": {}, "usage": {"latency_ms": 1750.0}}, "latency_ms")
    1750.0
    >>> amount({"metrics": {"tokens": None}, "usage": {"tokens": None}}, "tokens") is None
    True
    """
    value = _amount(record, name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _raw(record: Mapping[str, Any], name: str) -> object:
    name = _USAGE_SPELLING.get(name, name)
    if name in AMOUNTS:
        return _amount(record, name)
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
    """Every metric name in ``records``, each once: metric keys in order seen, then the
    :data:`AMOUNTS` that only ``usage`` objects carry (records scored before the system layer),
    then the other ``usage.*`` fields (``usage.steps``). A ``usage`` field that is an amount
    is that amount's one name, never a ``usage.*`` name of its own."""
    names: dict[str, None] = {}
    fields: dict[str, None] = {}
    for record in records:
        metrics = record.get("metrics")
        if isinstance(metrics, Mapping):
            names.update(dict.fromkeys(str(k) for k in metrics))
        usage = record.get("usage")
        if isinstance(usage, Mapping):
            fields.update(dict.fromkeys(str(k) for k in usage))
    amounts = [a for a in AMOUNTS if a in fields and a not in names]
    others = [f"usage.{k}" for k in fields if k not in AMOUNTS]
    return [*names, *amounts, *others]
