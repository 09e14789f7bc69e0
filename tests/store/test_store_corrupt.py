"""Store contents are untrusted: a corrupt file, a bad manifest or a copied file is one
warning or one-line error, and hides nothing else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pyarrow.parquet as pq
import pytest

from pathgrade.cli.main import main
from pathgrade.core.errors import InputError
from pathgrade.store import RunStore, query, save_records
from pathgrade.store.manifest import MANIFEST_KEY
from pathgrade.store.table import records_table


def _records(n: int, value: float = 1.0) -> list[dict[str, Any]]:
    return [{"case_id": f"c{i}", "metrics": {"path_score": value}} for i in range(n)]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    save_records(_records(3, 1.0), name="alpha", store=tmp_path)
    save_records(_records(2, 0.0), name="omega", store=tmp_path)
    return tmp_path


def _write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    table = records_table(path.stem, _records(1), {"path_score": "score"})
    table = table.replace_schema_metadata({MANIFEST_KEY: orjson.dumps(manifest)})
    pq.write_table(table, path)


def _scramble_data(path: Path) -> None:
    """Garble the column data but keep the footer: the schema reads, the rows do not."""
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little") + 8
    for i in range(4, len(data) - footer):
        data[i] = (data[i] * 7 + 13) % 256
    path.write_bytes(bytes(data))


def test_a_truncated_file_is_listed_as_corrupt_and_hides_nothing(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (store / "broken.parquet").write_bytes((store / "alpha.parquet").read_bytes()[:300])
    assert main(["runs", "list", "--store", str(store)]) == 0
    captured = capsys.readouterr()
    assert "alpha" in captured.out and "omega" in captured.out and "broken" in captured.out
    warnings = captured.err.strip().splitlines()
    assert len(warnings) == 1 and "broken.parquet" in warnings[0] and "corrupt" in warnings[0]
    assert main(["runs", "list", "--store", str(store), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in listed] == ["alpha", "broken", "omega"]
    assert "corrupt" in listed[1]["corrupt"] and "runs" not in listed[1]


def test_query_skips_a_corrupt_file_with_a_warning(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (store / "broken.parquet").write_bytes(b"PAR1 not really")
    sql = "SELECT run_name, count(*) AS n FROM runs GROUP BY 1 ORDER BY 1"
    result = query(sql, store)
    assert result.rows == [("alpha", 3), ("omega", 2)]
    assert len(result.warnings) == 1 and "broken.parquet" in result.warnings[0]
    assert main(["runs", "query", sql, "--store", str(store), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == [
        {"run_name": "alpha", "n": 3},
        {"run_name": "omega", "n": 2},
    ]
    assert captured.err.count("\n") == 1 and "broken.parquet" in captured.err


def test_query_skips_a_file_whose_data_is_corrupt(store: Path) -> None:
    save_records(_records(3000, 0.5), name="garbled", store=store)
    _scramble_data(store / "garbled.parquet")
    assert [e.name for e in RunStore(store).scan() if e.manifest] == ["alpha", "garbled", "omega"]
    result = query('SELECT count(*), sum("metrics.path_score") FROM runs', store)
    # alpha: 3 rows of 1.0, omega: 2 rows of 0.0; garbled left out -> 5 rows, sum 3.0
    assert result.rows == [(5, 3.0)]
    assert len(result.warnings) == 1 and "garbled.parquet" in result.warnings[0]
    with pytest.raises(InputError, match="corrupt stored run"):
        RunStore(store).load("garbled")


@pytest.mark.parametrize(
    ("manifest", "field"),
    [
        ({"schema_version": 1, "name": "x", "metrics": {}, "runs": "many"}, "runs"),
        ({"schema_version": 1, "name": "x", "metrics": {}, "runs": True}, "runs"),
        ({"schema_version": 1, "name": "x", "metrics": ["path_score"]}, "metrics"),
        ({"schema_version": 1, "name": "x", "metrics": {"m": 3}}, "metrics.m"),
        ({"schema_version": 1, "name": 7, "metrics": {}}, "name"),
        ({"schema_version": 1, "name": "x", "metrics": {}, "labels": "a=b"}, "labels"),
        ({"schema_version": 1, "name": "x", "metrics": {}, "inputs": {"f": None}}, "inputs.f"),
        ({"schema_version": 1, "name": "x", "metrics": {}, "summary": [1]}, "summary"),
        ({"schema_version": 1, "name": "x", "metrics": {}, "config_hash": 5}, "config_hash"),
        ({"schema_version": 1, "name": "x", "metrics": {}, "created": 1.5}, "created"),
        ({"schema_version": True, "name": "x", "metrics": {}}, "schema_version"),
    ],
)
def test_manifest_with_wrong_types_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], manifest: dict[str, Any], field: str
) -> None:
    _write_manifest(tmp_path / "x.parquet", manifest)
    with pytest.raises(InputError) as error:
        RunStore(tmp_path).manifest("x")
    assert error.value.field == field and "\n" not in str(error.value)
    assert main(["runs", "show", "x", "--store", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"field '{field}'" in err
    assert main(["runs", "list", "--store", str(tmp_path)]) == 0  # listed as not listable
    assert f"field '{field}'" in capsys.readouterr().err


def test_a_copied_file_is_not_a_second_run(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (store / "alpha-copy.parquet").write_bytes((store / "alpha.parquet").read_bytes())
    target = RunStore(store)
    assert [m.name for m in target.manifests()] == ["alpha", "omega"]
    assert main(["runs", "list", "--store", str(store), "--json"]) == 0
    captured = capsys.readouterr()
    listed = json.loads(captured.out)
    assert [e["name"] for e in listed if "corrupt" not in e] == ["alpha", "omega"]
    assert "alpha-copy.parquet" in captured.err and "holds the run 'alpha'" in captured.err
    result = query("SELECT run_name, count(*) FROM runs GROUP BY 1 ORDER BY 1", store)
    assert result.rows == [("alpha", 3), ("omega", 2)]  # not 6 rows of alpha
    assert any("alpha-copy.parquet" in w for w in result.warnings)
    with pytest.raises(InputError, match="copied or renamed"):
        target.load("alpha-copy")


def test_a_parquet_file_without_manifest(store: Path) -> None:
    pq.write_table(
        records_table("stray", _records(1), {"path_score": "score"}), store / "stray.parquet"
    )
    entry = next(e for e in RunStore(store).scan() if e.name == "stray")
    assert entry.manifest is None and entry.problem is not None
    assert "no manifest" in entry.problem
    assert query("SELECT count(*) FROM runs", store).rows == [(5,)]


def test_a_store_of_only_corrupt_files(tmp_path: Path) -> None:
    (tmp_path / "bad.parquet").write_bytes(b"junk")
    with pytest.raises(InputError, match="empty"):
        query("SELECT 1 FROM runs", tmp_path)
