"""Validated cases kept on local disk, so that a worker meeting a case again rebuilds it
instead of validating it again.

The runs of one case are often far apart in a runs file (a suite run several times, one
trial after another), so a worker meets each case once per trial, each time in another
partition; it cannot keep every validated case in memory. A :class:`CaseStore` writes each
case it is given to an anonymous temporary file (deleted by the operating system when the
file is closed or the process ends) in a compact form: the pickled model state (its field
values in field order, and which fields were set), with every step replaced by its number
in the store's step table. Rebuilding a case restores that state with the model's own
``__setstate__``, as ``pickle.loads`` does (no validation: it was validated when stored).
Steps are shared objects (see :class:`~pathgrade.io.step_pool.StepPool`), so the table
holds few of them when cases share calls.

Memory: two numbers per case of the cases file, and the step table. The store stops taking
new cases once its table holds ``max_steps`` steps (cases whose steps do not recur) or its
file ``max_bytes`` bytes; the cases already stored stay readable.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

from pathgrade.core.types import Case, Step

#: A case's fields, in the order of its state; those that hold steps (a path of steps, or a
#: tuple of such paths) are stored as step numbers.
_NAMES = tuple(Case.model_fields)
_PATH_POSITIONS = tuple(_NAMES.index(n) for n in ("reference", "forbidden_actions"))
_PATHS_POSITIONS = (_NAMES.index("references"),)


@cache
def _mask(fields_set: frozenset[str]) -> int:
    """The bit mask of the fields a case was given explicitly."""
    return sum(1 << k for k, name in enumerate(_NAMES) if name in fields_set)


@cache
def _fields_set(mask: int) -> frozenset[str]:
    """The names of the fields a case was given explicitly, from their bit mask."""
    return frozenset(name for k, name in enumerate(_NAMES) if mask >> k & 1)


DEFAULT_MAX_STEPS = 1 << 15
DEFAULT_MAX_BYTES = 1 << 30
_GAP = 1 << 16  # bytes between two stored cases still read in one read


class CaseStore:
    """Cases by their code (position in the cases file, ``0 <= code < n_cases``)."""

    def __init__(
        self,
        n_cases: int,
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        self._fd = self._file.fileno()
        self.pid = os.getpid()  # a forked process must make its own store
        self._start = np.full(n_cases, -1, np.int64)
        self._size = np.zeros(n_cases, np.int64)
        self._end = 0
        self._steps: list[Step] = []
        self._number: dict[int, int] = {}  # id(step) -> its number (the table keeps it alive)
        self.max_steps = max_steps
        self.max_bytes = max_bytes
        self.full = False

    def __contains__(self, code: int) -> bool:
        return bool(self._start[code] >= 0)

    def stored(self, codes: Sequence[int]) -> list[bool]:
        """Whether each of ``codes`` is stored."""
        flags: list[bool] = (self._start[np.asarray(codes, np.int64)] >= 0).tolist()
        return flags

    def put(self, codes: Sequence[int], cases: Sequence[Case]) -> None:
        """Store each of ``cases`` (validated) under its code, while the store is not full
        (one write for them all)."""
        blobs: list[bytes] = []
        kept: list[int] = []
        for code, case in zip(codes, cases, strict=True):
            if self.full:
                break
            blob = self._blob(case)
            if blob is None or self._start[code] >= 0:
                continue
            if len(self._steps) > self.max_steps or self._end + len(blob) > self.max_bytes:
                self.full = True  # this case's steps stay in the table: they are few
                break
            blobs.append(blob)
            kept.append(code)
            self._end += len(blob)
        if not blobs:
            return
        data = b"".join(blobs)
        sizes = np.fromiter(map(len, blobs), np.int64, len(blobs))
        os.pwrite(self._fd, data, self._end - len(data))
        self._start[kept] = self._end - len(data) + np.cumsum(sizes) - sizes
        self._size[kept] = sizes

    def _blob(self, case: Case) -> bytes | None:
        """The stored form of ``case`` (None: not the state a validated case has)."""
        state = case.__getstate__()
        fields = state["__dict__"]
        if tuple(fields) != _NAMES or state["__pydantic_extra__"] or state["__pydantic_private__"]:
            return None
        values = list(fields.values())
        for k in _PATH_POSITIONS:
            if values[k] is not None:
                values[k] = self._numbers(values[k])
        for k in _PATHS_POSITIONS:
            if values[k] is not None:
                values[k] = tuple(map(self._numbers, values[k]))
        mask = _mask(frozenset(case.model_fields_set))
        return pickle.dumps((values, mask), protocol=pickle.HIGHEST_PROTOCOL)

    def get(self, codes: Sequence[int]) -> list[Case]:
        """The stored cases of ``codes`` (each must be stored), rebuilt."""
        out: list[Case] = []
        step, loads = self._steps.__getitem__, pickle.loads
        for values, mask in map(loads, self._blobs(np.asarray(codes, np.int64))):
            for k in _PATH_POSITIONS:
                if values[k] is not None:
                    values[k] = tuple(map(step, values[k]))
            for k in _PATHS_POSITIONS:
                if values[k] is not None:
                    values[k] = tuple(tuple(map(step, path)) for path in values[k])
            case = Case.__new__(Case)
            case.__setstate__(
                {
                    "__dict__": dict(zip(_NAMES, values, strict=True)),
                    "__pydantic_fields_set__": set(_fields_set(mask)),
                    "__pydantic_extra__": None,
                    "__pydantic_private__": None,
                }
            )
            out.append(case)
        return out

    def _blobs(self, codes: npt.NDArray[np.int64]) -> list[memoryview]:
        """The stored bytes of each of ``codes``, read in as few reads as the file allows
        (cases stored together are read together)."""
        starts, sizes = self._start[codes], self._size[codes]
        order = np.argsort(starts, kind="stable")
        ends = starts + sizes
        # A new read where the next blob starts more than _GAP bytes after the last one ends.
        breaks = np.flatnonzero(starts[order][1:] - ends[order][:-1] > _GAP) + 1
        blobs: list[memoryview] = [memoryview(b"")] * codes.size
        for group in np.split(order, breaks):
            if not group.size:
                continue
            base = int(starts[group[0]])
            data = memoryview(os.pread(self._fd, int(ends[group].max()) - base, base))
            for k, start, end in zip(
                group.tolist(), starts[group].tolist(), ends[group].tolist(), strict=True
            ):
                blobs[k] = data[start - base : end - base]
        return blobs

    def close(self) -> None:
        self._file.close()

    def _numbers(self, path: Sequence[Step]) -> tuple[int | None, ...]:
        numbers = tuple(map(self._number.get, map(id, path)))
        if None not in numbers:
            return numbers
        for step in path:
            if id(step) not in self._number:
                self._number[id(step)] = len(self._steps)
                self._steps.append(step)
        return tuple(map(self._number.__getitem__, map(id, path)))
