"""Cases for partitioned scoring, read on demand instead of all at once.

A JSONL cases file is indexed once per process — ``case_id`` to the byte range and line of
its record — and a worker validates only the cases its partition's runs name, keeping at most
``capacity`` of them (least recently used first out). So a worker's memory does not grow with
the number of cases either. A cases file that is one JSON array is small by nature and is
loaded whole.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import orjson

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case
from pathgrade.io.case_cache import CaseStore, read_spans
from pathgrade.io.cases import load_cases, parse_record
from pathgrade.io.jsonl import (
    BOM,
    JSON_WHITESPACE,
    bounded_lines,
    decode_line,
    line_limit,
    skip_bom,
)
from pathgrade.io.step_pool import StepPool

Int64Array = npt.NDArray[np.int64]


@dataclass
class CaseIndex:
    """Where each case of ``path`` is, and a bounded cache of validated cases.

    ``positions`` maps ``case_id`` to its position in the file (0-based, in file order: the
    case's *code*, the same in every process); ``starts``/``ends``/``lines`` give, per
    position, the record's byte range and line. ``unanswerable`` counts the cases whose
    record says ``"answerable": false``.
    """

    path: str
    positions: dict[str, int]
    starts: Int64Array | None  # None: a JSON array, loaded whole in ``cache``
    ends: Int64Array | None
    lines: Int64Array | None
    capacity: int = 1_000
    cache: OrderedDict[str, Case] = field(default_factory=OrderedDict)
    unanswerable: int = 0
    #: Validated cases on local disk, rebuilt instead of validated again (see ``CaseStore``).
    store: CaseStore | None = None

    @property
    def case_ids(self) -> Iterable[str]:
        return self.positions.keys()

    def __len__(self) -> int:
        return len(self.positions)

    def __contains__(self, case_id: object) -> bool:
        return case_id in self.positions

    def codes(self, case_ids: Iterable[str]) -> Int64Array:
        """The position of each of ``case_ids`` (each must be in the index)."""
        return np.fromiter(map(self.positions.__getitem__, case_ids), np.int64)

    def cases(self, case_ids: Iterable[str], pool: StepPool | None = None) -> dict[str, Case]:
        """The validated cases of ``case_ids`` (each must be in the index); with a ``pool``,
        their steps are shared with identical steps validated before (e.g. the runs')."""
        wanted = list(dict.fromkeys(case_ids))
        if self.starts is None or self.ends is None or self.lines is None:
            return {c: self.cache[c] for c in wanted}
        # Positions as NumPy arrays, offsets and lines as Python ints (one conversion each,
        # not a NumPy scalar per access).
        missing_positions = np.fromiter(
            (self.positions[c] for c in wanted if c not in self.cache), np.int64
        )
        missing_positions = missing_positions[
            np.argsort(self.starts[missing_positions], kind="stable")
        ]
        if missing_positions.size:
            # Make room first (least recently used, not wanted), so that the cases of the
            # previous partition and of this one are not all held at once.
            excess = len(self.cache) + missing_positions.size - max(self.capacity, len(wanted))
            if excess > 0:
                keep = set(wanted)
                stale: list[str] = []
                for case_id in self.cache:
                    if len(stale) == excess:
                        break
                    if case_id not in keep:
                        stale.append(case_id)
                for case_id in stale:
                    del self.cache[case_id]
            store = self.store
            if store is not None:
                codes = missing_positions.tolist()
                flags = store.stored(codes)
                if any(flags):
                    for case in store.get([c for c, f in zip(codes, flags, strict=True) if f]):
                        self.cache[case.case_id] = case
                    missing_positions = missing_positions[~np.asarray(flags, np.bool_)]
            codes = missing_positions.tolist()
            starts = self.starts[missing_positions].tolist()
            ends = self.ends[missing_positions].tolist()
            lines = self.lines[missing_positions].tolist()
            validated: list[Case] = []  # in the order of ``codes``
            with Path(self.path).open("rb") as handle:
                for first, last in read_spans(starts, ends, _GAP, _BLOCK):
                    base = starts[first]
                    handle.seek(base)
                    block = handle.read(ends[last - 1] - base)
                    for k in range(first, last):
                        line = lines[k]
                        raw = block[starts[k] - base : ends[k] - base]
                        value = decode_line(raw.strip(JSON_WHITESPACE), self.path, line)
                        case = parse_record(value, Case, file=self.path, line=line, pool=pool)
                        self.cache[case.case_id] = case
                        validated.append(case)
            if store is not None:
                store.put(codes, validated)
        out = {}
        for case_id in wanted:
            self.cache.move_to_end(case_id)
            out[case_id] = self.cache[case_id]
        while len(self.cache) > max(self.capacity, len(wanted)):
            self.cache.popitem(last=False)
        return out


_GAP = 1 << 16  # bytes between two records still read in one block
_BLOCK = 1 << 24  # at most this many bytes per block


class _Head(NamedTuple):
    """What the index keeps of a case record."""

    case_id: Any
    answerable: Any


def _checked_head(body: bytes, name: str, number: int) -> _Head:
    """The head of a record decoded as a worker decodes it (:func:`~pathgrade.io.jsonl.
    decode_line`), raising the error a worker would report when it is not a JSON object with
    a non-empty string ``case_id``."""
    value = decode_line(body, name, number)
    if isinstance(value, InputError):
        raise value
    case_id = value.get("case_id") if isinstance(value, dict) else None
    if not isinstance(case_id, str) or not case_id:
        # Let the model say exactly what is wrong with the record.
        parse_record(value, Case, file=name, line=number)
        raise InputError("case_id must be a non-empty string", file=name, line=number)
    return _Head(case_id, value.get("answerable", True))


def index_cases(
    path: str | Path, capacity: int = 1_000, *, max_line_bytes: int | None = None
) -> CaseIndex:
    """Index a cases file (ids must be unique; errors name file and line).

    The file is read line by line (not whole), as :mod:`pathgrade.io.jsonl` reads it (lines
    split on ``\\n`` only, a byte order mark skipped, each line at most ``max_line_bytes``),
    so indexing needs memory for the index only. Each record is decoded as a worker decodes
    it (orjson: the same UTF-8, number and nesting checks, so a record a worker would refuse
    is an error here, naming its line, whether or not a run names its case); only its
    ``case_id`` and ``answerable`` are kept. (msgspec's struct decoder, which reads only those
    two fields, was 3.5 times faster but skips the other fields unchecked.)
    """
    name = str(path)
    limit = line_limit(max_line_bytes)
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 - closed below; error first
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror}", file=name) from None
    with handle:
        try:
            head = handle.read(4096).removeprefix(BOM).lstrip(JSON_WHITESPACE)
        except OSError as error:  # a directory
            raise InputError(f"cannot read file: {error.strerror}", file=name) from None
        if head.startswith(b"["):
            cases = load_cases(path, max_line_bytes=limit).items
            return CaseIndex(
                name,
                {c.case_id: i for i, c in enumerate(cases)},
                None,
                None,
                None,
                capacity,
                OrderedDict((c.case_id, c) for c in cases),
                sum(1 for c in cases if not c.answerable),
            )
        handle.seek(0)
        start = skip_bom(handle)
        positions: dict[str, int] = {}
        starts = array("q")
        ends = array("q")
        lines = array("q")
        unanswerable = 0
        loads, malformed = orjson.loads, orjson.JSONDecodeError
        for number, raw in bounded_lines(handle, name, limit):
            end = start + len(raw)
            body = raw.strip(JSON_WHITESPACE)
            if body and not body.startswith(b"//"):
                try:
                    value = loads(body)
                    fields = _Head(value["case_id"], value.get("answerable", True))
                except (malformed, TypeError, KeyError):
                    fields = _checked_head(body, name, number)  # raises the record's error
                case_id = fields.case_id
                if type(case_id) is not str or not case_id:
                    _checked_head(body, name, number)
                if case_id in positions:
                    first = lines[positions[case_id]]
                    raise InputError(
                        f"duplicate case_id {case_id!r} (first on line {first})",
                        file=name,
                        line=number,
                        field="case_id",
                    )
                positions[case_id] = len(starts)
                starts.append(start)
                ends.append(end)
                lines.append(number)
                unanswerable += fields.answerable is False
            start = end
    if not positions:
        raise InputError("file has no records", file=name)
    return CaseIndex(
        name,
        positions,
        np.frombuffer(starts, np.int64),
        np.frombuffer(ends, np.int64),
        np.frombuffer(lines, np.int64),
        capacity,
        unanswerable=unanswerable,
    )


def known_ids(index: CaseIndex) -> Mapping[str, object]:
    """A mapping view for ``check_known_case`` (membership only)."""
    return index.positions
