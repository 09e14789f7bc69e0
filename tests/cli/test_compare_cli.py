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


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    # A wide CI log, so that each row reads on one line (tests/cli/test_table_widths.py
    # renders these tables at 60-160 columns).
    monkeypatch.setenv("COLUMNS", "200")


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
    assert doc["metrics"]["latency_ms"]["higher_is_better"] is False
    assert "usage.latency_ms" not in doc["metrics"]  # one name for the one latency


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
    "latency_ms",  # only in the records' usage objects (scored before the system layer)
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
    rows = capsys.readouterr().out.splitlines()
    shown = [line for line in rows if any(line.startswith(f"{name} ") for name in LOWER)]
    assert len(shown) == len(LOWER)
    assert all("regressed" in line and " lower " in line for line in shown)


# --- primary family, power, slices -------------------------------------------------------


def _scenario(tmp_path: Path) -> tuple[Path, Path]:
    """The issue's scenario: 12 cases, 8 improve to 100 (diffs 25 30 20 15 40 10 35 10)."""
    scores = [75.0, 70.0, 80.0, 85.0, 60.0, 90.0, 65.0, 90.0, 100.0, 100.0, 100.0, 100.0]

    def side(values: list[float]) -> list[dict[str, Any]]:
        out = []
        for i, score in enumerate(values):
            r = record(f"c{i}", score == 100.0, 0.9, 300.0 + i)
            r["group"] = "orders" if i < 6 else "science"
            r["metrics"]["path_score"] = score
            out.append(r)
        return out

    return write(tmp_path / "b.jsonl", side(scores)), write(
        tmp_path / "v.jsonl", side([100.0] * 12)
    )


def test_default_family_power_and_secondary_marks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = _scenario(tmp_path)
    doc = run_json(capsys, str(base), str(var), "--resamples", "1000")
    assert doc["family"] == {
        "primary": ["path_score", "goal_success"],
        "size": 2,
        "source": "default",
    }
    score = doc["metrics"]["path_score"]
    # exact Wilcoxon p = 2 / 2^8; Holm over the 2 primary metrics doubles it
    assert score["p_value"] == pytest.approx(0.0078125) and score["p_holm"] == pytest.approx(
        0.015625
    )
    assert score["verdict"] == "improved" and score["family"] == "primary"
    # MDE = (2.200985 + 0.875530) * 14.53184 / sqrt(12) = 12.906; 10 cases (test_compare_records)
    assert score["power"]["mde"] == pytest.approx(12.9059, abs=1e-4)
    assert score["power"]["cases_needed"] == 10 and score["power"]["reason"] is None
    latency = doc["metrics"]["latency_ms"]
    assert latency["family"] == "secondary" and latency["p_holm"] is None
    assert latency["power"] is None
    assert main(["compare", str(base), str(var), "--resamples", "300"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("path_score "))
    assert " primary " in row and "improved" in row and "0.0078" in row and "0.0156" in row
    assert "Primary family (Holm over N = 2" in out
    # points to 1 decimal, a difference signed (report.number_text.format_value)
    assert "path_score: MDE 12.9 with 12 cases; 10 cases would detect the observed diff +15.4" in (
        out
    )
    assert "secondary" in next(
        line for line in out.splitlines() if line.startswith("tool_accuracy ")
    )


def test_primary_option_and_the_correction_it_costs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = _scenario(tmp_path)
    every = ("path_score", "goal_success", "tool_accuracy", "recovery_rate")
    every += ("usage.steps", "tokens", "cost", "latency_ms")
    args = [arg for name in every for arg in ("--primary", name)]
    doc = run_json(capsys, str(base), str(var), "--resamples", "500", *args)
    # 7 tests (recovery_rate has no defined pair); p: 0.0078125 for path_score and
    # goal_success, 1 for the 5 unchanged; Holm: max(7 p, 6 p) = 0.0546875 > 0.05
    assert doc["family"]["size"] == 7 and doc["family"]["source"] == "primary"
    score = doc["metrics"]["path_score"]
    assert score["p_holm"] == pytest.approx(7 * 0.0078125)
    assert score["verdict"] == "not significant after correcting for 7 comparisons"
    only = run_json(capsys, str(base), str(var), "--resamples", "500", "--primary", "path_score")
    assert only["metrics"]["path_score"]["p_holm"] == pytest.approx(0.0078125)
    assert only["metrics"]["goal_success"]["verdict"] == "improved (secondary, uncorrected)"
    assert only["metrics"]["goal_success"]["power"] is None


def test_config_primary_list_is_used_unless_the_command_line_names_metrics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    import pathgrade.api.comparing as compare_cli  # reads the config's [compare] primary

    configured = SimpleNamespace(compare=SimpleNamespace(primary=("goal_success",)))
    monkeypatch.setattr(compare_cli, "load_config", lambda path: configured)
    base, var = _scenario(tmp_path)
    doc = run_json(capsys, str(base), str(var), "--resamples", "200")
    assert doc["family"]["primary"] == ["goal_success"] and doc["family"]["source"] == "primary"
    named = run_json(capsys, str(base), str(var), "--resamples", "200", "-m", "path_score")
    assert named["family"]["primary"] == ["path_score"]


def test_slices_by_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, var = _scenario(tmp_path)
    doc = run_json(capsys, str(base), str(var), "--resamples", "1000", "--by", "group")
    slices = doc["slices"]
    assert slices["by"] == "group" and slices["min_n"] == 5
    assert list(slices["metrics"]) == ["path_score", "goal_success"]
    orders, science = slices["metrics"]["path_score"]
    # orders: c0-c5, diffs 25 30 20 15 40 10 (all positive): p = 2/64 = 0.03125;
    # science: c6-c11, diffs 35 10 0 0 0 0: p = 2/4 = 0.5; Holm: 0.0625 and 0.5
    assert (orders["slice"], orders["n"], orders["diff"]) == ("orders", 6, pytest.approx(140 / 6))
    assert orders["p_value"] == pytest.approx(0.03125) and orders["p_holm"] == pytest.approx(0.0625)
    assert orders["verdict"] == "not significant after correcting for 2 comparisons"
    assert science["p_value"] == pytest.approx(0.5) and science["p_holm"] == pytest.approx(0.5)
    small = run_json(capsys, str(base), str(var), "--by", "group", "--min-slice-n", "7")
    assert {s["verdict"] for s in small["slices"]["metrics"]["path_score"]} == {
        "not tested (n < 7)"
    }
    assert main(["compare", str(base), str(var), "--resamples", "200", "--by", "group"]) == 0
    out = capsys.readouterr().out
    assert "by group: Holm across each metric's tested slices" in out
    assert any(
        "orders" in line and "not significant after correcting" in line for line in out.splitlines()
    )


def test_slices_from_a_cases_file_with_tags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = _scenario(tmp_path)
    assert main(["compare", str(base), str(var), "--by", "tags"]) == 2
    assert "--slices-from" in capsys.readouterr().err
    cases = [
        {"case_id": f"c{i}", "metadata": {"tags": ["all", "even"] if i % 2 == 0 else ["all"]}}
        for i in range(12)
    ]
    cases_file = write(tmp_path / "cases.jsonl", cases)
    doc = run_json(capsys, str(base), str(var), "--by", "tags", "--slices-from", str(cases_file))
    rows = {s["slice"]: s for s in doc["slices"]["metrics"]["path_score"]}
    assert list(rows) == ["all", "even"]
    assert rows["all"]["n"] == 12 and rows["even"]["n"] == 6
    # even cases c0 c2 c4 c6 c8 c10: diffs 25 20 40 35 0 0, mean 120 / 6
    assert rows["even"]["diff"] == pytest.approx(20.0)
    assert (
        main(["compare", str(base), str(var), "--by", "tagz", "--slices-from", str(cases_file)])
        == 2
    )
    err = capsys.readouterr().err
    assert "cases.jsonl" in err and "no case has the field tagz" in err


def test_slices_when_scoring_on_the_fly(capsys: pytest.CaptureFixture[str]) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    runs = str(examples / "runs.jsonl")
    argv = ["--cases", str(examples / "cases.jsonl"), runs, runs, "--by", "group"]
    doc = run_json(capsys, *argv, "--resamples", "200")
    groups = [s["slice"] for s in doc["slices"]["metrics"]["path_score"]]
    assert groups == ["orders", "science", "incidents"]
    assert doc["metrics"]["path_score"]["power"]["reason"] == (
        "the paired differences have no spread (sd = 0)"
    )
