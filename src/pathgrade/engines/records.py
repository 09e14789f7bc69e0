"""Result records (JSONL) straight from a :class:`~pathgrade.core.results.ScoreResult`'s
columns, without a :class:`~pathgrade.core.results.RunResult` or a dict per run.

The bytes are those of ``orjson.dumps(result[i].to_dict())`` (what ``pathgrade score --out``
writes), one line per run, built a field at a time for all the runs and joined by Arrow's
string kernels:

- a column of numbers (a metric, the trials, the reference indices, the step counts) is
  written by one ``orjson.dumps`` of the whole column (as :func:`json_column` gives it, so
  each value's text is orjson's), then cut at its commas, which no number contains;
- ids are written by ``orjson.dumps`` each;
- each run's defects and alignment are the JSON text ``ScoreResult.defects_json`` and
  ``ScoreResult.alignments_json`` build column-wise (a result without them has each run's
  objects serialised by orjson: the defects' dicts, and the alignment entries as
  dataclasses, whose fields are the keys of ``AlignedStep.to_dict``, in order);
- a run's ``usage`` when it records none (no ``usage``, no step with tokens, cost or latency)
  is its step count and three nulls; otherwise ``result.usage``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import chain
from operator import attrgetter
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pathgrade.core.results import FloatArray, MetricKind, ScoreResult
from pathgrade.core.types import Run
from pathgrade.metrics.json_text import TEXT, text_array, text_piece


def json_column(values: FloatArray, kind: MetricKind) -> list[Any]:
    """``[json_value(v, kind) for v in values]``, a column at a time."""
    column = values
    if kind == "count":
        defined = ~np.isnan(values)
        ints = np.zeros(values.shape, np.int64)
        ints[defined] = values[defined]
        column = ints  # type: ignore[assignment]
    out: list[Any] = column.tolist()
    undefined = np.flatnonzero(np.isnan(values)).tolist()
    if kind == "bool":
        out = [v != 0.0 for v in out]
    for position in undefined:
        out[position] = None
    return out


def colon_values(values: Sequence[Any]) -> pa.Array:
    """``b":" + orjson.dumps(v)`` for each of ``values`` (numbers, booleans, None), as one
    Arrow array: the whole list is dumped once and cut where its commas were."""
    if not values:
        return pa.array([], TEXT)
    body = b"," + orjson.dumps(list(values))[1:-1]
    cuts = np.flatnonzero(np.frombuffer(body, np.uint8) == ord(","))
    if cuts.size != len(values):
        raise ValueError("colon_values takes numbers, booleans and None only")
    offsets = np.append(cuts, len(body)).astype(np.int64)
    data = body.replace(b",", b":")
    return pa.Array.from_buffers(
        TEXT, len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


_STEP_USAGE = attrgetter("tokens", "cost", "latency_ms")
_UNKNOWN = frozenset({(None, None, None)})
_RUN_USAGE = attrgetter("usage")
_RUN_STEPS = attrgetter("steps")


def _unrecorded_usage(runs: Sequence[Run]) -> bool:
    """Whether no run records any usage (no ``usage``, no step with tokens, cost or
    latency): checked for all the runs at once."""
    if any(map(_RUN_USAGE, runs)):
        return False
    steps = list(chain.from_iterable(map(_RUN_STEPS, runs)))
    # Pooled steps recur: each distinct object is read once.
    distinct = dict(zip(map(id, steps), steps, strict=True)).values()
    return set(map(_STEP_USAGE, distinct)) <= _UNKNOWN


def _usage_column(result: ScoreResult, runs: Sequence[Run] | None) -> pa.Array:
    """Each run's ``usage`` object as JSON text."""
    if runs is not None and _unrecorded_usage(runs):
        steps = colon_values([len(run.steps) for run in runs])
        return pc.binary_join_element_wise(
            text_piece(b'{"steps"'),
            steps,
            text_piece(b',"tokens":null,"cost":null,"latency_ms":null}'),
            text_piece(b""),
        )
    return text_array([orjson.dumps(dict(result.usage(i))) for i in range(len(result))])


def _explanations(result: ScoreResult, defects: Counter[str]) -> tuple[pa.Array, pa.Array]:
    """Each run's defects and alignment as JSON text (column-wise when the result can give
    them so, else from each run's objects); the kinds of the defects are counted into
    ``defects``."""
    dumps, empty = orjson.dumps, b"[]"
    n = len(result)
    defect_texts: list[bytes] = [empty] * n
    if result.defects_json is not None and result.alignments_json is not None:
        texts, kinds = result.defects_json()
        defects.update(kinds)
        return text_array(texts), text_array(result.alignments_json())
    alignment_texts: list[bytes] = []
    for i in range(n):
        found, alignment = result.details(i)
        if found:
            defects.update(d.kind for d in found)
            defect_texts[i] = dumps([d.to_dict() for d in found])
        alignment_texts.append(dumps(alignment))
    return text_array(defect_texts), text_array(alignment_texts)


def write_records(
    result: ScoreResult, defects: Counter[str], runs: Sequence[Run] | None = None
) -> bytes:
    """The JSONL records of ``result`` (each line ending in a newline); the kinds of the
    defects written are counted into ``defects``. With the scored ``runs``, the usage of
    runs that record none is written without asking ``result.usage``."""
    if not len(result):
        return b""
    dumps = orjson.dumps
    references = [None if i < 0 else i for i in result.reference_index.tolist()]
    defect_texts, alignment_texts = _explanations(result, defects)
    pieces: list[pa.Array | pa.Scalar] = [
        text_piece(b'{"schema_version":1,"case_id":'),
        text_array(list(map(dumps, result.case_ids))),
        text_piece(b',"run_id":'),
        text_array(list(map(dumps, result.run_ids))),
        text_piece(b',"trial"'),
        colon_values(result.trials),
        text_piece(b',"group":'),
        text_array(list(map(dumps, result.groups))),
        text_piece(b',"reference_index"'),
        colon_values(references),
        text_piece(b',"metrics":{'),
    ]
    for k, (name, values) in enumerate(result.metrics.items()):
        pieces.append(text_piece((b"," if k else b"") + dumps(name)))
        pieces.append(colon_values(json_column(values, result.kinds[name])))
    pieces += [
        text_piece(b'},"defects":'),
        defect_texts,
        text_piece(b',"alignment":'),
        alignment_texts,
        text_piece(b',"usage":'),
        _usage_column(result, runs),
        text_piece(b"}\n"),
        text_piece(b""),  # the separator
    ]
    lines = pc.binary_join_element_wise(*pieces)
    bounds = np.frombuffer(lines.buffers()[1], np.int64)
    first, last = int(bounds[lines.offset]), int(bounds[lines.offset + len(lines)])
    text: bytes = lines.buffers()[2].slice(first, last - first).to_pybytes()
    return text
