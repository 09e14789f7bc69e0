"""Arize Phoenix span exports: the spans dataframe as Parquet, and Phoenix's span JSONL.

Parquet (``client.spans.get_spans_dataframe().to_parquet(...)``, or a saved
``TraceDataset``): one span per row, with the columns ``name``, ``span_kind``,
``parent_id``, ``start_time``, ``end_time`` (timestamps, or ISO-8601 / nanosecond values),
``status_code`` (``OK``, ``ERROR``, ``UNSET``), ``status_message``, ``context.span_id``,
``context.trace_id`` (hex) and one ``attributes.<name>`` column per attribute (lists of
structs for messages and documents, structs for decoded JSON such as ``metadata``; an
``attributes`` column of structs is read too). ``span_kind`` stands in for
``openinference.span.kind`` when that attribute is absent. Rows are then OpenInference spans
(:mod:`pathgrade.io.ingest.openinference`). A bad value is an error naming the file, the
row (1-based, in the line position) and the column. Parquet is recognised by its ``PAR1``
magic bytes; it is read with ``pyarrow``, imported only then.

JSONL (Phoenix's ``spans_to_jsonl``: ``{"name", "context": {"trace_id", "span_id"},
"span_kind", "parent_id", "start_time", "end_time", "status_code", "status_message",
"attributes": {nested}}`` per line) is flat span JSON, read by the OpenInference reader.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest import openinference
from pathgrade.io.ingest._common import MAX_NESTING, At, IngestOptions, kind, read_head, text
from pathgrade.io.ingest.spans import Span, time_ns

NAME = "phoenix"
MAGIC = b"PAR1"
_HEX = re.compile(r"[0-9a-fA-F]+")
_UNITS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
_ATTRIBUTES = "attributes."
BATCH_ROWS = 1024


def sniff(head: bytes | str) -> bool:
    """A Parquet file (its ``PAR1`` magic)."""
    return isinstance(head, bytes) and head.startswith(MAGIC)


def plain(value: Any, depth: int = 0) -> Any:
    """A Parquet value as JSON data: dicts, lists, strings, finite numbers, booleans, None.

    Map entries (``(key, value)`` pairs) become a dict; bytes are decoded as UTF-8 (bad
    bytes replaced); times and dates become ISO-8601 text; NaN and infinities, and values
    nested deeper than :data:`MAX_NESTING`, become ``None``; anything else its text.
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth >= MAX_NESTING:
        return None
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return {str(k): plain(v, depth + 1) for k, v in value}
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def _hex_id(value: Any, size: int, at: At) -> str:
    if not isinstance(value, str) or not value:
        raise at.error(f"{at.path} is missing or not a string (got {kind(value)})")
    digits = value[2:] if value.startswith("0x") else value
    if len(digits) != size or not _HEX.fullmatch(digits):
        raise at.error(f"{at.path} must be {size} hex digits, got {value[:40]!r}")
    return digits.lower()


def _time(value: Any, at: At) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise at.error(f"{at.path} must be a time, got {kind(value)}")
    return time_ns(value, at)


def row_span(record: Mapping[str, Any], at: At, order: int) -> Span:
    """One dataframe row as a span (``record``: column -> plain value)."""
    attributes: dict[str, Any] = {}
    nested = record.get("attributes")
    if isinstance(nested, dict):
        attributes.update(nested)
    for column, value in record.items():
        if column.startswith(_ATTRIBUTES):
            attributes[column[len(_ATTRIBUTES) :]] = value
    flat = openinference.flat_attributes(attributes)
    span_kind = record.get("span_kind")
    if isinstance(span_kind, str) and span_kind and openinference.KIND not in flat:
        flat[openinference.KIND] = span_kind
    parent = record.get("parent_id")
    error = None
    if record.get("status_code") == "ERROR":
        message = record.get("status_message")
        error = message if isinstance(message, str) and message else "error"
    return Span(
        trace_id=_hex_id(record.get("context.trace_id"), 32, at.key("context.trace_id")),
        span_id=_hex_id(record.get("context.span_id"), 16, at.key("context.span_id")),
        parent_id=_hex_id(parent, 16, at.key("parent_id")) if parent else None,
        name=text(record.get("name"), at.key("name")) or "",
        start_ns=_time(record.get("start_time"), at.key("start_time")),
        end_ns=_time(record.get("end_time"), at.key("end_time")),
        attributes=flat,
        error=error,
        line=at.line,
        order=order,
    )


def _records(path: str | Path) -> Iterator[dict[str, Any]]:
    """The rows of a Parquet file as plain dicts (timestamps as unix nanoseconds)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        raise InputError("reading Parquet needs pyarrow", file=str(path)) from None
    name = str(path)
    try:
        handle = pq.ParquetFile(path)
        missing = [
            c for c in ("context.span_id", "context.trace_id") if c not in handle.schema_arrow.names
        ]
        if missing:
            raise InputError(
                f"not a Phoenix spans export: no {' or '.join(missing)} column", file=name
            )
        row = 0
        for batch in handle.iter_batches(batch_size=BATCH_ROWS):
            columns: dict[str, list[Any]] = {}
            for column_name, column in zip(batch.schema.names, batch.columns, strict=True):
                if pa.types.is_timestamp(column.type):
                    factor = _UNITS[column.type.unit]
                    ticks = column.cast(pa.int64()).to_pylist()
                    columns[column_name] = [None if t is None else t * factor for t in ticks]
                else:
                    columns[column_name] = column.to_pylist()
            for index in range(batch.num_rows):
                row += 1
                yield {k: v[index] for k, v in columns.items()} | {"__row__": row}
    except (pa.ArrowException, OSError, ValueError, TypeError, KeyError) as error:
        if isinstance(error, InputError):
            raise
        raise InputError(
            f"not a readable Parquet file ({type(error).__name__}: {str(error)[:200]})", file=name
        ) from None


def parquet_spans(path: str | Path, options: IngestOptions) -> Iterator[Span]:
    """Every span (row) of a Phoenix spans Parquet file; bad rows go to ``options``."""
    name = str(path)
    order = 0
    for record in _records(path):
        row = record.pop("__row__")
        options.line = row
        try:
            span = row_span({str(k): plain(v) for k, v in record.items()}, At(name, row), order)
        except InputError as error:
            options.fail(error)
            continue
        order += 1
        yield span


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """The runs of a Phoenix export, one per trace: Parquet, else JSONL (flat span JSON)."""
    options = options or IngestOptions()
    if not sniff(read_head(path, len(MAGIC))):
        yield from openinference.read(path, options)
        return
    yield from openinference.runs_of_spans(parquet_spans(path, options), options, file=str(path))
