"""A store written by store schema_version 1 (tests/golden/store/v1) still reads, exactly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pathgrade.store import RunStore, query, resolve_results, save_records

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "store" / "v1"


def test_v1_store_reads(tmp_path: Path) -> None:
    store = RunStore(GOLDEN)
    assert store.names() == ["example"]
    stored = store.load("example")
    expected = json.loads((GOLDEN / "example.records.json").read_text("utf-8"))
    assert stored.records == expected
    manifest = stored.manifest
    assert manifest.schema_version == 1
    assert manifest.labels == {"git_commit": "411cefc", "model": "example-model"}
    assert manifest.pathgrade_version == "0.1.0"
    assert set(manifest.inputs) == {"examples/cases.jsonl", "examples/runs.jsonl"}
    assert all(t is not None and "steps" in t for t in stored.traces)
    assert resolve_results("example", GOLDEN) == expected


def test_v1_store_queries_alongside_new_runs(tmp_path: Path) -> None:
    shutil.copy(GOLDEN / "example.parquet", tmp_path / "example.parquet")
    records = resolve_results("example", tmp_path)
    save_records(records, name="new", store=tmp_path)
    rows = query("SELECT run_name, count(*) FROM runs GROUP BY 1 ORDER BY 1", tmp_path).rows
    assert rows == [("example", 8), ("new", 8)]
