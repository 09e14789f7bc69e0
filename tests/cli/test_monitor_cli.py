"""``pathgrade monitor NAME``: rates per window of a collector's stored batches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade import score
from pathgrade.cli.main import main
from pathgrade.core.config import ScoringConfig
from pathgrade.core.types import Case, Run
from pathgrade.store.save import save_scored

OK = {"tool": "search", "arguments": {"q": "a"}, "output": "hit"}
FAILED = {"tool": "fetch", "arguments": {"id": 1}, "error": "timeout"}


def _run(i: int, failed: bool, latency: float) -> Run:
    steps = [OK, FAILED] if failed else [OK, {**FAILED, "error": None, "output": "page"}]
    return Run.model_validate(
        {
            "case_id": f"c{i}",
            "run_id": f"r{i}",
            "steps": steps,
            "answer": "done",
            "usage": {"latency_ms": latency, "cost": 0.01},
        }
    )


def _save(store: Path, name: str, runs: list[Run], labels: dict[str, str]) -> None:
    cases = {r.case_id: Case.model_validate({"case_id": r.case_id}) for r in runs}
    result = score(list(cases.values()), runs, ScoringConfig())
    save_scored(result, name=name, runs=runs, cases=cases, labels=labels, store=store)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """Three hourly batches of prod: 0 of 8, 1 of 8 (two batches in hour 1), 6 of 6 failed
    fetches; one of another collector."""
    folder = tmp_path / "store"
    base = {"source": "pathgrade collect", "collector": "prod"}
    hour0 = [_run(i, False, 100.0 + i) for i in range(8)]
    hour1a = [_run(10 + i, i == 0, 200.0) for i in range(4)]
    hour1b = [_run(20 + i, False, 200.0) for i in range(4)]
    hour2 = [_run(30 + i, True, 900.0) for i in range(6)]
    _save(folder, "prod.20261208T000000.000001", hour0, {**base, "version": "v1"})
    _save(folder, "prod.20261208T010000.000002", hour1a, {**base, "version": "v1"})
    _save(folder, "prod.20261208T010000.000003", hour1b, {**base, "version": "v1"})
    _save(folder, "prod.20261208T020000.000004", hour2, {**base, "version": "v2"})
    other = {"source": "pathgrade collect", "collector": "staging"}
    _save(folder, "staging.20261208T000000.000001", hour0, other)
    return folder


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def test_json_rates_and_the_flag(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(["monitor", "prod", "--store", str(store)], capsys)
    windows = doc["windows"]
    assert [w["start"] for w in windows] == [
        "2026-12-08T00:00:00Z",
        "2026-12-08T01:00:00Z",
        "2026-12-08T02:00:00Z",
    ]
    assert [w["runs"] for w in windows] == [8, 8, 6] and doc["batches"] == 4
    errors = [w["rates"]["tool_errors"] for w in windows]
    assert [(e["defects"], e["runs"]) for e in errors] == [(0, 8), (1, 8), (6, 6)]
    assert errors[0]["p_value"] is None and not errors[0]["flagged"]
    # hour 1: 1 of 8 vs 0 of 8 -> P(X >= 1) = 8/16 = 0.5: not flagged
    assert errors[1]["p_value"] == pytest.approx(0.5) and not errors[1]["flagged"]
    # hour 2: 6 of 6 vs 1 of 16 -> P(X = 6) = C(7, 7) C(15, 0) / C(22, 6) ... = 7 / 74613
    assert errors[2]["p_value"] == pytest.approx(7 / 74613)
    assert errors[2]["flagged"] and "tool_errors" in windows[2]["flagged"]
    assert windows[0]["latency_ms"]["p50"] == pytest.approx(103.5)
    assert windows[2]["latency_ms"]["p95"] == pytest.approx(900.0)


def test_window_coarsens_and_baseline_limits(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _json(["monitor", "prod", "--window", "1d", "--store", str(store)], capsys)
    assert [(w["start"], w["runs"]) for w in doc["windows"]] == [("2026-12-08T00:00:00Z", 22)]
    doc = _json(["monitor", "prod", "--baseline", "1", "--store", str(store)], capsys)
    last = doc["windows"][2]["rates"]["tool_errors"]
    assert (last["baseline_defects"], last["baseline_runs"]) == (1, 8)


def test_breakdowns(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(["monitor", "prod", "--by", "label:version", "--store", str(store)], capsys)
    assert [(w["group"], w["runs"]) for w in doc["windows"]] == [("v1", 8), ("v1", 8), ("v2", 6)]
    doc = _json(["monitor", "prod", "--by", "tool", "--store", str(store)], capsys)
    by = {(w["start"][11:13], w["group"]): w["rates"]["tool_errors"] for w in doc["windows"]}
    assert by[("01", "fetch")]["defects"] == 1 and by[("01", "search")]["defects"] == 0
    assert by[("02", "fetch")]["flagged"] and not by[("02", "search")]["flagged"]


def test_table(store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    assert main(["monitor", "prod", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "2026-12-08 02:00 " in out and "100% [61%, 100%] *" in out
    assert "flagged: 2026-12-08T02:00:00Z tool_errors 6/6" in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["monitor", "nope"], "no collected runs of 'nope'"),
        (["monitor", "prod", "--window", "1.5h"], "field '--window'"),
        (["monitor", "prod", "--by", "agent-version"], "records no agent version"),
        (["monitor", "prod", "--baseline", "0"], "field '--baseline'"),
    ],
)
def test_errors_are_one_line(
    store: Path, argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--store", str(store)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and expected in err


def test_variables_and_other_names(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _save(store, "prod.manual", [_run(99, False, 1.0)], {})
    doc = _json(["monitor", "prod", "--by", "variable:model", "--store", str(store)], capsys)
    assert {w["group"] for w in doc["windows"]} == {"(none)"}
    assert main(["monitor", "prod", "--store", str(store), "--json"]) == 0
    err = capsys.readouterr().err
    assert "1 stored runs named prod.* are not batches" in err
