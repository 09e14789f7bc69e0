"""``pathgrade gate``: exit codes, JSON, JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.cli.main import main

GATES = """
[settings]
resamples = 1000

[[gate]]
metric = "tool_accuracy"
rule = "not_below_baseline"

[[gate]]
name = "P95 latency up by at most 15%"
metric = "latency_ms"
statistic = "p95"
rule = "max_relative_change"
threshold = 0.15

[[gate]]
name = "no forbidden action"
metric = "forbidden_action_count"
rule = "equal"
threshold = 0
hard = true
"""


def write(path: Path, records: list[dict[str, Any]]) -> str:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return str(path)


def records(accuracy: float, latency: float, forbidden: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "case_id": f"c{i}",
            "trial": 0,
            "metrics": {
                "tool_accuracy": accuracy,
                "forbidden_action_count": forbidden if i == 0 else 0,
            },
            "defects": [],
            "usage": {"latency_ms": latency + i, "tokens": 100, "cost": 0.0, "steps": 3},
        }
        for i in range(20)
    ]


@pytest.fixture
def gates(tmp_path: Path) -> str:
    path = tmp_path / "gates.toml"
    path.write_text(GATES, encoding="utf-8")
    return str(path)


def test_all_pass_exit_0(gates: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = write(tmp_path / "b.jsonl", records(0.8, 100.0))
    var = write(tmp_path / "v.jsonl", records(0.85, 105.0))
    assert main(["gate", gates, "--baseline", base, "--variant", var]) == 0
    assert "all 3 gate(s) passed" in capsys.readouterr().out


def test_failure_exit_1_json_and_junit(
    gates: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write(tmp_path / "b.jsonl", records(0.8, 100.0))
    var = write(tmp_path / "v.jsonl", records(0.9, 100.0, forbidden=1))
    junit = tmp_path / "gates.xml"
    argv = ["gate", gates, "--baseline", base, "--variant", var, "--json", "--junit", str(junit)]
    assert main(argv) == 1
    doc = orjson.loads(capsys.readouterr().out)
    assert doc["passed"] is False and doc["failed"] == 1 and doc["hard_failed"] == 1
    by_name = {g["name"]: g for g in doc["gates"]}
    hard = by_name["no forbidden action"]
    assert hard["hard"] is True and hard["passed"] is False and hard["value"] == 1
    assert set(hard) >= {"metric", "rule", "baseline", "variant", "value", "threshold", "message"}
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert suite.get("tests") == "3" and suite.get("failures") == "1"
    failed = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["no forbidden action"]


def test_missing_metric_fails_not_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.toml"
    path.write_text('[[gate]]\nmetric = "ndcg@5"\nrule = "not_below_baseline"\n', encoding="utf-8")
    base = write(tmp_path / "b.jsonl", records(0.8, 100.0))
    assert main(["gate", str(path), "--baseline", base, "--variant", base]) == 1
    assert "ndcg@5" in capsys.readouterr().out


def test_bad_input_exit_2(gates: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = write(tmp_path / "b.jsonl", records(0.8, 100.0))
    assert main(["gate", gates, "--baseline", base, "--variant", str(tmp_path / "no.jsonl")]) == 2
    bad = tmp_path / "bad.toml"
    bad.write_text('[[gate]]\nmetric = "x"\nrule = "max"\n', encoding="utf-8")
    assert main(["gate", str(bad), "--baseline", base, "--variant", base]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and "gate[1].threshold" in err


EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="module")
def scored_examples(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """examples/runs.jsonl (baseline) and examples/runs_variant.jsonl, scored as documented."""
    out = tmp_path_factory.mktemp("examples")
    paths = []
    for runs, name in (("runs.jsonl", "base.jsonl"), ("runs_variant.jsonl", "variant.jsonl")):
        target = out / name
        argv = ["score", str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / runs)]
        argv += ["--config", str(EXAMPLES / "pathgrade.toml"), "--out", str(target)]
        assert main(argv) == 0
        paths.append(str(target))
    return paths[0], paths[1]


def test_example_gates_pass_on_the_bundled_examples(
    scored_examples: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = scored_examples
    capsys.readouterr()
    argv = ["gate", str(EXAMPLES / "gates.toml"), "--baseline", base, "--variant", var, "--json"]
    assert main(argv) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert doc["passed"] is True and doc["failed"] == 0 and doc["paired_cases"] == 4
    by_metric = {g["metric"]: g for g in doc["gates"]}
    # the variant drops run B's repeated lookup: wasted steps 2 -> 1 (run F keeps its own)
    assert by_metric["defects.wasted_step"]["baseline"] == 2
    assert by_metric["defects.wasted_step"]["variant"] == 1


def test_example_gates_catch_the_baseline_budget_overruns(
    scored_examples: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    base, _ = scored_examples
    argv = ["gate", str(EXAMPLES / "gates.toml"), "--baseline", base, "--variant", base]
    assert main(argv) == 1  # runs B and E of the baseline are over budget: a hard gate fails
    assert "FAIL no run over its budget" in capsys.readouterr().out


def test_mistyped_defect_kind_is_exit_2_with_the_suggestion(
    scored_examples: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = scored_examples
    path = tmp_path / "typo.toml"
    path.write_text(
        '[[gate]]\nmetric = "path_score"\nrule = "not_below_baseline"\n'
        '[[gate]]\nmetric = "defects.wasted_stpe"\nstatistic = "sum"\n'
        'rule = "not_above_baseline"\n',
        encoding="utf-8",
    )
    assert main(["gate", str(path), "--baseline", base, "--variant", var]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(path) in err and "gate[2].metric" in err
    assert "did you mean defects.wasted_step?" in err
    assert captured.out == ""
