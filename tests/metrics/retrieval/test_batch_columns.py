"""from_columns builds, array for array, the batch from_run builds from the same rows as dicts.

Differential (hypothesis) over random qrels and runs: small id and score alphabets so that
documents are shared, scores tie (broken by id, byte order = code-point order, with non-ASCII
ids) and queries go missing on either side; the run's rows in dict order (one run of rows a
query: the layout read without sorting), shuffled and with repeated rows (the sorted layout),
as object arrays (ids too long for a fixed width), and with every hash equal (each key
collides: the dict path), with and without ``parent_of``.
"""

from __future__ import annotations

import random
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.metrics.retrieval import columns as columns_module
from pathgrade.metrics.retrieval.batch import RankedBatch, from_run
from pathgrade.metrics.retrieval.batch_columns import from_columns
from pathgrade.metrics.retrieval.columns import Columns, distinct, id_array
from pathgrade.metrics.retrieval.evaluate import evaluate, evaluate_batch

QUERIES = st.sampled_from(["q1", "q2", "q10", "é", "日本"])
DOCS = st.sampled_from(
    ["a", "b", "B", "c#1", "d\u00a0x", "é", "ü", "日", "zz", "long_document_id_9"]
)
GAINS = st.sampled_from([-1.0, 0.0, 1.0, 2.0, 3.0])
SCORES = st.sampled_from([0.0, -0.0, 1.0, 1.5, 2.0, -3.0, 7.25])
QRELS = st.dictionaries(QUERIES, st.dictionaries(DOCS, GAINS, min_size=1), max_size=5)
RUNS = st.dictionaries(QUERIES, st.dictionaries(DOCS, SCORES, min_size=1), max_size=5)

FIELDS = ("query_ids", "not_in_gold", "duplicates_removed")
ARRAYS = ("hit_pos", "hit_gain", "n_ret", "gold", "in_run")


def assert_same(got: RankedBatch, want: RankedBatch) -> None:
    for name in FIELDS:
        assert getattr(got, name) == getattr(want, name), name
    for name in ARRAYS:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and a.shape == b.shape, (name, a.shape, b.shape)
        assert np.array_equal(a, b, equal_nan=True), name


def rows(
    mapping: dict[str, dict[str, float]], order: list[int] | None = None, objects: bool = False
) -> Columns:
    """The mapping's rows as columns, optionally in another order or as object arrays."""
    flat = [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]
    if order is not None:
        flat = [flat[i] for i in order]

    def ids(values: list[bytes]) -> np.ndarray:
        if not objects:
            return id_array(values)
        out = np.empty(len(values), object)
        out[:] = values
        return out

    return Columns(
        ids([q.encode() for q, _, _ in flat]),
        ids([d.encode() for _, d, _ in flat]),
        np.asarray([v for _, _, v in flat], np.float64),
    )


@settings(max_examples=300, deadline=None)
@given(QRELS, RUNS)
def test_from_columns_equals_from_run(
    qrels: dict[str, dict[str, float]], run: dict[str, dict[str, float]]
) -> None:
    want = from_run(qrels, run)
    assert_same(from_columns(Columns.from_mapping(qrels), Columns.from_mapping(run)), want)


@settings(max_examples=300, deadline=None)
@given(QRELS, RUNS, st.randoms(use_true_random=False), st.integers(0, 4))
def test_shuffled_and_repeated_rows_take_the_sorted_layout(
    qrels: dict[str, dict[str, float]],
    run: dict[str, dict[str, float]],
    rng: random.Random,
    repeats: int,
) -> None:
    """Rows in any order, some repeated with a lower score: the largest score is kept."""
    columns = rows(run)
    order = list(range(len(columns)))
    rng.shuffle(order)
    extra = [rng.randrange(len(columns)) for _ in range(repeats)] if len(columns) else []
    query = np.concatenate([columns.query[order], columns.query[extra]])
    doc = np.concatenate([columns.doc[order], columns.doc[extra]])
    value = np.concatenate([columns.value[order], columns.value[extra] - 1.0])
    shuffled = Columns(query, doc, value)
    assert shuffled.repeats == len(extra)
    assert shuffled.to_mapping("max") == run
    assert_same(from_columns(Columns.from_mapping(qrels), shuffled), from_run(qrels, run))
    unique, removed = distinct(shuffled)
    assert removed == len(extra) and unique.to_mapping("max") == run


@settings(max_examples=150, deadline=None)
@given(QRELS, RUNS)
def test_object_arrays_and_colliding_hashes_take_the_dict_path(
    qrels: dict[str, dict[str, float]], run: dict[str, dict[str, float]]
) -> None:
    want = from_run(qrels, run)
    as_objects = rows(run, objects=True)
    assert as_objects.doc.dtype == object and not as_objects.fixed
    assert_same(from_columns(Columns.from_mapping(qrels), as_objects), want)
    zero = np.zeros
    with mock.patch.object(columns_module, "doc_hash", lambda ids: zero(ids.size, np.uint64)):
        assert_same(from_columns(Columns.from_mapping(qrels), Columns.from_mapping(run)), want)
        shuffled = rows(run, list(range(len(rows(run))))[::-1])
        assert_same(from_columns(Columns.from_mapping(qrels), shuffled), want)


@settings(max_examples=100, deadline=None)
@given(QRELS, RUNS, st.dictionaries(DOCS, st.sampled_from(["P1", "P2", "a"]), max_size=4))
def test_parent_of_is_the_dict_path(
    qrels: dict[str, dict[str, float]], run: dict[str, dict[str, float]], parents: dict[str, str]
) -> None:
    got = from_columns(Columns.from_mapping(qrels), Columns.from_mapping(run), parent_of=parents)
    assert_same(got, from_run(qrels, run, parent_of=parents))


def test_ties_are_broken_by_id_descending_in_code_point_order() -> None:
    """Scores all 1: trec_eval ranks by docno descending (strcmp on UTF-8 = code points):
    'é' (U+00E9) > 'z' > 'b' > 'a' > 'B' (U+0042), so gold 'é' and 'a' are at ranks 0 and 3
    (0-based). precision@1 = 1 ('é' first); AP = (1/1 + 2/4) / 2 = 0.75."""
    qrels = {"q": {"a": 1.0, "é": 1.0}}
    run = {"q": {"a": 1.0, "B": 1.0, "b": 1.0, "z": 1.0, "é": 1.0}}
    batch = from_columns(Columns.from_mapping(qrels), Columns.from_mapping(run))
    assert batch.hit_pos.tolist() == [[0, 3]]
    result = evaluate_batch(batch, ["precision@1", "ap"])
    assert result.summary() == pytest.approx({"precision@1": 1.0, "ap": 0.75})
    assert result.summary() == evaluate(qrels, run, ["precision@1", "ap"]).summary()


def test_errors_are_those_of_the_dict_path() -> None:
    qrels = Columns.from_mapping({"q": {"a": 1.0}})
    nan_run = Columns.from_mapping({"q": {"a": float("nan")}})
    with pytest.raises(InputError, match="a run score is NaN"):
        from_columns(qrels, nan_run)
    # a NaN score of a query the qrels do not have is ignored, as from_run ignores it
    other = Columns.from_mapping({"q": {"a": 1.0}, "x": {"b": float("nan")}})
    assert from_columns(qrels, other).not_in_gold == ("x",)
    twice = Columns(id_array([b"q", b"q"]), id_array([b"a", b"a"]), np.array([1.0, 2.0]))
    with pytest.raises(InputError, match="duplicate judgment for query 'q', document 'a'"):
        from_columns(twice, nan_run)  # the qrels are read first, as the dict path reads them


def test_empty_sides() -> None:
    empty: dict[str, dict[str, float]] = {}
    full = {"q": {"a": 1.0}}
    for qrels, run in ((empty, full), (full, empty), (empty, empty)):
        got = from_columns(Columns.from_mapping(qrels), Columns.from_mapping(run))
        assert_same(got, from_run(qrels, run))
