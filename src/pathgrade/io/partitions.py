"""Split a runs file into partitions that workers read on their own, in bounded memory.

A partition is a small picklable description — a byte range of a JSONL file with the line
number it starts at, or a set of Parquet row groups — never the data itself, so the
coordinating process reads nothing but newline counts, and any worker (a local process or a
Dask worker on a shared file system) reads exactly its own records.

JSONL is read as :mod:`pathgrade.io.jsonl` reads it in memory, so both give the same records
and lines: split on ``\n`` only, a leading byte order mark skipped, each line at most the line
limit (checked while planning, before anything is scored), the same decoder.
A JSON array cannot be split this way and is refused with a one-line error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError
from pathgrade.io.jsonl import (
    JSON_WHITESPACE,
    decode_line,
    line_limit,
    line_too_long,
    skip_bom,
)

_SCAN_BLOCK = 1 << 22  # 4 MiB


@dataclass(frozen=True)
class Partition:
    """The ``index``-th slice of ``path``: JSONL bytes ``[start, end)`` beginning at 1-based
    ``first_line``, or rows ``[start, end)`` of a Parquet row group (numbered from
    ``first_line``)."""

    index: int
    path: str
    kind: str  # "jsonl" | "parquet"
    start: int = 0
    end: int = 0
    first_line: int = 1
    row_groups: tuple[int, ...] = ()


def file_kind(path: str | Path) -> str:
    """``parquet`` for ``.parquet``/``.pq`` files, else ``jsonl``."""
    return "parquet" if str(path).lower().endswith((".parquet", ".pq")) else "jsonl"


def plan_partitions(
    path: str | Path, records_per_partition: int, *, max_line_bytes: int | None = None
) -> list[Partition]:
    """Partitions of about ``records_per_partition`` records each, in file order; a line
    longer than ``max_line_bytes`` (default :func:`~pathgrade.io.jsonl.line_limit`) is an
    error naming it."""
    if records_per_partition < 1:
        raise InputError("partition size must be at least 1", field="partition_size")
    name = str(path)
    if file_kind(path) == "parquet":
        return _plan_parquet(name, records_per_partition)
    limit = line_limit(max_line_bytes)
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 - closed below; error first
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror}", file=name) from None
    partitions: list[Partition] = []
    with handle:
        try:
            offset = skip_bom(handle)
            blocks = iter(lambda: handle.read(_SCAN_BLOCK), b"")
            first_block = next(blocks, b"")
        except OSError as error:  # a directory
            raise InputError(f"cannot read file: {error.strerror}", file=name) from None
        if first_block.lstrip(JSON_WHITESPACE)[:1] == b"[":
            raise InputError(
                "a JSON array cannot be read in partitions (--workers, --partition-size,"
                " --engine dask): write one record a line (JSONL), or score it in memory",
                file=name,
            )
        start, line, lines_in_part, line_start = offset, 1, 0, offset
        part_first_line = 1
        block = first_block
        while block:
            position = 0
            while True:
                newline = block.find(b"\n", position)
                if newline < 0:
                    break
                if offset + newline - line_start > limit:
                    raise line_too_long(limit, name, line)
                lines_in_part += 1
                line += 1
                position = newline + 1
                line_start = offset + position
                if lines_in_part == records_per_partition:
                    end = line_start
                    partitions.append(
                        Partition(len(partitions), name, "jsonl", start, end, part_first_line)
                    )
                    start, lines_in_part, part_first_line = end, 0, line
            offset += len(block)
            if offset - line_start > limit:
                raise line_too_long(limit, name, line)
            block = next(blocks, b"")
        if offset > start:
            partitions.append(
                Partition(len(partitions), name, "jsonl", start, offset, part_first_line)
            )
    if not partitions:
        raise InputError("file is empty", file=name)
    return partitions


def _plan_parquet(name: str, records_per_partition: int) -> list[Partition]:
    """Slices of at most ``records_per_partition`` rows, never across a row group.

    A row group is Parquet's unit of reading, but it may hold far more rows than a partition
    should: a large group is split into several partitions, each reading the group and
    keeping only its slice (``start``/``end`` are row offsets within the group).
    """
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(name).metadata
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read Parquet file: {error}", file=name) from None
    partitions: list[Partition] = []
    first = 1
    for group in range(meta.num_row_groups):
        rows = meta.row_group(group).num_rows
        for offset in range(0, rows, records_per_partition):
            end = min(rows, offset + records_per_partition)
            partitions.append(
                Partition(len(partitions), name, "parquet", offset, end, first + offset, (group,))
            )
        first += rows
    if not partitions:
        raise InputError("file has no rows", file=name)
    return partitions


def read_partition(partition: Partition) -> Iterator[tuple[int, Any]]:
    """``(line, record or InputError)`` for every record of the partition, in order."""
    if partition.kind == "parquet":
        yield from _read_parquet(partition)
        return
    with Path(partition.path).open("rb") as handle:
        handle.seek(partition.start)
        data = handle.read(partition.end - partition.start)
    name = partition.path
    for number, raw in enumerate(data.split(b"\n"), start=partition.first_line):
        body = raw.strip(JSON_WHITESPACE)
        if not body or body.startswith(b"//"):
            continue
        yield number, decode_line(body, name, number)


# The open stream of record batches of the row group this process read last, and the row it
# is at: a large group is split into several partitions, and a worker that scores
# consecutive slices of it reads on from where it stopped, holding a slice at a time.
_STREAMS: dict[tuple[str, float, int], tuple[Iterator[Any], int, Any]] = {}


def _group_slice(path: str, group: int, start: int, end: int) -> Any:
    """Rows ``start:end`` of row group ``group`` of ``path`` as an Arrow table (None: no
    rows), read as a stream of record batches of about ``end - start`` rows: never the
    whole group at once."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    key = (path, Path(path).stat().st_mtime, group)
    stream, at, pending = _STREAMS.pop(key, (None, 0, None))
    if stream is None or at > start:
        _STREAMS.clear()
        file = pq.ParquetFile(path, buffer_size=1 << 20)
        batches = file.iter_batches(max(end - start, 1024), row_groups=[group])
        stream, at, pending = iter(batches), 0, None
    pieces = []
    while at < end:
        batch = pending if pending is not None else next(stream, None)
        pending = None
        if batch is None:
            break
        batch_end = at + batch.num_rows
        if batch_end > start:
            low, high = max(start - at, 0), min(end, batch_end) - at
            pieces.append(batch.slice(low, high - low))
        if batch_end > end:  # the rest of this batch starts the next slice
            pending, at = batch.slice(end - at), end
            break
        at = batch_end
    _STREAMS.clear()
    _STREAMS[key] = (stream, at, pending)
    return pa.Table.from_batches(pieces) if pieces else None


def _read_parquet(partition: Partition) -> Iterator[tuple[int, Any]]:
    (group,) = partition.row_groups
    table = _group_slice(partition.path, group, partition.start, partition.end)
    rows = table.to_pylist() if table is not None else []
    for offset, row in enumerate(rows):
        record = _drop_nulls(row)
        number = partition.first_line + offset
        if isinstance(record, InputError):
            record = InputError(
                record.message, file=partition.path, line=number, field=record.field
            )
        yield number, record


#: Run fields that a Parquet file may hold as JSON text (their shapes vary row to row).
JSON_COLUMNS = frozenset(
    {
        "steps",
        "usage",
        "retrieved",
        "metadata",
        "context",
        "claims",
        "citations",
        "final_state",
        "rubric",
    }
)


def _drop_nulls(row: dict[str, Any]) -> Any:
    """A Parquet row as the JSON record it stands for.

    Parquet has no "absent": missing values come back as null and are dropped; nested
    fields stored as JSON text are decoded (also each step's ``arguments``).
    """
    out: dict[str, Any] = {}
    for key, value in row.items():
        if value is None:
            continue
        if key in JSON_COLUMNS and isinstance(value, str | bytes):
            try:
                value = orjson.loads(value)
            except orjson.JSONDecodeError as error:
                return InputError(f"malformed JSON in column: {error}", field=key)
        if key == "steps" and isinstance(value, list):
            value = [_step(s) for s in value]
        out[key] = value
    return out


def _step(step: Any) -> Any:
    if not isinstance(step, dict):
        return step
    arguments = step.get("arguments")
    if None not in step.values() and not isinstance(arguments, str | bytes):
        return step  # nothing to drop or decode (a step from a JSON text column)
    out = {k: v for k, v in step.items() if v is not None}
    if isinstance(arguments, str | bytes):
        with contextlib.suppress(orjson.JSONDecodeError):  # else validation names the field
            out["arguments"] = orjson.loads(arguments)
    return out
