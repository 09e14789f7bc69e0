"""The run store: round trip, manifest, immutability, names, env, SQL, resolving names."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pathgrade._version import __version__
from pathgrade.core.errors import InputError
from pathgrade.io.results import write_results
from pathgrade.store import (
    STORE_SCHEMA_VERSION,
    RunStore,
    parse_labels,
    query,
    resolve_results,
    save_records,
    save_scored,
    store_path,
)
from pathgrade.store.manifest import MANIFEST_KEY

from .conftest import EXAMPLES, Scored


def _save(scored: Scored, store: Path, name: str = "main") -> Path:
    return save_scored(
        scored.result,
        name=name,
        runs=scored.runs,
        cases=scored.cases,
        config=scored.config,
        labels={"model": "m1", "git_commit": "abc123"},
        inputs=[EXAMPLES / "cases.jsonl"],
        store=store,
    )


def test_round_trip_gives_back_the_result_records(scored: Scored, tmp_path: Path) -> None:
    path = _save(scored, tmp_path)
    assert path == tmp_path / "main.parquet"
    stored = RunStore(tmp_path).load("main")
    assert stored.records == [r.to_dict() for r in scored.result]
    # bool and count metrics come back typed, undefined stays None
    first = stored.records[0]["metrics"]
    assert isinstance(first["goal_success"], bool)
    assert isinstance(first["redundant_steps"], int)
    trace = stored.traces[1]
    assert trace is not None
    assert [s["tool"] for s in trace["steps"]][:2] == ["lookup_order", "lookup_order"]
    assert trace["reference"][0] == {"tool": "lookup_order", "arguments": ["A17"]}


def test_manifest_carries_provenance(scored: Scored, tmp_path: Path) -> None:
    _save(scored, tmp_path)
    manifest = RunStore(tmp_path).manifest("main")
    assert manifest.schema_version == STORE_SCHEMA_VERSION
    assert manifest.pathgrade_version == __version__
    assert manifest.config_hash is not None and manifest.config_hash.startswith("sha256:")
    assert manifest.inputs[str(EXAMPLES / "cases.jsonl")].startswith("sha256:")
    assert manifest.labels == {"model": "m1", "git_commit": "abc123"}
    assert manifest.runs == len(scored.result)
    assert manifest.metrics["goal_success"] == "bool"
    assert manifest.summary["runs"] == len(scored.result)
    assert manifest.created.endswith("+00:00")
    raw = pq.read_schema(tmp_path / "main.parquet").metadata[MANIFEST_KEY]
    assert b'"schema_version":1' in raw


def test_runs_are_immutable_and_removable(scored: Scored, tmp_path: Path) -> None:
    _save(scored, tmp_path)
    before = (tmp_path / "main.parquet").read_bytes()
    with pytest.raises(InputError, match="already stored"):
        _save(scored, tmp_path)
    assert (tmp_path / "main.parquet").read_bytes() == before
    store = RunStore(tmp_path)
    store.remove("main")
    assert store.names() == []
    with pytest.raises(InputError, match="no stored run named 'main'"):
        store.load("main")


@pytest.mark.parametrize("name", ["", "../x", "a/b", ".hidden", "x.parquet", "a b", "é"])
def test_invalid_names_are_rejected(scored: Scored, tmp_path: Path, name: str) -> None:
    with pytest.raises(InputError, match="invalid run name"):
        _save(scored, tmp_path, name)


def test_labels_parse() -> None:
    assert parse_labels(["model=gpt-x", "note=a=b", "empty="]) == {
        "model": "gpt-x",
        "note": "a=b",
        "empty": "",
    }
    with pytest.raises(InputError, match="key=value"):
        parse_labels(["no-equals"])


def test_store_folder_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PATHGRADE_STORE", raising=False)
    assert store_path() == Path(".pathgrade") / "runs"
    monkeypatch.setenv("PATHGRADE_STORE", str(tmp_path))
    assert store_path() == tmp_path
    assert store_path(tmp_path / "other") == tmp_path / "other"


def test_sql_across_runs(scored: Scored, tmp_path: Path) -> None:
    _save(scored, tmp_path, "a")
    _save(scored, tmp_path, "b")
    result = query(
        'SELECT run_name, count(*) AS n, avg("metrics.path_score") AS mean FROM runs'
        " GROUP BY run_name ORDER BY run_name",
        tmp_path,
    )
    assert result.columns == ["run_name", "n", "mean"]
    assert [r[:2] for r in result.rows] == [("a", 8), ("b", 8)]
    assert result.rows[0][2] == pytest.approx(scored.result.summary()["path_score"])
    kinds = query(
        "SELECT count(*) FROM runs WHERE list_contains(defect_kinds, 'wasted_step')", tmp_path
    )
    assert kinds.rows[0][0] > 0
    with pytest.raises(InputError, match="query failed"):
        query("SELECT nope FROM runs", tmp_path)


def test_query_on_an_empty_store(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="empty"):
        query("SELECT 1", tmp_path)


def test_resolve_results_file_or_name(scored: Scored, tmp_path: Path) -> None:
    records = [r.to_dict() for r in scored.result]
    results = tmp_path / "results.jsonl"
    write_results(results, records)
    store = tmp_path / "store"
    _save(scored, store)
    assert resolve_results(results, store) == records
    assert resolve_results("main", store) == records
    with pytest.raises(InputError, match="no results file and no stored run named 'nope'"):
        resolve_results("nope", store)


def test_save_records_without_traces(scored: Scored, tmp_path: Path) -> None:
    records = [r.to_dict() for r in scored.result]
    save_records(records, name="plain", store=tmp_path)
    stored = RunStore(tmp_path).load("plain")
    assert stored.records == records
    assert stored.traces == [None] * len(records)
    assert stored.manifest.metrics["goal_success"] == "bool"


def test_newer_schema_is_refused_with_a_clear_error(scored: Scored, tmp_path: Path) -> None:
    path = _save(scored, tmp_path)
    table = pq.read_table(path)
    metadata = dict(table.schema.metadata)
    metadata[MANIFEST_KEY] = metadata[MANIFEST_KEY].replace(
        b'"schema_version":1', b'"schema_version":99'
    )
    pq.write_table(table.replace_schema_metadata(metadata), tmp_path / "future.parquet")
    with pytest.raises(InputError, match="unsupported store schema_version 99"):
        RunStore(tmp_path).load("future")


def test_runs_that_do_not_line_up_are_an_error(scored: Scored, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="line up"):
        save_scored(scored.result, name="x", runs=scored.runs[:2], store=tmp_path)
