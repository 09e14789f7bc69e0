"""Every record carries its provenance, from every writer path, and reads back."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest

import pathgrade
from pathgrade.cli.main import main
from pathgrade.cli.score import score_to_records
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import (
    SEMANTICS_VERSION,
    UNKNOWN,
    Provenance,
    records_provenance,
    short_hash,
)
from pathgrade.core.record_provenance import cases_hash, config_hash
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.config import load_config
from pathgrade.io.results import ResultRecord, read_results, records_jsonl, validate_record
from pathgrade.io.results.schema import RECORD_FIELDS
from pathgrade.store import RunStore, save_records

ROOT = Path(__file__).resolve().parents[3]
CASES = ROOT / "examples" / "cases.jsonl"
RUNS = ROOT / "examples" / "runs.jsonl"
CONFIG = ROOT / "examples" / "pathgrade.toml"
V1 = ROOT / "tests" / "golden" / "results" / "v1.jsonl"


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16]


def _expected(variables: dict[str, str] | None = None) -> dict[str, Any]:
    """What `pathgrade score CASES RUNS --config CONFIG` records: the hashes by hand."""
    config = load_config(CONFIG)
    body = config.model_dump_json(exclude={"compare"}).encode()
    return {
        "semantics": SEMANTICS_VERSION,
        "config": _sha(body),
        "cases": _sha(CASES.read_bytes()),
        "pathgrade": pathgrade.__version__,
        "variables": variables or {},
    }


def test_provenance_is_the_last_field_and_optional() -> None:
    assert RECORD_FIELDS[-1] == "provenance"
    bare = {"case_id": "c", "metrics": {}}
    assert msgspec.convert(bare, ResultRecord).provenance is None
    assert records_provenance([validate_record(bare, file="f", line=1)]) == UNKNOWN
    bad = {**bare, "provenance": {"semantics": 2, "variables": {"model": 1}}}
    with pytest.raises(InputError) as info:
        validate_record(bad, file="f.jsonl", line=4)
    assert (info.value.line, info.value.field) == (4, "provenance.variables")


def test_v1_golden_records_have_unknown_provenance() -> None:
    records = read_results(V1)
    assert all("provenance" not in r for r in records)
    assert records_provenance(records, file=str(V1)) == UNKNOWN


def test_score_out_records_the_inputs_hashes_and_labels(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    argv = ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--out", str(out)]
    assert main([*argv, "--label", "prompt_version=p7", "--label", "seed=3"]) == 0
    records = read_results(out)
    expected = _expected({"prompt_version": "p7", "seed": "3"})
    assert all(r["provenance"] == expected for r in records)
    assert list(records[0])[-1] == "provenance"


def test_every_writer_path_writes_the_same_provenance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["score", str(CASES), str(RUNS), "--config", str(CONFIG)]
    memory, parts = tmp_path / "memory.jsonl", tmp_path / "parts.jsonl"
    assert main([*base, "--out", str(memory)]) == 0
    assert main([*base, "--out", str(parts), "--workers", "2", "--partition-size", "3"]) == 0
    capsys.readouterr()
    assert main([*base, "--json"]) == 0
    document = orjson.loads(capsys.readouterr().out)
    on_the_fly = score_to_records(CASES, RUNS, CONFIG)  # compare --cases
    expected = _expected()
    for records in (read_results(memory), read_results(parts), document["results"], on_the_fly):
        assert [r["provenance"] for r in records] == [expected] * 8


def test_tools_file_hash_is_the_tool_schema_variable(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    # refund takes any arguments (the example references call it positionally: refund:A17)
    tools.write_bytes(b'[{"type": "function", "function": {"name": "refund", "parameters": {}}}]')
    out = tmp_path / "r.jsonl"
    argv = ["score", str(CASES), str(RUNS), "--tools", str(tools), "--out", str(out)]
    assert main(argv) == 0
    variables = read_results(out)[0]["provenance"]["variables"]
    assert variables == {"tool_schema": _sha(tools.read_bytes())}
    # a label overrides what pathgrade found
    assert main([*argv, "--label", "tool_schema=v2"]) == 0
    assert read_results(out)[0]["provenance"]["variables"] == {"tool_schema": "v2"}


def _model_runs(tmp_path: Path) -> Path:
    """The example runs, half of them recording model m1 in their metadata (as ingest does)."""
    lines = []
    for i, line in enumerate(RUNS.read_bytes().splitlines()):
        run = orjson.loads(line)
        if i % 2 == 0:
            run["metadata"] = {"model": "m1"}
        lines.append(orjson.dumps(run))
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_a_runs_trace_model_is_its_model_variable_unless_labelled(tmp_path: Path) -> None:
    runs = _model_runs(tmp_path)
    out = tmp_path / "r.jsonl"
    assert main(["score", str(CASES), str(runs), "--out", str(out)]) == 0
    models = [r["provenance"]["variables"].get("model") for r in read_results(out)]
    assert models == ["m1", None] * 4
    # the in-memory bytes equal the partitioned path's (one text per distinct model)
    parts = tmp_path / "parts.jsonl"
    argv = ["score", str(CASES), str(runs), "--out", str(parts), "--partition-size", "3"]
    assert main(argv) == 0
    assert [r["provenance"] for r in read_results(parts)] == [
        r["provenance"] for r in read_results(out)
    ]
    assert main(["score", str(CASES), str(runs), "--out", str(out), "--label", "model=m9"]) == 0
    assert {r["provenance"]["variables"]["model"] for r in read_results(out)} == {"m9"}


def test_api_records_the_canonical_cases_hash_and_writer_bytes_match() -> None:
    cases = load_cases(CASES).items
    by_id = {c.case_id: c for c in cases}
    runs = load_runs(RUNS, by_id).items
    result = pathgrade.score(by_id, runs)
    first = result[0]
    assert first.provenance == Provenance(
        SEMANTICS_VERSION,
        short_hash(config_hash(ScoringConfig())),
        short_hash(cases_hash(reversed(cases))),  # the order of the cases does not matter
        pathgrade.__version__,
        {},
    )
    lines = records_jsonl(result, runs).splitlines()
    assert lines == [orjson.dumps(r.to_dict()) for r in result]  # the writer's bytes


def test_the_store_keeps_provenance_and_the_manifest_its_variables(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    store = tmp_path / "store"
    argv = ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--out", str(out)]
    argv += ["--label", "seed=3", "--save", "run1", "--store", str(store)]
    assert main(argv) == 0
    stored = RunStore(store).load("run1")
    assert stored.records == read_results(out)  # provenance and all, in the schema's order
    assert stored.manifest.variables == {"seed": "3"}
    assert stored.manifest.config_hash is not None
    assert short_hash(stored.manifest.config_hash) == stored.records[0]["provenance"]["config"]
    # a v1 results file stored keeps no provenance (and none is invented)
    save_records(read_results(V1), name="old", store=store)
    old = RunStore(store).load("old")
    assert all("provenance" not in r for r in old.records)
    assert old.manifest.variables == {}
