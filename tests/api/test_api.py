"""The Python API is the command line's: each function gives what its command prints (the
JSON documents compared whole), returns typed results, and prints nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

import pathgrade
from pathgrade.api import CompareResult, FilesScore, GateOutcome, Ingested
from pathgrade.cli.main import main
from pathgrade.core.errors import InputError
from pathgrade.gates import GateReport
from pathgrade.io.ingest import run_record
from pathgrade.report.page_data import ReportData

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases.jsonl"
RUNS = ROOT / "examples" / "runs.jsonl"
VARIANT = ROOT / "examples" / "runs_variant.jsonl"
CONFIG = ROOT / "examples" / "pathgrade.toml"
GATES = ROOT / "examples" / "gates.toml"
MESSAGES = ROOT / "tests" / "golden" / "ingest" / "openai_messages.jsonl"


def _json(capsys: pytest.CaptureFixture[str], args: list[str], code: int = 0) -> Any:
    capsys.readouterr()
    assert main(args) == code
    return json.loads(capsys.readouterr().out)


def _silent(capsys: pytest.CaptureFixture[str]) -> None:
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The example runs and the variant runs, scored with the example config."""
    folder = tmp_path_factory.mktemp("results")
    paths = folder / "base.jsonl", folder / "variant.jsonl"
    for runs, out in zip((RUNS, VARIANT), paths, strict=True):
        argv = ["score", str(CASES), str(runs), "--config", str(CONFIG), "--out", str(out)]
        assert main([*argv, "--json"]) == 0
    return paths


def test_score_in_memory_gives_the_command_s_summary(capsys: pytest.CaptureFixture[str]) -> None:
    command = _json(capsys, ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--json"])
    config = pathgrade.load_config(CONFIG)
    cases = {c.case_id: c for c in pathgrade.load_cases(CASES).items}
    result = pathgrade.score(cases, pathgrade.load_runs(RUNS, cases).items, config)
    _silent(capsys)
    summary = result.summary()  # means over runs and the layers' points (no intervals)
    shared = {k: v for k, v in summary.items() if k != "system"}
    assert shared == {k: command["summary"][k] for k in shared}
    # summarize adds what the command adds: by_case, defects, and the system intervals
    assert pathgrade.summarize(result) == command["summary"]
    # The example's mean path_score over its 8 runs: (100 + 70 + 100 + 60 + 55 + 90 + 100 + 60)
    # / 8 = 635 / 8 = 79.375.
    assert summary["path_score"] == 79.375
    assert result.defect_counts() == command["summary"]["defects"]


def test_score_files_gives_the_partitioned_command_s_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--json"]
    command = _json(capsys, [*argv, "--partition-size", "3", "--by", "group"])
    chunks: list[bytes] = []
    scored = pathgrade.score_files(
        CASES,
        RUNS,
        pathgrade.load_config(CONFIG),
        partition_size=3,
        sink=chunks.append,
        summary=pathgrade.api.scoring.summary_options(by="group"),
    )
    _silent(capsys)
    assert isinstance(scored, FilesScore) and scored.runs == 8
    assert scored.summary == command["summary"]
    # 8 runs in partitions of 3: 3 + 3 + 2.
    assert scored.summary["engine"] == {"name": "local", "workers": 1, "partitions": 3}
    records = [orjson.loads(line) for chunk in chunks for line in chunk.splitlines()]
    assert records == command["results"]


def test_score_files_refuses_cases_from_a_pipe(tmp_path: Path) -> None:
    pipe = tmp_path / "cases.pipe"
    os.mkfifo(pipe)  # never opened: refused before any read
    with pytest.raises(InputError, match="read once"):
        pathgrade.score_files(pipe, RUNS)


def test_compare_gives_the_command_s_document(
    results: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, variant = results
    fast = ["--resamples", "300", "--by", "group"]
    command = _json(capsys, ["compare", str(base), str(variant), *fast, "--json"])
    found = pathgrade.compare(base, variant, resamples=300, by="group")
    _silent(capsys)
    assert isinstance(found, CompareResult) and found.to_dict() == command
    # Records in memory give the same statistics (only their names differ).
    records = [[json.loads(line) for line in path.read_text().splitlines()] for path in results]
    in_memory = pathgrade.compare(*records, resamples=300, by="group")
    assert in_memory.names == ("baseline", "variant")
    assert in_memory.comparison.to_dict() == found.comparison.to_dict()


def test_compare_scores_runs_files_on_the_fly(
    results: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", str(RUNS), str(VARIANT), "--cases", str(CASES), "--config", str(CONFIG)]
    command = _json(capsys, [*argv, "--resamples", "300", "--json"])
    found = pathgrade.compare(RUNS, VARIANT, cases=CASES, config=CONFIG, resamples=300)
    assert found.to_dict() == command
    scored = pathgrade.compare(*results, resamples=300)  # the same runs, scored beforehand
    assert scored.comparison.to_dict() == found.comparison.to_dict()


def test_gate_gives_the_command_s_document_and_exit_status(
    results: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, variant = results
    command = _json(
        capsys, ["gate", str(GATES), "--baseline", str(base), "--variant", str(variant), "--json"]
    )
    found = pathgrade.gate(GATES, base, variant)
    _silent(capsys)
    assert isinstance(found, GateOutcome) and isinstance(found.report, GateReport)
    assert found.to_dict() == command and found.passed  # examples/gates.toml: all pass
    backwards = pathgrade.gate(GATES, variant, base)  # the baseline is the better run
    assert not backwards.passed
    argv = ["gate", str(GATES), "--baseline", str(variant), "--variant", str(base), "--json"]
    assert _json(capsys, argv, code=1) == backwards.to_dict()


def test_report_computes_the_page_and_writes_it_when_asked(
    results: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, variant = results
    data = pathgrade.report(str(variant), baseline=str(base), resamples=200)
    _silent(capsys)
    assert isinstance(data, ReportData) and not list(tmp_path.iterdir())
    assert data.n_cases == 4 and data.baseline_name == str(base)
    page = tmp_path / "report.html"
    written = pathgrade.report(str(variant), out=page, baseline=str(base), resamples=200)
    assert written.n_cases == 4 and page.read_text(encoding="utf-8").startswith("<!doctype html>")
    with pytest.raises(InputError, match="need --by"):
        pathgrade.report(str(variant), slice_metrics=["path_score"])


def test_ingest_gives_the_runs_the_command_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs.jsonl"
    assert main(["ingest", str(MESSAGES), "-o", str(out)]) == 0
    capsys.readouterr()
    read = pathgrade.ingest(MESSAGES)
    assert isinstance(read, Ingested)
    runs = list(read)
    _silent(capsys)
    assert [orjson.dumps(run_record(r)).decode() for r in runs] == out.read_text().splitlines()
    assert runs and read.skipped == [] and list(read) == []  # read once
    # The golden file's one conversation: run r1 of case weather-1; a case map renames it.
    assert [(r.run_id, r.case_id) for r in runs] == [("r1", "weather-1")]
    mapped = list(pathgrade.ingest([MESSAGES], case_map={"r1": "renamed"}))
    assert [r.case_id for r in mapped] == ["renamed"]


def test_ingest_cases_needs_a_format_with_gold() -> None:
    with pytest.raises(InputError, match="carries gold"):
        pathgrade.api.ingest_cases(MESSAGES)


def test_load_config_without_a_file_is_the_defaults() -> None:
    assert pathgrade.load_config(None) == pathgrade.ScoringConfig()
