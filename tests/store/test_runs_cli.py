"""``pathgrade score --save``, ``runs list|show|rm|add|query``, stored names in compare/gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade.cli.main import main

from .conftest import EXAMPLES

CASES, RUNS, CONFIG = (
    EXAMPLES / "cases.jsonl",
    EXAMPLES / "runs.jsonl",
    EXAMPLES / "pathgrade.toml",
)


def _score_save(store: Path, name: str, *labels: str) -> int:
    args = ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--json"]
    args += ["--save", name, "--store", str(store)]
    for label in labels:
        args += ["--label", label]
    return main(args)


def test_score_save_then_list_show_rm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _score_save(tmp_path, "main", "model=m1", "git_commit=abc") == 0
    capsys.readouterr()
    assert main(["runs", "list", "--store", str(tmp_path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [m["name"] for m in listed] == ["main"]
    assert listed[0]["labels"] == {"model": "m1", "git_commit": "abc"}
    assert len(listed[0]["inputs"]) == 3  # cases, runs, config
    assert main(["runs", "show", "main", "--store", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "model" in shown and "path_score" in shown
    assert main(["runs", "rm", "main", "--store", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["runs", "list", "--store", str(tmp_path)]) == 0
    assert "no stored runs" in capsys.readouterr().out


def test_save_refuses_an_existing_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _score_save(tmp_path, "main") == 0
    assert _score_save(tmp_path, "main") == 2
    assert "already stored" in capsys.readouterr().err


def test_store_from_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATHGRADE_STORE", str(tmp_path / "env-store"))
    assert main(["score", str(CASES), str(RUNS), "--json", "--save", "e"]) == 0
    assert (tmp_path / "env-store" / "e.parquet").is_file()


def test_compare_and_gate_take_stored_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATHGRADE_STORE", str(tmp_path))
    assert _score_save(tmp_path, "main") == 0
    results = tmp_path / "pr.jsonl"
    args = ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--out", str(results)]
    assert main(args) == 0
    assert main(["runs", "add", "pr-42", str(results), "--label", "pr=42"]) == 0
    capsys.readouterr()
    assert main(["compare", "main", "pr-42", "--json", "--resamples", "200"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["paired_cases"] == 4
    gates = tmp_path / "gates.toml"
    gates.write_text('[[gate]]\nmetric = "path_score"\nrule = "not_below_baseline"\n')
    code = main(["gate", str(gates), "--baseline", "main", "--variant", "pr-42", "--json"])
    assert code == 0, capsys.readouterr()
    assert main(["compare", "main", "missing-run"]) == 2
    assert "no stored run named 'missing-run'" in capsys.readouterr().err


def test_runs_query(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _score_save(tmp_path, "main") == 0
    capsys.readouterr()
    sql = "SELECT run_name, count(*) AS n FROM runs GROUP BY 1"
    assert main(["runs", "query", sql, "--store", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"run_name": "main", "n": 8}]
