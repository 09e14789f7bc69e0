"""Identical step records validated once: one shared :class:`~pathgrade.core.types.Step`.

A trace set repeats its steps: a case's reference paths and its runs call the same tools with
the same arguments, and an agent repeats calls. Validating a step builds a model, and this is
most of the cost of loading a file (and, on this machine, each fresh object also costs memory
that must be faulted in). A :class:`StepPool` validates each distinct step record once and
hands out the same frozen ``Step`` for every identical record.

"Identical" is strict: the same JSON text (``orjson.dumps`` of the decoded value, key order
included, so ``1`` and ``1.0``, ``true`` and ``1`` stay different) *and* equal decoded values
(so values JSON cannot tell apart, such as a NaN and a null from a Parquet row, are never
confused). A shared step is therefore equal, field by field and in its fields' key order, to
the one a separate validation would build; only its identity is shared. Steps are frozen
models; their ``arguments``, ``output`` and ``metadata`` containers are shared too and must be
treated as read-only (as every scorer does).

A record whose steps are not all valid (or not plain JSON) is not touched: the caller
validates the record as it was, so its error names exactly the field it always did.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError

from pathgrade.core.types import Case, Run, Step

_validate_step = Step.__pydantic_validator__.validate_python  # model_validate, minus a wrapper

#: Distinct steps kept by default (about 1 KiB each); the pool is emptied when it is full.
DEFAULT_CAPACITY = 1 << 16


class StepPool:
    """Validated steps by their record (see module docstring), at most ``capacity`` kept."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._steps: dict[bytes | str, tuple[Any, Step]] = {}
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._steps)

    def steps(self, values: Any) -> list[Step] | None:
        """The validated steps of a list of step records, shared with identical earlier ones;
        ``None`` when ``values`` is not a list or any of its records is not a valid step
        (the caller then validates the whole record, as without a pool)."""
        if type(values) is not list:
            return None
        pool, dumps, validate = self._steps, orjson.dumps, _validate_step
        out: list[Step] = []
        append = out.append
        for value in values:
            try:
                key: bytes | str = value if type(value) is str else dumps(value)
            except TypeError:  # not plain JSON (a non-string key, a >64-bit integer)
                return None
            entry = pool.get(key)
            if entry is not None and entry[0] == value:
                self.hits += 1
                append(entry[1])
                continue
            try:
                step = validate(value)
            except ValidationError:
                return None
            self.misses += 1
            if len(pool) >= self.capacity:
                pool.clear()
            # A compact copy of the key: orjson's result keeps the buffer it grew (~4 KiB).
            pool[bytes(memoryview(key)) if type(key) is bytes else key] = (value, step)
            append(step)
        return out


def _paths(pool: StepPool, value: Any) -> list[list[Step]] | None:
    if type(value) is not list:
        return None
    out: list[list[Step]] = []
    for path in value:
        steps = pool.steps(path)
        if steps is None:
            return None
        out.append(steps)
    return out


def with_pooled_steps(pool: StepPool, record: dict[str, Any], model: type) -> dict[str, Any]:
    """``record`` with its step lists (a run's ``steps``; a case's ``reference``,
    ``references`` and ``forbidden_actions``) replaced by pooled steps. A list that is not
    all valid steps is left as it was. The record itself is not modified."""
    out = record
    if model is Run:
        fields: tuple[str, ...] = ("steps",)
    elif model is Case:
        fields = ("reference", "forbidden_actions")
    else:
        return record
    for name in fields:
        steps = pool.steps(record.get(name))
        if steps is not None:
            if out is record:
                out = dict(record)
            out[name] = steps
    if model is Case:
        paths = _paths(pool, record.get("references"))
        if paths is not None:
            if out is record:
                out = dict(record)
            out["references"] = paths
    return out
