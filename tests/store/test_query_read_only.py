"""``runs query`` / ``pathgrade.store.query``: one read-only query over the store's own files
unless ``--unsafe``; JSON output for every DuckDB type."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.cli.main import main
from pathgrade.cli.runs import json_value
from pathgrade.core.errors import InputError
from pathgrade.store import query, save_records


@pytest.fixture
def store(tmp_path: Path) -> Path:
    folder = tmp_path / "store"
    records = [{"case_id": f"c{i}", "metrics": {"path_score": float(i)}} for i in range(4)]
    save_records(records, name="main", store=folder)
    return folder


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.csv"
    secret.write_text("user,password\nroot,hunter2\n")
    return secret


ATTACKS = {
    "read another file": "SELECT * FROM read_csv('{secret}')",
    "read a file by glob": "SELECT * FROM glob('{folder}/*')",
    "read a URL": "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')",
    "copy to a file": "COPY (SELECT * FROM runs) TO '{folder}/stolen.csv'",
    "attach a database": "ATTACH '{folder}/other.duckdb' AS other",
    "several statements": "SELECT 1; SELECT 2",
    "install an extension": "INSTALL httpfs",
    "load an extension": "LOAD httpfs",
    "change a setting": "SET enable_external_access = true",
    "pragma": "PRAGMA enable_profiling",
    "create a table": "CREATE TABLE t AS SELECT * FROM runs",
    "export": "EXPORT DATABASE '{folder}/dump'",
    "explain": "EXPLAIN SELECT 1",
    "a query then a copy": "SELECT 1; COPY (SELECT 1) TO '{folder}/x.csv'",
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_each_attack_is_refused_with_one_line(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], attack: str
) -> None:
    sql = ATTACKS[attack].format(secret=_secret(tmp_path), folder=tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(InputError) as error:
        query(sql, store)
    assert "\n" not in str(error.value) and error.value.field == "sql"
    assert main(["runs", "query", sql, "--store", str(store)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip().count("\n") == 0
    assert "hunter2" not in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing was written


def test_the_views_still_read_and_normal_queries_work(store: Path) -> None:
    result = query(
        'SELECT run_name, count(*), sum("metrics.path_score") FROM runs GROUP BY 1', store
    )
    assert result.rows == [("main", 4, 6.0)]  # 0 + 1 + 2 + 3
    cte = 'WITH s AS (SELECT "metrics.path_score" AS v FROM runs) SELECT max(v) FROM s;'
    assert query(cte, store).rows == [(3.0,)]
    assert query("FROM runs SELECT count(*)", store).rows == [(4,)]
    assert query("VALUES (1, 'a')", store).rows == [(1, "a")]
    described = query("DESCRIBE runs", store)
    assert "metrics.path_score" in [row[0] for row in described.rows]
    # the store's own files may be named directly: they are the only allowed paths
    own = str((store / "main.parquet").absolute())
    assert query(f"SELECT count(*) FROM read_parquet('{own}')", store).rows == [(4,)]


def test_unsafe_lifts_the_limits(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = _secret(tmp_path)
    result = query(f"SELECT * FROM read_csv('{secret}')", store, unsafe=True)
    assert result.rows == [("root", "hunter2")]
    out = tmp_path / "copy.csv"
    sql = f"COPY (SELECT case_id FROM runs ORDER BY 1) TO '{out}' (HEADER false)"
    assert main(["runs", "query", sql, "--store", str(store), "--unsafe"]) == 0
    assert out.read_text().split() == ["c0", "c1", "c2", "c3"]
    assert query("SELECT 1; SELECT 2 AS two", store, unsafe=True).rows == [(2,)]


@pytest.mark.parametrize("sql", ["", "   ", ";", "/* only a comment */"])
def test_an_empty_query_is_a_one_line_error(
    store: Path, capsys: pytest.CaptureFixture[str], sql: str
) -> None:
    for extra in ([], ["--json"], ["--unsafe"]):
        code = main(["runs", "query", sql, "--store", str(store), *extra])
        captured = capsys.readouterr()
        assert code == 2 and captured.err.strip().count("\n") == 0
        assert "no SQL statement given" in captured.err


def test_json_for_types_json_has_not(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sql = (
        "SELECT 1.25::DECIMAL(10,2) AS d, '\\xAA\\xBB'::BLOB AS b, INTERVAL 90 MINUTE AS i,"
        " 170141183460469231731687303715884105727::HUGEINT AS h, 7::HUGEINT AS small,"
        " uuid() IS NOT NULL AS u, DATE '2025-01-31' AS day, [1.5::DECIMAL(4,1)] AS l,"
        " {'k': 2::UHUGEINT} AS s, MAP {1: 'one'} AS m"
    )
    assert main(["runs", "query", sql, "--store", str(store), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["d"] == 1.25
    assert row["b"] == "aabb"
    assert row["i"] == 5400.0  # 90 minutes = 5400 seconds
    assert row["h"] == "170141183460469231731687303715884105727"  # 2**127 - 1: beyond 64 bits
    assert row["small"] == 7
    assert row["u"] is True and row["day"] == "2025-01-31"
    assert row["l"] == [1.5] and row["s"] == {"k": 2} and row["m"] == {"1": "one"}


def test_json_of_an_empty_result(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sql = "SELECT * FROM runs WHERE false"
    assert main(["runs", "query", sql, "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**130), max_value=2**130)
    | st.floats(allow_nan=True)
    | st.text(max_size=5)
    | st.binary(max_size=5)
    | st.decimals(allow_nan=False, allow_infinity=False, places=3)
    | st.timedeltas()
    | st.dates()
    | st.uuids(),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(values)
def test_every_value_writes_as_json(value: Any) -> None:
    text = orjson.dumps(json_value(value), option=orjson.OPT_NON_STR_KEYS)
    back = orjson.loads(text)
    if isinstance(value, int) and not isinstance(value, bool):
        assert back == (value if -(2**63) <= value < 2**64 else str(value))
    if isinstance(value, bytes):
        assert back == value.hex()
    if isinstance(value, dt.timedelta):
        assert back == value.total_seconds()
    if isinstance(value, decimal.Decimal):
        assert back == float(value)
    if isinstance(value, uuid.UUID):
        assert back == str(value)
