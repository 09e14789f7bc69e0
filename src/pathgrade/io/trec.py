"""Read TREC qrels and runs (or their JSONL equivalents) into mappings or columns.

TREC qrels: ``qid iter docno rel`` per line. TREC run: ``qid Q0 docno rank score [run_id ...]``
(columns after the sixth are ignored, as trec_eval does; the rank column is ignored in favour
of the score). Blank lines and lines whose first non-blank character is ``#`` are comments; a
``#`` inside a field (MS MARCO v2.1 segment ids) is data.

JSONL (the file's first non-blank, non-comment character is ``{``):

* qrels: ``{"query_id": "q1", "doc_id": "d1", "relevance": 2}`` per judgment, or
  ``{"query_id": "q1", "gold": ["d1", "d2"]}`` / ``{"query_id": "q1", "gold": {"d1": 2}}``;
* runs: ``{"query_id": "q1", "doc_id": "d1", "score": 3.2}`` per result, or
  ``{"query_id": "q1", "retrieved": ["d1", "d2"]}`` (rank order; scores are assigned as
  ``n - position``) or ``[{"id": "d1", "score": 3.2}, ...]``.

Files are UTF-8; a leading byte order mark is skipped (Windows editors write one, and kept it
would become part of the first query id). Lines end at ``\n`` (a ``\r`` before it is
stripped), and a line longer than the line limit (:func:`pathgrade.io.jsonl.line_limit`) is an
error. Columns are separated by runs of ASCII whitespace only (C ``isspace``: space, ``\t``,
``\n``, ``\v``, ``\f``, ``\r``), as trec_eval's tokenizer separates them: any other byte,
a no-break space, U+3000, U+2028 or one of the ASCII separators ``\x1c``-``\x1f`` (which
Python's ``str.split`` would break at), is part of its id, not a column break that would shift
the score column. A qrels or run file without a single judgment or result is an error, not an
empty evaluation.

TREC text files are split with NumPy, a few MiB at a time (:mod:`pathgrade.io.trec_columns`);
a file that the vectorised reader cannot decide (an error anywhere, a NUL or other control
byte, a repeated judgment, a pipe or device rather than a regular file) is read line by line
instead, which names the line of the first error. Both readers give the same result on every
input (property tests check it).
:func:`read_qrels_columns` and :func:`read_run_columns` return the rows as
:class:`~pathgrade.metrics.retrieval.columns.Columns` for
:func:`~pathgrade.metrics.retrieval.batch_columns.from_columns`, without a dict per query.

Every error is an :class:`~pathgrade.core.errors.InputError` naming the file and line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from pathgrade.core.errors import InputError
from pathgrade.io.jsonl import BOM, MAX_LINE_BYTES_ENV, line_limit
from pathgrade.io.trec_columns import QRELS, RUN, Table, read_table
from pathgrade.metrics.retrieval.columns import Columns, distinct

DuplicatePolicy = Literal["first", "error"]
_ASCII_WHITESPACE = " \t\n\r\x0b\x0c"
#: Column breaks: C ``isspace`` (trec_eval's); every other character is part of its column.
_COLUMN_BREAK = re.compile("[ \t\n\r\x0b\x0c]+")
#: Characters that ``str.split()`` breaks at beyond ASCII whitespace, in ASCII text.
_SPLIT_ALSO = re.compile("[\x1c-\x1f]")


@dataclass(frozen=True)
class RunFile:
    """A run as read: ``{query: {doc: score}}`` plus what reading noticed."""

    run: dict[str, dict[str, float]]
    duplicates: int = 0
    run_ids: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class RunColumns:
    """A run as read into columns: each (query, doc) once, plus what reading noticed."""

    columns: Columns
    duplicates: int = 0
    run_ids: tuple[str, ...] = field(default=())


def _qrels_split(path: str | Path) -> Columns | None:
    """The qrels by the vectorised reader, or None (then read line by line)."""
    table = read_table(path, QRELS, line_limit())
    if table is None:
        return None
    if not len(table.rows):
        raise InputError("no judgments: the qrels file is empty", file=str(path))
    # A repeated judgment is an error naming its line: the per-line reader names it.
    return table.rows if table.rows.repeats == 0 else None


def _run_split(path: str | Path, duplicates: DuplicatePolicy) -> tuple[Table, int] | None:
    """The run's rows (repeats kept) and how many repeat, or None (then read line by line)."""
    table = read_table(path, RUN, line_limit())
    if table is None:
        return None
    if not len(table.rows):
        raise InputError("no results: the run file is empty", file=str(path))
    removed = table.rows.repeats
    if removed and duplicates == "error":
        return None  # the per-line reader names the line of the first repeat
    return table, removed


def _lines(path: str | Path) -> Iterator[tuple[int, str]]:
    name = str(path)
    limit = line_limit()
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 - closed by the with below; error first
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", file=name) from None
    with handle:
        readline = handle.readline
        number = 0
        try:
            raw = readline(limit + 1).removeprefix(BOM)
            while raw:
                number += 1
                if len(raw) > limit and raw[-1] != 10:  # 10: b"\n"
                    raise InputError(
                        f"line longer than {limit:,} bytes (set {MAX_LINE_BYTES_ENV} to allow"
                        " longer ones)",
                        file=name,
                        line=number,
                    )
                text = raw.decode("utf-8").strip(_ASCII_WHITESPACE)
                if text and text[0] != "#":
                    yield number, text
                raw = readline(limit + 1)
        except UnicodeDecodeError as error:
            raise InputError(f"not UTF-8 text ({error.reason})", file=name, line=number) from None
        except OSError as error:  # a directory
            raise InputError(f"cannot read: {error.strerror}", file=name) from None


def _fields(text: str) -> list[str]:
    """The columns of a stripped line, split where trec_eval splits them."""
    if text.isascii() and not _SPLIT_ALSO.search(text):
        return text.split()
    return _COLUMN_BREAK.split(text)


def _is_jsonl(path: str | Path) -> bool:
    for _, text in _lines(path):
        return text.startswith("{")
    return False


def _number(text: object, what: str, name: str, line: int) -> float:
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise InputError(f"{what} must be a number, got {text!r}", file=name, line=line)
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{what} must be a number, got {text!r}", file=name, line=line) from None
    if not math.isfinite(value):
        raise InputError(f"{what} must be a finite number, got {text!r}", file=name, line=line)
    return value


def read_qrels(path: str | Path) -> dict[str, dict[str, float]]:
    """Read qrels into ``{query: {doc: gain}}``; a repeated (query, doc) is an error."""
    if not _is_jsonl(path):
        fast = _qrels_split(path)
        if fast is not None:
            return fast.to_mapping("error")
    return _qrels_by_line(path)


def read_qrels_columns(path: str | Path) -> Columns:
    """Read qrels as rows (query, doc, gain): what :func:`read_qrels` reads, as columns."""
    if not _is_jsonl(path):
        fast = _qrels_split(path)
        if fast is not None:
            return fast
    return Columns.from_mapping(_qrels_by_line(path))


def _qrels_by_line(path: str | Path) -> dict[str, dict[str, float]]:
    """The exact reader, one line (or JSON record) at a time."""
    name = str(path)
    qrels: dict[str, dict[str, float]] = {}

    def add(query: str, doc: str, gain: float, line: int) -> None:
        judged = qrels.setdefault(query, {})
        if doc in judged:
            raise InputError(
                f"duplicate judgment for query {query!r}, document {doc!r}", file=name, line=line
            )
        judged[doc] = gain

    if _is_jsonl(path):
        for line, record in _records(path):
            query = _string(record, "query_id", name, line)
            if "gold" in record:
                gold = record["gold"]
                if isinstance(gold, dict):
                    for doc, gain in gold.items():
                        add(query, doc, _number(gain, f"gain of {doc!r}", name, line), line)
                elif isinstance(gold, list) and all(isinstance(d, str) for d in gold):
                    for doc in gold:
                        add(query, doc, 1.0, line)
                else:
                    raise InputError(
                        "'gold' must be a list of ids or {id: gain}",
                        file=name,
                        line=line,
                        field="gold",
                    )
            else:
                doc = _string(record, "doc_id", name, line)
                add(query, doc, _number(record.get("relevance"), "relevance", name, line), line)
        if not qrels:
            raise InputError("no judgments: the qrels file is empty", file=name)
        return qrels
    for line, text in _lines(path):
        fields = _fields(text)
        if len(fields) != 4:
            raise InputError(
                f"expected 4 columns 'qid iter docno rel', got {len(fields)}: {text[:80]!r}",
                file=name,
                line=line,
            )
        add(fields[0], fields[2], _number(fields[3], "relevance", name, line), line)
    if not qrels:
        raise InputError("no judgments: the qrels file is empty", file=name)
    return qrels


def read_run(path: str | Path, *, duplicates: DuplicatePolicy = "first") -> RunFile:
    """Read a run into ``{query: {doc: score}}``.

    A document listed twice for a query keeps its first occurrence in rank order (the higher
    score; on equal scores, the earlier line) and is counted in ``RunFile.duplicates``;
    ``duplicates="error"`` makes it an error naming the line.
    """
    if not _is_jsonl(path):
        fast = _run_split(path, duplicates)
        if fast is not None:
            table, removed = fast
            return RunFile(table.rows.to_mapping("max"), removed, table.tags)
    return _run_by_line(path, duplicates)


def read_run_columns(path: str | Path, *, duplicates: DuplicatePolicy = "first") -> RunColumns:
    """Read a run as rows (query, doc, score), each (query, doc) once with its largest score:
    what :func:`read_run` reads, as columns (in no specified order)."""
    if not _is_jsonl(path):
        fast = _run_split(path, duplicates)
        if fast is not None:
            table, removed = fast
            rows = distinct(table.rows)[0] if removed else table.rows
            return RunColumns(rows, removed, table.tags)
    read = _run_by_line(path, duplicates)
    return RunColumns(Columns.from_mapping(read.run), read.duplicates, read.run_ids)


def _run_by_line(path: str | Path, duplicates: DuplicatePolicy) -> RunFile:
    """The exact reader, one line (or JSON record) at a time."""
    name = str(path)
    run: dict[str, dict[str, float]] = {}
    run_ids: dict[str, None] = {}
    dupes = 0

    def add(query: str, doc: str, score: float, line: int) -> None:
        nonlocal dupes
        ranked = run.setdefault(query, {})
        previous = ranked.get(doc)
        if previous is None:
            ranked[doc] = score
            return
        if duplicates == "error":
            raise InputError(
                f"document {doc!r} listed twice for query {query!r}", file=name, line=line
            )
        dupes += 1
        ranked[doc] = max(previous, score)

    if _is_jsonl(path):
        for line, record in _records(path):
            query = _string(record, "query_id", name, line)
            if "retrieved" in record:
                items = record["retrieved"]
                if not isinstance(items, list):
                    raise InputError(
                        "'retrieved' must be a list", file=name, line=line, field="retrieved"
                    )
                for position, item in enumerate(items):
                    doc, score = _retrieved(item, len(items) - position, name, line)
                    add(query, doc, score, line)
            else:
                doc = _string(record, "doc_id", name, line)
                add(query, doc, _number(record.get("score"), "score", name, line), line)
            if isinstance(record.get("run_id"), str):
                run_ids[record["run_id"]] = None
        if not run:
            raise InputError("no results: the run file is empty", file=name)
        return RunFile(run, dupes, tuple(run_ids))
    for line, text in _lines(path):
        fields = _fields(text)
        if len(fields) < 5:
            raise InputError(
                f"expected 'qid Q0 docno rank score [run_id]', got {len(fields)} columns: "
                f"{text[:80]!r}",
                file=name,
                line=line,
            )
        add(fields[0], fields[2], _number(fields[4], "score", name, line), line)
        if len(fields) > 5:
            run_ids[fields[5]] = None
    if not run:
        raise InputError("no results: the run file is empty", file=name)
    return RunFile(run, dupes, tuple(run_ids))


def read_parent_map(path: str | Path) -> dict[str, str]:
    """Read ``chunk_id parent_id`` lines (whitespace separated, ``#`` comments)."""
    name = str(path)
    parents: dict[str, str] = {}
    for line, text in _lines(path):
        fields = _fields(text)
        if len(fields) != 2:
            raise InputError(
                f"expected 2 columns 'chunk_id parent_id', got {len(fields)}", file=name, line=line
            )
        chunk, parent = fields
        if parents.get(chunk, parent) != parent:
            raise InputError(
                f"chunk {chunk!r} has two parents: {parents[chunk]!r} and {parent!r}",
                file=name,
                line=line,
            )
        parents[chunk] = parent
    return parents


def _records(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    name = str(path)
    for line, text in _lines(path):
        try:
            record = orjson.loads(text)
        except orjson.JSONDecodeError as error:
            raise InputError(f"invalid JSON: {error}", file=name, line=line) from None
        if not isinstance(record, dict):
            raise InputError("each line must be a JSON object", file=name, line=line)
        yield line, record


def _string(record: dict[str, Any], key: str, name: str, line: int) -> str:
    value = record.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value:
        raise InputError(
            f"expected a non-empty string, got {value!r}", file=name, line=line, field=key
        )
    return value


def _retrieved(item: object, default: float, name: str, line: int) -> tuple[str, float]:
    if isinstance(item, str):
        return item, float(default)
    if isinstance(item, dict) and isinstance(item.get("id"), str):
        score = item.get("score")
        return item["id"], float(default) if score is None else _number(score, "score", name, line)
    raise InputError(
        f"a retrieved item must be an id or {{id, score}}, got {item!r}",
        file=name,
        line=line,
        field="retrieved",
    )
