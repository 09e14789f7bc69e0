"""Validated cases kept on local disk, so that a worker meeting a case again rebuilds it
instead of validating it again.

The runs of one case are often far apart in a runs file (a suite run several times, one
trial after another), so a worker meets each case once per trial, each time in another
partition; it cannot keep every validated case in memory. A :class:`CaseStore` writes each
case it is given to an anonymous temporary file (deleted by the operating system when the
file is closed or the process ends) in a compact form: the pickled model state (what
``pickle`` itself keeps of a pydantic model), with every step replaced by its number in the
store's step table. Rebuilding a case unpickles that state and restores it with the model's
own ``__setstate__``, as ``pickle.loads`` does (no validation: it was validated when
stored). Steps are shared objects (see :class:`~pathgrade.io.step_pool.StepPool`), so the
table holds few of them when cases share calls.

Memory: two numbers per case of the cases file, and the step table. The store stops taking
new cases once its table holds ``max_steps`` steps (cases whose steps do not recur) or its
file ``max_bytes`` bytes; the cases already stored stay readable.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Sequence
from typing import Any

import numpy as np

from pathgrade.core.types import Case, Step

#: The case fields that hold steps: a path of steps, or a tuple of such paths.
_PATH_FIELDS = ("reference", "forbidden_actions")
_PATHS_FIELDS = ("references",)

DEFAULT_MAX_STEPS = 1 << 15
DEFAULT_MAX_BYTES = 1 << 30


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

    def put(self, code: int, case: Case) -> None:
        """Store ``case`` (validated) under ``code``, unless the store is full."""
        if self.full or self._start[code] >= 0:
            return
        state = case.__getstate__()
        fields = dict(state["__dict__"])
        for name in _PATH_FIELDS:
            if fields.get(name) is not None:
                fields[name] = self._numbers(fields[name])
        for name in _PATHS_FIELDS:
            if fields.get(name) is not None:
                fields[name] = tuple(map(self._numbers, fields[name]))
        blob = pickle.dumps({**state, "__dict__": fields}, protocol=pickle.HIGHEST_PROTOCOL)
        if len(self._steps) > self.max_steps or self._end + len(blob) > self.max_bytes:
            self.full = True  # this case's steps stay in the table: they are few
            return
        os.pwrite(self._fd, blob, self._end)
        self._start[code], self._size[code] = self._end, len(blob)
        self._end += len(blob)

    def get(self, codes: Sequence[int]) -> list[Case]:
        """The stored cases of ``codes`` (each must be stored), rebuilt."""
        out: list[Case] = []
        steps = self._steps
        read, fd = os.pread, self._fd
        for start, size in zip(
            self._start[np.asarray(codes, np.int64)].tolist(),
            self._size[np.asarray(codes, np.int64)].tolist(),
            strict=True,
        ):
            state: dict[str, Any] = pickle.loads(read(fd, size, start))
            fields = state["__dict__"]
            for name in _PATH_FIELDS:
                if fields.get(name) is not None:
                    fields[name] = tuple(map(steps.__getitem__, fields[name]))
            for name in _PATHS_FIELDS:
                if fields.get(name) is not None:
                    fields[name] = tuple(
                        tuple(map(steps.__getitem__, path)) for path in fields[name]
                    )
            case = Case.__new__(Case)
            case.__setstate__(state)
            out.append(case)
        return out

    def close(self) -> None:
        self._file.close()

    def _numbers(self, path: Sequence[Step]) -> tuple[int, ...]:
        numbers = self._number
        out = []
        for step in path:
            number = numbers.get(id(step))
            if number is None:
                number = numbers[id(step)] = len(self._steps)
                self._steps.append(step)
            out.append(number)
        return tuple(out)
