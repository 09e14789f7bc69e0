"""Writing result records: JSONL straight from a :class:`~pathgrade.core.results.ScoreResult`'s
columns, without a :class:`~pathgrade.core.results.RunResult` or a dict per run.

The records are those of :mod:`~pathgrade.io.results.schema`, one line per run, keys in the
schema's order, and the bytes are those of ``orjson.dumps(result[i].to_dict())``. They are
built a field at a time for a chunk of runs (:data:`CHUNK_RUNS`) and joined by Arrow's
string kernels:

- a column of numbers (a metric, the trials, the reference indices, the step counts) is
  written by one ``orjson.dumps`` of the whole column, then cut at its commas
  (:func:`~pathgrade.io.results.text.colon_values`);
- ids are written by ``orjson.dumps`` each;
- each run's defects and alignment are built from the columns the trajectory layer hands
  over (:mod:`~pathgrade.io.results.details`); a result without them has each run's
  objects serialised by orjson;
- a run's ``usage`` when it records none (no ``usage``, no step with tokens, cost or
  latency) is its step count and three nulls; otherwise ``result.usage``;
- ``provenance`` (last; only when the result records one, as :func:`pathgrade.score`'s
  always do) is one text for all the runs, or one per distinct trace model.

The in-memory command (``pathgrade score --out``, ``--json``, ``--save``) and every engine's
partitions write through :func:`iter_records_jsonl`, so their records are the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa

from pathgrade.core.explanations import AlignmentColumns, DefectColumns
from pathgrade.core.record_provenance import RecordProvenance
from pathgrade.core.results import FloatArray, MetricKind, ScoreResult
from pathgrade.core.types import Run
from pathgrade.io.results.details import AlignmentText, DefectsText
from pathgrade.io.results.schema import RECORD_FIELDS, SCHEMA_VERSION, UsageRecord
from pathgrade.io.results.text import colon_values, joined, json_column, text_array, text_piece

_STEP_USAGE = attrgetter("tokens", "cost", "latency_ms")
_UNKNOWN = frozenset({(None, None, None)})
_RUN_USAGE = attrgetter("usage")
_RUN_STEPS = attrgetter("steps")
#: The usage of a run that records none, after its step count.
_NO_USAGE = b"".join(b',"%s":null' % name.encode() for name in UsageRecord.__struct_fields__[1:])


def _unrecorded_usage(runs: Sequence[Run]) -> bool:
    """Whether no run records any usage (no ``usage``, no step with tokens, cost or
    latency): checked for all the runs at once."""
    if any(map(_RUN_USAGE, runs)):
        return False
    steps = list(chain.from_iterable(map(_RUN_STEPS, runs)))
    # Pooled steps recur: each distinct object is read once.
    distinct = dict(zip(map(id, steps), steps, strict=True)).values()
    return set(map(_STEP_USAGE, distinct)) <= _UNKNOWN


class _Usage:
    """Each run's ``usage`` object as JSON text: for runs that record none (known for all
    the scored ``runs`` at once), their step counts and three nulls; else ``result.usage``."""

    def __init__(self, result: ScoreResult, runs: Sequence[Run] | None) -> None:
        self._result = result
        self._steps: list[int] | None = None
        if runs is not None and _unrecorded_usage(runs):
            self._steps = [len(run.steps) for run in runs]

    def runs(self, start: int, stop: int) -> pa.Array:
        """The text of runs ``start`` to ``stop - 1``."""
        if self._steps is not None:
            steps = colon_values(self._steps[start:stop])
            return joined([text_piece(b'{"steps"'), steps, text_piece(_NO_USAGE + b"}")])
        usage = self._result.usage
        return text_array([orjson.dumps(dict(usage(i))) for i in range(start, stop)])


class _ObjectDetails:
    """Each run's defects and alignment as JSON text, from its objects (a result without
    the columns)."""

    def __init__(self, result: ScoreResult) -> None:
        self._result = result

    def runs(self, start: int, stop: int) -> tuple[pa.Array, pa.Array]:
        """The texts of runs ``start`` to ``stop - 1``: defects, alignment."""
        dumps = orjson.dumps
        defect_texts, alignment_texts = [], []
        for i in range(start, stop):
            found, alignment = self._result.details(i)
            defect_texts.append(dumps([d.to_dict() for d in found]))
            alignment_texts.append(dumps([a.to_dict() for a in alignment]))
        return text_array(defect_texts), text_array(alignment_texts)


class _ColumnDetails:
    """Each run's defects and alignment as JSON text, from the result's columns (the
    alignments' made for each range of runs)."""

    def __init__(
        self, defects: DefectColumns, alignment: Callable[[int, int], AlignmentColumns]
    ) -> None:
        self._defects = DefectsText(defects)
        self._alignment = alignment

    def runs(self, start: int, stop: int) -> tuple[pa.Array, pa.Array]:
        """The texts of runs ``start`` to ``stop - 1``: defects, alignment."""
        alignment = AlignmentText(self._alignment(start, stop))
        return self._defects.runs(start, stop), alignment.runs(start, stop)


class _ProvenanceText:
    """Each run's ``,"provenance":{...}`` text: one for all the runs, or one per distinct
    model the runs' traces record (made once each)."""

    def __init__(self, provenance: RecordProvenance) -> None:
        self._provenance = provenance
        self._texts: dict[str | None, bytes] = {}

    def _text(self, index: int) -> bytes:
        model = self._provenance.model(index)
        text = self._texts.get(model)
        if text is None:
            value = orjson.dumps(self._provenance(index).to_dict())
            text = self._texts[model] = _key("provenance") + b":" + value
        return text

    def runs(self, start: int, stop: int) -> pa.Array | pa.Scalar:
        """The texts of runs ``start`` to ``stop - 1``."""
        if not self._provenance.models:
            return text_piece(self._text(start))
        return text_array([self._text(i) for i in range(start, stop)])


def _key(name: str, first: bool = False) -> bytes:
    """``,"name"`` (``{"name"`` for the first key): a key of the record, checked against the
    schema, before its value's ``:``."""
    if name not in RECORD_FIELDS:
        raise KeyError(name)
    return (b"{" if first else b",") + orjson.dumps(name)


#: Runs written per chunk (the text of one chunk is held at a time: about 3 KB a run).
CHUNK_RUNS = 4096


def iter_records_jsonl(
    result: ScoreResult, runs: Sequence[Run] | None = None, chunk_runs: int = CHUNK_RUNS
) -> Iterator[bytes]:
    """The JSONL records of ``result`` (each line ending in a newline), ``chunk_runs`` runs
    at a time. With the scored ``runs``, the usage of runs that record none is written
    without asking ``result.usage``."""
    n = len(result)
    if not n:
        return
    details: _ColumnDetails | _ObjectDetails = _ObjectDetails(result)
    if result.defect_columns is not None and result.alignment_columns is not None:
        details = _ColumnDetails(result.defect_columns(), result.alignment_columns)
    usage = _Usage(result, runs)
    provenance = None if result.provenance is None else _ProvenanceText(result.provenance)
    references = [None if i < 0 else i for i in result.reference_index.tolist()]
    metrics = [
        (text_piece((b"," if k else b"") + orjson.dumps(name)), values, result.kinds[name])
        for k, (name, values) in enumerate(result.metrics.items())
    ]
    for start in range(0, n, chunk_runs):
        stop = min(n, start + chunk_runs)
        yield _chunk(result, start, stop, references, metrics, details, usage, provenance)


def _optional_texts(
    found: Mapping[int, Mapping[str, Any]], name: str, start: int, stop: int
) -> pa.Array | pa.Scalar:
    """``,"NAME":{...}`` of the runs that have an entry in ``found`` (``reference_branch``
    of the runs scored against a grammar reference, ``conversation`` of the runs with turns),
    nothing for the others."""
    if not found or not any(r in found for r in range(start, stop)):
        return text_piece(b"")
    key = _key(name) + b":"
    return text_array(
        [key + orjson.dumps(found[r]) if r in found else b"" for r in range(start, stop)]
    )


def _chunk(
    result: ScoreResult,
    start: int,
    stop: int,
    references: list[int | None],
    metrics: list[tuple[pa.Scalar, FloatArray, MetricKind]],
    details: _ColumnDetails | _ObjectDetails,
    usage: _Usage,
    provenance: _ProvenanceText | None,
) -> bytes:
    """The records of runs ``start`` to ``stop - 1``."""
    dumps = orjson.dumps
    defect_texts, alignment_texts = details.runs(start, stop)
    pieces: list[pa.Array | pa.Scalar] = [
        text_piece(_key("schema_version", first=True) + b":%d" % SCHEMA_VERSION),
        text_piece(_key("case_id") + b":"),
        text_array(list(map(dumps, result.case_ids[start:stop]))),
        text_piece(_key("run_id") + b":"),
        text_array(list(map(dumps, result.run_ids[start:stop]))),
        text_piece(_key("trial")),
        colon_values(result.trials[start:stop]),
        text_piece(_key("group") + b":"),
        text_array(list(map(dumps, result.groups[start:stop]))),
        text_piece(_key("reference_index")),
        colon_values(references[start:stop]),
        _optional_texts(result.reference_branch, "reference_branch", start, stop),
        _optional_texts(result.conversation, "conversation", start, stop),
        text_piece(_key("metrics") + b":{"),
    ]
    for name, values, kind in metrics:
        pieces.append(name)
        pieces.append(colon_values(json_column(values[start:stop], kind)))
    pieces += [
        text_piece(b"}" + _key("defects") + b":"),
        defect_texts,
        text_piece(_key("alignment") + b":"),
        alignment_texts,
        text_piece(_key("usage") + b":"),
        usage.runs(start, stop),
        text_piece(b"") if provenance is None else provenance.runs(start, stop),
        text_piece(b"}\n"),
    ]
    lines = joined(pieces)
    bounds = np.frombuffer(lines.buffers()[1], np.int64)
    first, last = int(bounds[lines.offset]), int(bounds[lines.offset + len(lines)])
    text: bytes = lines.buffers()[2].slice(first, last - first).to_pybytes()
    return text


def records_jsonl(result: ScoreResult, runs: Sequence[Run] | None = None) -> bytes:
    """The JSONL records of ``result``, all at once (see :func:`iter_records_jsonl`)."""
    return b"".join(iter_records_jsonl(result, runs))


def write_jsonl(path: str | Path, records: bytes | Iterable[bytes]) -> int:
    """Write JSONL ``records`` (as :func:`records_jsonl` or, chunk by chunk,
    :func:`iter_records_jsonl` gives them) to ``path`` atomically (a temporary file, then a
    rename); returns the number of records."""
    chunks = [records] if isinstance(records, bytes) else records
    return _atomic(path, chunks)


def write_results(path: str | Path, records: Iterable[Mapping[str, Any]]) -> int:
    """Write records that exist as objects already (read from a results file or a stored
    run) to ``path`` as JSONL, atomically; returns the number of records. Scored results
    are written by :func:`write_jsonl` from their columns."""
    dumps, option = orjson.dumps, orjson.OPT_SERIALIZE_NUMPY
    return _atomic(path, (dumps(record, option=option) + b"\n" for record in records))


def _atomic(path: str | Path, chunks: Iterable[bytes]) -> int:
    """Write ``chunks`` to a temporary file beside ``path``, then rename it to ``path``;
    the number of lines written."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    count = 0
    with tmp.open("wb") as handle:
        for chunk in chunks:
            handle.write(chunk)
            count += chunk.count(b"\n")
    tmp.replace(target)
    return count
