"""``pathgrade compare``: JSON document shape, reproducibility, unpaired cases, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.cli.main import main


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def record(case_id: str, success: bool, accuracy: float, latency: float) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "case_id": case_id,
        "run_id": f"run-{case_id}",
        "trial": 0,
        "group": None,
        "reference_index": 0,
        "metrics": {"goal_success": success, "tool_accuracy": accuracy, "recovery_rate": None},
        "defects": [],
        "usage": {"steps": 4, "tokens": 900, "cost": 0.02, "latency_ms": latency},
    }


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    # McNemar worked example: 15 fail->pass, 5 pass->fail, 30 pass->pass, 10 fail->fail
    pairs = [(False, True)] * 15 + [(True, False)] * 5 + [(True, True)] * 30
    pairs += [(False, False)] * 10
    base = [record(f"c{i}", b, 0.5 + (i % 7) / 20, 300.0 + i) for i, (b, _) in enumerate(pairs)]
    var = [record(f"c{i}", v, 0.5 + (i % 5) / 20, 310.0 + i) for i, (_, v) in enumerate(pairs)]
    base.append(record("only-base", True, 1.0, 1.0))
    return write(tmp_path / "base.jsonl", base), write(tmp_path / "var.jsonl", var)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["compare", *argv, "--json"]) == 0
    doc: dict[str, Any] = orjson.loads(capsys.readouterr().out)
    return doc


def test_json_document(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, str(files[0]), str(files[1]), "--resamples", "2000")
    assert doc["paired_cases"] == 60
    assert doc["unpaired"] == [{"case_id": "only-base", "only_in": "baseline"}]
    success = doc["metrics"]["goal_success"]
    assert {"baseline", "variant", "diff", "ci", "test", "p_value", "p_holm", "verdict"} <= set(
        success
    )
    assert success["test"] == "mcnemar_exact"
    assert round(success["p_value"], 6) == 0.041389
    assert success["p_holm"] >= success["p_value"]
    assert len(success["ci"]) == 2 and success["ci"][0] <= success["diff"] <= success["ci"][1]
    assert doc["metrics"]["tool_accuracy"]["test"] == "wilcoxon"
    assert doc["metrics"]["recovery_rate"]["verdict"] == "no paired data"
    assert doc["metrics"]["usage.latency_ms"]["higher_is_better"] is False


def test_seeded_runs_are_identical(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = (str(files[0]), str(files[1]), "--resamples", "500", "--seed", "9")
    assert run_json(capsys, *args) == run_json(capsys, *args)
    bca = run_json(capsys, *args, "--ci-method", "bca")
    assert bca["settings"]["ci_method"] == "bca"


def test_table(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(files[0]), str(files[1]), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "goal_success" in out and "mcnemar_exact" in out
    assert "only in baseline" in out and "cannot tell" in out


def test_bad_input_exits_2(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", str(files[0]), str(tmp_path / "absent.jsonl")]) == 2
    assert "absent.jsonl" in capsys.readouterr().err
    assert main(["compare", str(files[0]), str(files[1]), "--metric", "ndcg@5"]) == 2
    assert "ndcg@5" in capsys.readouterr().err
    other = write(tmp_path / "other.jsonl", [record("zz", True, 1.0, 1.0)])
    assert main(["compare", str(files[0]), str(other)]) == 2
    assert "no case_id in common" in capsys.readouterr().err


def _count_record(case_id: str, value: int) -> dict[str, Any]:
    metrics = {
        "dangerous_false_positives": value,
        "forbidden_action_count": value,
        "redundant_steps": value,
        "missing_steps": value,
        "path_score": 100.0 - 10 * value,
    }
    defects = [{"kind": "missing_step", "penalty": 25.0, "detail": "x"}] * value
    usage = {"latency_ms": 100.0 + 50 * value}
    return {"case_id": case_id, "trial": 0, "metrics": metrics, "defects": defects, "usage": usage}


LOWER = (
    "dangerous_false_positives",
    "forbidden_action_count",
    "redundant_steps",
    "missing_steps",
    "usage.latency_ms",
    "defects.missing_step",
)


def test_a_rise_in_a_lower_is_better_count_is_regressed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 12 cases; every lower-is-better count rises by 1 or 2 (path_score falls by 10 or 20):
    # all paired diffs share a sign, so the CI excludes 0 and p ~ 0.0005-0.002 per metric,
    # below 0.05 after Holm over 7 metrics.
    base = write(tmp_path / "b.jsonl", [_count_record(f"c{i}", i % 2) for i in range(12)])
    worse = write(tmp_path / "w.jsonl", [_count_record(f"c{i}", i % 2 + 1 + i % 3 // 2)
                                         for i in range(12)])  # fmt: skip
    measures = [arg for name in (*LOWER, "path_score") for arg in ("-m", name)]
    doc = run_json(capsys, str(base), str(worse), "--resamples", "500", *measures)
    for name in LOWER:
        assert doc["metrics"][name]["diff"] > 0
        assert doc["metrics"][name]["direction"] == "lower"
        assert doc["metrics"][name]["verdict"] == "regressed", name
    assert doc["metrics"]["path_score"]["verdict"] == "regressed"
    back = run_json(capsys, str(worse), str(base), "--resamples", "500", *measures)
    assert {back["metrics"][n]["verdict"] for n in (*LOWER, "path_score")} == {"improved"}
    assert main(["compare", str(base), str(worse), "--resamples", "200", *measures]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "│" in line]
    shown = [line for line in rows if any(f" {name} " in line for name in LOWER)]
    assert len(shown) == len(LOWER)
    assert all("regressed" in line and " lower " in line for line in shown)
