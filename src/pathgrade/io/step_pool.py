"""Identical step records validated once: one shared :class:`~pathgrade.core.types.Step`.

A trace set repeats its steps: a case's reference paths and its runs call the same tools with
the same arguments, and an agent repeats calls. Validating a step builds a model, and this is
most of the cost of loading a file (and, on this machine, each fresh object also costs memory
that must be faulted in). A :class:`StepPool` validates each distinct step record once and
hands out the same frozen ``Step`` for every identical record.

"Identical" is strict: the same JSON text (``orjson.dumps`` of the decoded value, key order
included, so ``1`` and ``1.0``, ``true`` and ``1`` stay different) *and* equal decoded values
(so values JSON cannot tell apart, such as a NaN and a null from a Parquet row, are never
confused). For records decoded from JSON text the text alone decides (such values cannot
come from it), and the values are not compared (``from_json``). A shared step is therefore
equal, field by field and in its fields' key order, to the one a separate validation would
build; only its identity is shared. Steps are frozen models; their ``arguments``, ``output``
and ``metadata`` containers are shared too and must be treated as read-only (as every scorer
does).

A step record seen for the first time is validated with its record, in the same pydantic
call, and pooled from the validated record. When a record does not validate, the caller
validates it again as it was written, so its error is exactly the one it always was.
"""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from pydantic import BaseModel

from pathgrade.core.types import Case, Run, Step

ModelT = TypeVar("ModelT", bound=BaseModel)

#: Distinct steps kept by default (a pooled step costs its key, an entry and, unless the pool
#: is ``from_json``, the decoded record, on top of the ``Step`` its records share); the pool
#: is emptied when it is full.
DEFAULT_CAPACITY = 1 << 18

#: Run step look-ups per sample of the pool's hit rate, the least share of hits that keeps it
#: in use, and the run records passed by, unpooled, when a sample falls short (case records
#: are always pooled: their references are what runs repeat). Pooling a step the
#: pool does not know costs about a third of what a hit saves, so data whose steps do not
#: recur (or recur further apart than the pool holds) is loaded almost as without a pool.
SAMPLE_LOOKUPS = 4096
MIN_HIT_SHARE = 0.3
BYPASS_RECORDS = 8192

#: A step record not in the pool, to be added once its record validates:
#: ``(field, path index or -1, step index, key, decoded record)``.
Pending = tuple[str, int, int, bytes | str, Any]


class StepPool:
    """Validated steps by their record (see module docstring), at most ``capacity`` kept.

    When fewer than ``MIN_HIT_SHARE`` of a sample of run step look-ups find their step, the
    next ``BYPASS_RECORDS`` run records are validated as without a pool, then the pool samples
    again. Case records are always pooled.

    A record is prepared (:meth:`prepare`: pooled steps substituted for known step records,
    the others left as they are), validated as a whole by the model (one pydantic call, which
    accepts the substituted ``Step`` objects as they are), then the steps it validated anew
    are added (:meth:`add`).
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY, *, from_json: bool = False) -> None:
        """``from_json``: every record this pool sees was decoded from JSON text (not, for
        example, read from a Parquet row, where a NaN and a null both write as ``null``).
        Then equal text means equal values, and the values are not compared again."""
        self.capacity = capacity
        self.from_json = from_json
        self._steps: dict[bytes | str, tuple[Any, Step]] = {}
        self.hits = 0
        self.misses = 0
        self._sample_hits = 0
        self._sample_lookups = 0
        self._bypass = 0  # records still to pass by unpooled

    def __len__(self) -> int:
        return len(self._steps)

    def _substitute(
        self, values: Any, name: str, path: int, pending: list[Pending]
    ) -> list[Any] | None:
        """``values`` with known step records replaced by their steps (None: not a list)."""
        if type(values) is not list:
            return None
        pool, dumps, from_json = self._steps, orjson.dumps, self.from_json
        out = list(values)
        for index, value in enumerate(values):
            try:
                key: bytes | str = value if type(value) is str else dumps(value)
            except TypeError:  # not plain JSON (a non-string key, a >64-bit integer)
                continue
            entry = pool.get(key)
            if entry is not None and (from_json or entry[0] == value):
                self.hits += 1
                self._sample_hits += name == "steps"
                out[index] = entry[1]
            else:
                pending.append((name, path, index, key, value))
        if name == "steps":
            self._sample_lookups += len(values)
        return out

    def prepare(self, record: dict[str, Any], model: type) -> tuple[dict[str, Any], list[Pending]]:
        """``record`` with its known step records (a run's ``steps``; a case's ``reference``,
        ``references`` and ``forbidden_actions``) replaced by pooled steps, and the step
        records still to add. ``record`` itself is not modified."""
        pending: list[Pending] = []
        if model is Run:
            fields: tuple[str, ...] = ("steps",)
            if self._bypass:
                self._bypass -= 1
                return record, pending
            if self._sample_lookups >= SAMPLE_LOOKUPS:
                if self._sample_hits < MIN_HIT_SHARE * self._sample_lookups:
                    self._bypass = BYPASS_RECORDS
                self._sample_hits = self._sample_lookups = 0
        elif model is Case:
            # Always pooled: a case's references are the calls its runs are expected to
            # repeat, so they are worth pooling even when cases share no step.
            fields = ("reference", "forbidden_actions")
        else:
            return record, pending
        out = dict(record)
        for name in fields:
            steps = self._substitute(record.get(name), name, -1, pending)
            if steps is not None:
                out[name] = steps
        if model is Case and type(record.get("references")) is list:
            out["references"] = [
                self._substitute(path, "references", number, pending) or path
                for number, path in enumerate(record["references"])
            ]
        return out, pending

    def add(self, item: ModelT, pending: list[Pending]) -> ModelT:
        """Pool the steps of the validated ``item`` that its record held as ``pending``, and
        return it; a step its record repeats (a case's reference and its alternatives, an
        agent's repeated call) is shared too, in a copy of ``item``."""
        pool = self._steps
        shared: dict[tuple[str, int], list[Any]] = {}
        for name, path, index, key, value in pending:
            steps = getattr(item, name)
            step = (steps[path] if path >= 0 else steps)[index]
            entry = pool.get(key)
            # Pooled from earlier in this record?
            if entry is not None and (self.from_json or entry[0] == value):
                container = shared.get((name, path))
                if container is None:
                    container = shared[(name, path)] = list(steps[path] if path >= 0 else steps)
                container[index] = entry[1]
                continue
            self.misses += 1
            if len(pool) >= self.capacity:
                pool.clear()
            # A compact copy of the key: orjson's result keeps the buffer it grew (~4 KiB).
            # The record is kept to compare values, which JSON text does not need.
            kept = None if self.from_json else value
            pool[bytes(memoryview(key)) if type(key) is bytes else key] = (kept, step)
        if not shared:
            return item
        update: dict[str, Any] = {}
        for (name, path), container in shared.items():
            if path < 0:
                update[name] = tuple(container)
            else:
                paths = update.get(name) or list(getattr(item, name))
                paths[path] = tuple(container)
                update[name] = paths
        if type(update.get("references")) is list:
            update["references"] = tuple(update["references"])
        return item.model_copy(update=update)
