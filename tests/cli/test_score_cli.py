"""``pathgrade score``: exit codes, the JSON document, results file, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade.cli.main import main
from pathgrade.io.results import read_results

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases.jsonl"
RUNS = ROOT / "examples" / "runs.jsonl"
CONFIG = ROOT / "examples" / "pathgrade.toml"


def test_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--json"])
    assert code == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"summary", "results"}
    assert document["summary"]["runs"] == 8
    first = document["results"][0]
    assert set(first) >= {
        "case_id",
        "run_id",
        "trial",
        "reference_index",
        "metrics",
        "defects",
        "alignment",
    }
    scores = {r["run_id"]: r["metrics"]["path_score"] for r in document["results"]}
    assert scores["A"] == 100 and scores["B"] == 70 and scores["C"] == 100 and scores["D"] == 60


def test_table_and_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results.jsonl"
    code = main(["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "Summary over 4 cases (8 runs)" in printed and "path_score" in printed
    records = read_results(out)
    assert len(records) == 8 and records[0]["schema_version"] == 1


def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"case_id": "refund-A17"}\n{"case_id": "ghost"}\n')
    code = main(["score", str(CASES), str(runs)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == (
        f"pathgrade: error: {runs}:2: field 'case_id': unknown case_id 'ghost'"
        " (no such case in the cases file)"
    )
    assert "Traceback" not in err


def test_skip_invalid_scores_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"case_id": "refund-A17", "steps": ["lookup_order:A17"]}\n{"case_id": }\n')
    code = main(["score", str(CASES), str(runs), "--skip-invalid", "--json"])
    captured = capsys.readouterr()
    assert code == 0
    summary = json.loads(captured.out)["summary"]
    assert summary["runs"] == 1 and summary["skipped"]["count"] == 1
    assert "skipped 1 invalid record" in captured.err


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(CASES)]) == 2
    assert main(["score", str(CASES), str(RUNS), "--no-such-flag"]) == 2


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tmp_path / "none.jsonl"), str(RUNS)]) == 2
    assert "cannot read file" in capsys.readouterr().err


def test_compare_scores_cases_and_runs_on_the_fly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = tmp_path / "variant.jsonl"
    variant.write_text(
        '{"case_id": "refund-A17", "run_id": "A", "steps": '
        '["lookup_order:A17", "refund:A17", "send_message:A17"]}\n'
    )
    code = main(
        ["compare", str(RUNS), str(variant), "--cases", str(CASES), "--json", "-m", "path_score"]
    )
    assert code == 0
    document = json.loads(capsys.readouterr().out)
    # refund-A17 has runs A-D in the baseline: 100, 70, 100 (second reference) and 60
    assert document["paired_cases"] == 1
    assert document["metrics"]["path_score"]["baseline"] == pytest.approx(82.5)
    assert document["metrics"]["path_score"]["variant"] == 100.0


def test_in_memory_and_partitioned_paths_write_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole, parts = tmp_path / "whole.jsonl", tmp_path / "parts.jsonl"
    base = ["score", str(CASES), str(RUNS), "--config", str(CONFIG)]
    assert main([*base, "--out", str(whole)]) == 0
    # One partition (a partition whose runs have no gold answer leaves the answer metrics
    # out of its records, which the whole file's records carry as null)
    assert main([*base, "--out", str(parts), "--partition-size", "1000"]) == 0
    assert whole.read_bytes() == parts.read_bytes()  # one writer: the same bytes
    capsys.readouterr()
    assert main([*base, "--json"]) == 0
    in_memory = json.loads(capsys.readouterr().out)
    assert main([*base, "--json", "--partition-size", "1000"]) == 0
    partitioned = json.loads(capsys.readouterr().out)
    assert in_memory["results"] == partitioned["results"] == read_results(whole)
    # refund-A17 run B: one wasted lookup_order and over budget; the defect counts agree
    assert in_memory["summary"]["defects"] == partitioned["summary"]["defects"]
    assert in_memory["summary"]["defects"]["over_budget"] >= 1
