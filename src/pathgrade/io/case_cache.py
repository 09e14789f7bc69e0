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

import mmap
import multiprocessing
import os
import pickle
import tempfile
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import cache
from typing import Any

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
_BLOCK = 1 << 24  # at most this many bytes per read


def read_spans(starts: list[int], ends: list[int], gap: int, block: int) -> list[tuple[int, int]]:
    """Records (sorted by offset) grouped into ranges ``[first, last)`` read with one read
    each: records at most ``gap`` bytes apart, ranges of at most ``block`` bytes."""
    spans: list[tuple[int, int]] = []
    first = 0
    for k in range(1, len(starts)):
        if starts[k] - ends[k - 1] > gap or ends[k] - starts[first] > block:
            spans.append((first, k))
            first = k
    if starts:
        spans.append((first, len(starts)))
    return spans


class CaseStore:
    """Cases by their code (position in the cases file, ``0 <= code < n_cases``).

    ``shared``: made before a pool of worker processes is forked from this one, the store is
    one for them all (its index and counters live in shared memory, its files are written
    and read at explicit offsets, space is taken under a lock), so a case validated by one
    worker is rebuilt by the others. Their step objects are their own: each step a worker
    stores is pickled to a steps file once, and another worker unpickles it once.
    """

    def __init__(
        self,
        n_cases: int,
        *,
        shared: bool = False,
        max_steps: int = DEFAULT_MAX_STEPS,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self._files = (tempfile.TemporaryFile(), tempfile.TemporaryFile())  # noqa: SIM115
        self._fd, self._steps_fd = (f.fileno() for f in self._files)
        self.pid = os.getpid()  # a process forked from this one uses a shared store only
        self.shared = shared
        self.max_steps = max_steps
        self.max_bytes = max_bytes
        # Counters (_END: bytes of cases, _STEPS: steps numbered, _STEPS_END: bytes of
        # steps, _FULL), then the start and size of each case's and each step's bytes.
        words = _COUNTERS + 2 * n_cases + 2 * (max_steps + 1)
        memory = mmap.mmap(-1, 8 * words) if shared else bytearray(8 * words)
        table = np.frombuffer(memory, np.int64)
        self._memory = memory
        self._counters = table[:_COUNTERS]
        self._start = table[_COUNTERS : _COUNTERS + n_cases]
        self._size = table[_COUNTERS + n_cases : _COUNTERS + 2 * n_cases]
        steps = table[_COUNTERS + 2 * n_cases :]
        self._step_start, self._step_size = steps[: max_steps + 1], steps[max_steps + 1 :]
        self._start[:] = -1
        self._lock: AbstractContextManager[Any] = (
            multiprocessing.get_context("fork").Lock() if shared else nullcontext()
        )
        self._number: dict[int, int] = {}  # id(step) -> its number, for this process's steps
        self._step: dict[int, Step] = {}  # number -> step (keeps this process's steps alive)

    @property
    def full(self) -> bool:
        return bool(self._counters[_FULL])

    def usable_here(self) -> bool:
        """Whether this process may use the store: the one that made it, or a process
        forked from it when it is shared."""
        return self.shared or self.pid == os.getpid()

    def __contains__(self, code: int) -> bool:
        return bool(self._start[code] >= 0)

    def stored(self, codes: Sequence[int]) -> list[bool]:
        """Whether each of ``codes`` is stored."""
        flags: list[bool] = (self._start[np.asarray(codes, np.int64)] >= 0).tolist()
        return flags

    def put(self, codes: Sequence[int], cases: Sequence[Case]) -> None:
        """Store each of ``cases`` (validated) under its code, while the store is not full
        (one write for them all)."""
        if self.full:
            return
        blobs: list[bytes] = []
        kept: list[int] = []
        for code, case in zip(codes, cases, strict=True):
            if self._start[code] >= 0:
                continue
            blob = self._blob(case)
            if blob is None:
                continue
            if blob is _FULL_BLOB:
                break
            blobs.append(blob)
            kept.append(code)
        if not blobs:
            return
        data = b"".join(blobs)
        with self._lock:
            base = int(self._counters[_END])
            if base + len(data) > self.max_bytes:
                self._counters[_FULL] = 1
                return
            self._counters[_END] = base + len(data)
        os.pwrite(self._fd, data, base)
        sizes = np.fromiter(map(len, blobs), np.int64, len(blobs))
        self._size[kept] = sizes
        self._start[kept] = base + np.cumsum(sizes) - sizes  # published last: now readable

    def _blob(self, case: Case) -> bytes | None:
        """The stored form of ``case`` (None: not the state a validated case has;
        ``_FULL_BLOB``: the store has no room left for its steps)."""
        state = case.__getstate__()
        fields = state["__dict__"]
        if tuple(fields) != _NAMES or state["__pydantic_extra__"] or state["__pydantic_private__"]:
            return None
        values = list(fields.values())
        try:
            _map_paths(values, self._numbers)
        except _StoreFullError:
            return _FULL_BLOB
        mask = _mask(frozenset(case.model_fields_set))
        return pickle.dumps((values, mask), protocol=pickle.HIGHEST_PROTOCOL)

    def get(self, codes: Sequence[int]) -> list[Case]:
        """The stored cases of ``codes`` (each must be stored), rebuilt."""
        out: list[Case] = []
        loads = pickle.loads
        for values, mask in map(loads, self._blobs(np.asarray(codes, np.int64))):
            _map_paths(values, self._steps_of)
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
        order = np.argsort(self._start[codes], kind="stable")
        starts = self._start[codes][order].tolist()
        ends = (self._start[codes] + self._size[codes])[order].tolist()
        positions = order.tolist()
        blobs: list[memoryview] = [memoryview(b"")] * codes.size
        for first, last in read_spans(starts, ends, _GAP, _BLOCK):
            base = starts[first]
            data = memoryview(os.pread(self._fd, ends[last - 1] - base, base))
            for k in range(first, last):
                blobs[positions[k]] = data[starts[k] - base : ends[k] - base]
        return blobs

    def close(self) -> None:
        for file in self._files:
            file.close()

    def _numbers(self, path: Sequence[Step]) -> tuple[int, ...]:
        """The numbers of ``path``'s steps, numbering (and, shared, writing) new ones."""
        numbers = tuple(map(self._number.get, map(id, path)))
        if None not in numbers:
            return numbers  # type: ignore[return-value]
        for step in path:
            if id(step) not in self._number:
                number = self._new_number(step)
                self._number[id(step)] = number
                self._step[number] = step
        return tuple(map(self._number.__getitem__, map(id, path)))

    def _new_number(self, step: Step) -> int:
        blob = pickle.dumps(step, protocol=pickle.HIGHEST_PROTOCOL) if self.shared else b""
        with self._lock:
            number = int(self._counters[_STEPS])
            if number >= self.max_steps:
                self._counters[_FULL] = 1
                raise _StoreFullError
            base = int(self._counters[_STEPS_END])
            self._counters[_STEPS] = number + 1
            self._counters[_STEPS_END] = base + len(blob)
        if blob:
            os.pwrite(self._steps_fd, blob, base)
            self._step_size[number] = len(blob)
            self._step_start[number] = base
        return number

    def _steps_of(self, numbers: Sequence[int]) -> tuple[Step, ...]:
        """The steps of ``numbers`` (steps another process stored are read once)."""
        steps = tuple(map(self._step.get, numbers))
        if None not in steps:
            return steps  # type: ignore[return-value]
        for number in numbers:
            if number not in self._step:
                start, size = int(self._step_start[number]), int(self._step_size[number])
                step = self._step[number] = pickle.loads(os.pread(self._steps_fd, size, start))
                self._number[id(step)] = number
        return tuple(map(self._step.__getitem__, numbers))


def _map_paths(values: list[Any], path: Callable[[Any], Any]) -> None:
    """Replace each path of steps among a case's field ``values`` by ``path`` of it."""
    for k in _PATH_POSITIONS:
        if values[k] is not None:
            values[k] = path(values[k])
    for k in _PATHS_POSITIONS:
        if values[k] is not None:
            values[k] = tuple(map(path, values[k]))


class _StoreFullError(Exception):
    """No number left for a new step."""


_FULL_BLOB = b"full"
_END, _STEPS, _STEPS_END, _FULL = range(4)
_COUNTERS = 4
