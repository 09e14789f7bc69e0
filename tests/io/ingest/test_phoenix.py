"""Phoenix spans exports as Parquet: rows to spans, bad values to one-line errors."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import (
    FORMATS,
    IngestOptions,
    detect,
    ingest,
    openinference,
    phoenix,
    run_record,
)

TRACE = "0af7651916cd43dd8448eb211c80319c"
T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
REAL = Path(__file__).resolve().parents[2] / "golden" / "ingest" / "producers"


def columns(**extra: list[Any]) -> dict[str, list[Any]]:
    """Three spans of one trace: a CHAIN root, a RETRIEVER, a failed TOOL (dataframe columns)."""
    base: dict[str, list[Any]] = {
        "name": ["rag", "kb", "lookup"],
        "span_kind": ["CHAIN", "RETRIEVER", "TOOL"],
        "parent_id": [None, "00000000000000a1", "00000000000000a1"],
        "start_time": [
            T0.replace(microsecond=0),
            T0.replace(microsecond=1000),
            T0.replace(microsecond=5000),
        ],
        "end_time": [
            T0.replace(second=1),
            T0.replace(microsecond=3000),
            T0.replace(microsecond=9000),
        ],
        "status_code": ["OK", "OK", "ERROR"],
        "status_message": ["", "", "order not found"],
        "context.span_id": ["00000000000000a1", "00000000000000a2", "00000000000000a3"],
        "context.trace_id": [TRACE] * 3,
        "attributes.output.value": ["It is paid.", None, None],
        "attributes.input.value": [None, "refunds", '{"id": 7}'],
        "attributes.input.mime_type": [None, None, "application/json"],
        "attributes.tool.name": [None, None, "lookup"],
        "attributes.retrieval.documents": [
            None,
            [
                {"document.id": None, "document.metadata": {"id": "kb-1"}, "document.score": 0.5},
                {"document.id": "kb-2", "document.metadata": None, "document.score": float("nan")},
            ],
            None,
        ],
    }
    base.update(extra)
    return base


def write(path: Path, data: dict[str, list[Any]], **options: Any) -> Path:
    pq.write_table(pa.table(data), path, **options)
    return path


def test_rows_read_to_a_run(tmp_path: Path) -> None:
    path = write(tmp_path / "spans.parquet", columns(), coerce_timestamps="ms")
    assert detect(path).name == "phoenix"
    (run,) = list(phoenix.read(path))
    assert run.run_id == TRACE and run.answer == "It is paid."
    assert [(s.tool, s.arguments, s.output, s.error) for s in run.steps] == [
        ("kb", {"query": "refunds"}, ["kb-1", "kb-2"], None),  # the id of kb-1 is in its metadata
        ("lookup", {"id": 7}, None, "order not found"),
    ]
    # a NaN score is no score; times at millisecond precision: the tool ran 5 to 9 ms
    assert [(d.id, d.score) for d in run.retrieved or ()] == [("kb-1", 0.5), ("kb-2", None)]
    assert run.steps[1].latency_ms == pytest.approx(4.0)
    assert run.usage is not None and run.usage.latency_ms == pytest.approx(1000.0)
    # --from openinference reads it too
    assert [r.run_id for r in openinference.read(path)] == [TRACE]


def test_times_as_text_and_the_kind_attribute(tmp_path: Path) -> None:
    data = columns(
        start_time=[
            "2024-05-01T10:00:00+00:00",
            "2024-05-01T10:00:00.001+00:00",
            "1714557600005000000",
        ],
        end_time=["2024-05-01T10:00:01Z", None, "1714557600009000000"],
        span_kind=["UNKNOWN", "UNKNOWN", "UNKNOWN"],  # the attribute wins over the column
        **{"attributes.openinference.span.kind": ["CHAIN", "RETRIEVER", "TOOL"]},
    )
    (run,) = list(phoenix.read(write(tmp_path / "t.parquet", data)))
    assert [s.tool for s in run.steps] == ["kb", "lookup"]
    assert run.steps[1].latency_ms == pytest.approx(4.0)  # 9 ms - 5 ms


def test_the_real_export_reads_like_the_jsonl_export() -> None:
    parquet = {r.run_id: r for r in phoenix.read(REAL / "openinference_phoenix_spans.parquet")}
    jsonl = {r.run_id: r for r in openinference.read(REAL / "openinference_phoenix_spans.jsonl")}
    assert sorted(parquet) == sorted(jsonl)
    for run_id, run in parquet.items():
        other = jsonl[run_id]
        assert [
            s.model_dump(exclude={"latency_ms", "start_time", "end_time"}) for s in run.steps
        ] == [s.model_dump(exclude={"latency_ms", "start_time", "end_time"}) for s in other.steps]
        assert (run.answer, run.retrieved) == (other.answer, other.retrieved)


@pytest.mark.parametrize(
    ("change", "row", "field", "message"),
    [
        (
            {"context.span_id": ["00000000000000a1", "xyz", "00000000000000a3"]},
            2,
            "context.span_id",
            "16 hex digits",
        ),
        ({"context.trace_id": [TRACE, TRACE, None]}, 3, "context.trace_id", "missing"),
        ({"parent_id": [None, "00000000000000a1", "a1"]}, 3, "parent_id", "16 hex digits"),
        ({"name": [1, 2, 3]}, 1, "name", "expected a string, got a number"),
        ({"start_time": [True, False, True]}, 1, "start_time", "must be a time, got a boolean"),
        ({"end_time": ["soon", "soon", "soon"]}, 1, "end_time", "not an ISO-8601 time"),
    ],
)
def test_a_bad_value_names_file_row_and_column(
    tmp_path: Path, change: dict[str, list[Any]], row: int, field: str, message: str
) -> None:
    path = write(tmp_path / "bad.parquet", columns(**change))
    with pytest.raises(InputError, match=message) as caught:
        list(phoenix.read(path))
    error = caught.value
    assert (error.file, error.line, error.field) == (str(path), row, field)
    assert "\n" not in str(error)
    options = IngestOptions(skip_invalid=True)  # each bad row is skipped, the others read
    list(phoenix.read(path, options))
    bad_rows = [
        i + 1
        for i, v in enumerate(change[next(iter(change))])
        if v != columns()[next(iter(change))][i]
    ]
    assert [(e.line, e.field) for e in options.skipped] == [(r, field) for r in bad_rows]


def test_a_file_that_is_not_a_phoenix_export(tmp_path: Path) -> None:
    other = write(tmp_path / "other.parquet", {"a": [1, 2]})
    with pytest.raises(InputError, match=r"no context\.span_id or context\.trace_id column"):
        list(phoenix.read(other))
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1" + b"\x00" * 64)
    with pytest.raises(InputError, match="not a readable Parquet file") as caught:
        list(ingest([broken]))
    assert caught.value.file == str(broken) and "\n" not in str(caught.value)
    real = (REAL / "openinference_phoenix_spans.parquet").read_bytes()
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(real[: len(real) // 2])
    with pytest.raises(InputError, match="not a readable Parquet file"):
        list(phoenix.read(cut))


def test_the_jsonl_export_is_read_by_the_phoenix_format_too(tmp_path: Path) -> None:
    path = REAL / "openinference_phoenix_spans.jsonl"
    assert [r.run_id for r in FORMATS["phoenix"].read(path, None)] == [
        r.run_id for r in openinference.read(path)
    ]


@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-(2**63), 2**64 - 1)  # what Parquet's int64 and uint64 hold
        | st.floats()
        | st.text(max_size=4)
        | st.binary(max_size=4)
        | st.datetimes(),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.text(max_size=3), inner, max_size=3)
            | st.lists(st.tuples(st.text(max_size=3), inner), min_size=1, max_size=2)
        ),
        max_leaves=8,
    )
)
@settings(max_examples=200, deadline=None)
def test_plain_values_are_json_data(value: Any) -> None:
    plain = phoenix.plain(value)
    assert orjson.loads(orjson.dumps(plain)) == plain  # JSON types only, finite numbers
    if isinstance(value, float):
        assert plain == (value if math.isfinite(value) else None)


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(),
    st.text(max_size=8),
    st.sampled_from(
        ["00000000000000a9", TRACE, "2024-05-01T10:00:00Z", "ERROR", "TOOL", "{", "[1]"]
    ),
    st.lists(st.text(max_size=3), max_size=2),
    st.dictionaries(
        st.sampled_from(["document.id", "message.role", "x"]), st.text(max_size=3), max_size=2
    ),
)


@given(st.data())
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_any_column_of_any_type_gives_runs_or_an_input_error(
    tmp_path: Path, data: st.DataObject
) -> None:
    # A column of the three-span table replaced by values of random types (pyarrow infers
    # the column type; values it cannot put in one column are skipped): only InputError.
    table = columns()
    column = data.draw(st.sampled_from(sorted(table)), label="column")
    values = data.draw(st.lists(VALUES, min_size=3, max_size=3), label="values")
    table[column] = values
    path = tmp_path / "fuzz.parquet"
    try:
        pq.write_table(pa.table(table), path)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return  # not a table pyarrow can write
    for skip in (False, True):
        try:
            found = list(phoenix.read(path, IngestOptions(skip_invalid=skip)))
        except InputError as error:
            assert "\n" not in str(error) and error.file == str(path)
            continue
        for run in found:
            orjson.dumps(run_record(run))
