"""Cases for partitioned scoring, read on demand instead of all at once.

A JSONL cases file is indexed once per process — ``case_id`` to the byte range and line of
its record — and a worker validates only the cases its partition's runs name, keeping at most
``capacity`` of them (least recently used first out). So a worker's memory does not grow with
the number of cases either. A cases file that is one JSON array is small by nature and is
loaded whole.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case
from pathgrade.io.cases import load_cases, parse_record


@dataclass(frozen=True)
class CaseLocation:
    start: int
    end: int
    line: int


@dataclass
class CaseIndex:
    """Where each case of ``path`` is, and a bounded cache of validated cases."""

    path: str
    locations: dict[str, CaseLocation] | None  # None: a JSON array, loaded whole in ``cache``
    capacity: int = 2_000
    cache: OrderedDict[str, Case] = field(default_factory=OrderedDict)

    @property
    def case_ids(self) -> Iterable[str]:
        return self.locations.keys() if self.locations is not None else self.cache.keys()

    def __contains__(self, case_id: object) -> bool:
        if self.locations is not None:
            return case_id in self.locations
        return case_id in self.cache

    def cases(self, case_ids: Iterable[str]) -> dict[str, Case]:
        """The validated cases of ``case_ids`` (each must be in the index)."""
        wanted = list(dict.fromkeys(case_ids))
        if self.locations is None:
            return {c: self.cache[c] for c in wanted}
        missing = sorted(
            (c for c in wanted if c not in self.cache),
            key=lambda c: self.locations[c].start,  # type: ignore[index]
        )
        if missing:
            with Path(self.path).open("rb") as handle:
                for case_id in missing:
                    where = self.locations[case_id]
                    handle.seek(where.start)
                    raw = handle.read(where.end - where.start)
                    try:
                        value = orjson.loads(raw)
                    except orjson.JSONDecodeError as error:
                        raise InputError(
                            f"malformed JSON: {error}", file=self.path, line=where.line
                        ) from None
                    self.cache[case_id] = parse_record(value, Case, file=self.path, line=where.line)
        out = {}
        for case_id in wanted:
            self.cache.move_to_end(case_id)
            out[case_id] = self.cache[case_id]
        while len(self.cache) > max(self.capacity, len(wanted)):
            self.cache.popitem(last=False)
        return out


def index_cases(path: str | Path, capacity: int = 2_000) -> CaseIndex:
    """Index a cases file (ids must be unique; errors name file and line)."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror}", file=name) from None
    if data.lstrip().startswith(b"["):
        cases = load_cases(path).items
        return CaseIndex(name, None, capacity, OrderedDict((c.case_id, c) for c in cases))
    locations: dict[str, CaseLocation] = {}
    start = 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        end = start + len(raw)
        body = raw.strip()
        if body and not body.startswith(b"//"):
            try:
                value = orjson.loads(body)
            except orjson.JSONDecodeError as error:
                raise InputError(f"malformed JSON: {error}", file=name, line=number) from None
            case_id = value.get("case_id") if isinstance(value, dict) else None
            if not isinstance(case_id, str) or not case_id:
                # Let the model say exactly what is wrong with the record.
                parse_record(value, Case, file=name, line=number)
                raise InputError("case_id must be a non-empty string", file=name, line=number)
            if case_id in locations:
                first = locations[case_id].line
                raise InputError(
                    f"duplicate case_id {case_id!r} (first on line {first})",
                    file=name,
                    line=number,
                    field="case_id",
                )
            locations[case_id] = CaseLocation(start, end, number)
        start = end + 1
    if not locations:
        raise InputError("file has no records", file=name)
    return CaseIndex(name, locations, capacity)


def known_ids(index: CaseIndex) -> Mapping[str, object]:
    """A mapping view for ``check_known_case`` (membership only)."""
    return index.locations if index.locations is not None else index.cache
