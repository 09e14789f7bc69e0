"""compare, gate, report and ablation check provenance before any statistic; the outputs say
so first; the controlled variables that changed are named."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest

from pathgrade.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases.jsonl"
RUNS = ROOT / "examples" / "runs.jsonl"
VARIANT = ROOT / "examples" / "runs_variant.jsonl"
CONFIG = ROOT / "examples" / "pathgrade.toml"
V1 = ROOT / "tests" / "golden" / "results" / "v1.jsonl"
GATES = '[[gate]]\nmetric = "path_score"\nrule = "not_below_baseline"\ntolerance = 100\n'
CHANGED_GATE = '[[gate]]\nmetric = "changed_variables"\nrule = "max"\nthreshold = 1\n'
FAST = ["--resamples", "200"]


def _score(out: Path, runs: Path = RUNS, config: Path = CONFIG, *labels: str) -> str:
    argv = ["score", str(CASES), str(runs), "--config", str(config), "--out", str(out)]
    for label in labels:
        argv += ["--label", label]
    assert main(argv) == 0
    return str(out)


@pytest.fixture
def other_config(tmp_path: Path) -> Path:
    """The example config with one tool fewer declared ``write``."""
    text = CONFIG.read_text(encoding="utf-8").replace('write_report = "write"\n', "")
    assert text != CONFIG.read_text(encoding="utf-8")
    path = tmp_path / "other.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def two_configs(tmp_path: Path, other_config: Path) -> tuple[str, str]:
    return _score(tmp_path / "base.jsonl"), _score(tmp_path / "var.jsonl", RUNS, other_config)


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_compare_refuses_sides_scored_with_different_configs(
    two_configs: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = two_configs
    capsys.readouterr()
    assert main(["compare", base, var, *FAST]) == 2
    err = _one_error_line(capsys)
    assert err.startswith(f"pathgrade: error: {base}, {var}: scored differently (scoring config")
    assert err.rstrip().endswith(
        "re-score both with the same config, or pass --allow-config-change"
    )


def test_compare_allowed_says_so_first_in_text_and_json(
    two_configs: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = two_configs
    capsys.readouterr()
    assert main(["compare", base, var, *FAST, "--allow-config-change"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"WARNING: {base}, {var}: scored differently (scoring config hash:")
    assert main(["compare", base, var, *FAST, "--allow-config-change", "--json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert next(iter(doc)) == "warning" and doc["warning"] == first
    assert doc["provenance"]["differences"][0].startswith("scoring config hash: sha256:")


def test_v1_results_compare_with_themselves_unchecked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(V1), str(V1), *FAST]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "provenance not recorded: comparability unchecked"
    assert main(["compare", str(V1), str(V1), *FAST, "--json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert "warning" not in doc and doc["changed_variables"] == {}
    assert doc["provenance"]["note"] == "provenance not recorded: comparability unchecked"


def test_a_v1_file_against_a_recorded_one_is_a_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _score(tmp_path / "new.jsonl")
    assert main(["compare", str(V1), new, *FAST]) == 2
    assert "scoring semantics version: not recorded vs 2" in _one_error_line(capsys)


def test_a_file_mixing_provenance_is_an_error_naming_the_line(
    two_configs: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = two_configs
    mixed = tmp_path / "mixed.jsonl"
    # 8 records of one scoring, then 8 of the other: line 9 is the first that differs
    mixed.write_bytes(Path(base).read_bytes() + Path(var).read_bytes())
    capsys.readouterr()
    assert main(["compare", base, str(mixed), *FAST]) == 2
    err = _one_error_line(capsys)
    assert f"{mixed}:9: field 'provenance': results mix runs scored differently" in err


def test_labels_are_the_variables_compare_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _score(tmp_path / "b.jsonl", RUNS, CONFIG, "model=m1", "prompt_version=p1")
    one = _score(tmp_path / "one.jsonl", VARIANT, CONFIG, "model=m1", "prompt_version=p2")
    two = _score(tmp_path / "two.jsonl", VARIANT, CONFIG, "model=m2", "prompt_version=p2")
    capsys.readouterr()
    assert main(["compare", base, one, *FAST]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "changed variables: prompt_version (p1 -> p2)"
    assert not lines[1].startswith("WARNING")
    assert main(["compare", base, two, *FAST]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "changed variables: model (m1 -> m2), prompt_version (p1 -> p2)",
        "WARNING: 2 variables changed (model, prompt_version): the comparison cannot say which"
        " caused the difference",
    ]
    assert main(["compare", base, two, *FAST, "--json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert doc["changed_variables"] == {"model": ["m1", "m2"], "prompt_version": ["p1", "p2"]}


def test_gate_rule_changed_variables_at_most_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gates = tmp_path / "gates.toml"
    gates.write_text(CHANGED_GATE, encoding="utf-8")
    base = _score(tmp_path / "b.jsonl", RUNS, CONFIG, "model=m1", "prompt_version=p1")
    one = _score(tmp_path / "one.jsonl", VARIANT, CONFIG, "model=m1", "prompt_version=p2")
    two = _score(tmp_path / "two.jsonl", VARIANT, CONFIG, "model=m2", "prompt_version=p2")
    capsys.readouterr()
    assert main(["gate", str(gates), "--baseline", base, "--variant", one]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "changed variables: prompt_version (p1 -> p2)"
    assert lines[-1] == "all 1 gate(s) passed"
    assert main(["gate", str(gates), "--baseline", base, "--variant", two, "--json"]) == 1
    doc = orjson.loads(capsys.readouterr().out)
    (gate,) = doc["gates"]
    assert gate["message"] == "changed_variables 2 <= 1: model, prompt_version"
    assert doc["changed_variables"] == {"model": ["m1", "m2"], "prompt_version": ["p1", "p2"]}
    # old files record no variables: the gate fails, never passes vacuously
    assert main(["gate", str(gates), "--baseline", str(V1), "--variant", str(V1)]) == 1


def test_gate_refuses_then_allowed_says_so_first_everywhere(
    two_configs: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, var = two_configs
    gates = tmp_path / "gates.toml"
    gates.write_text(GATES, encoding="utf-8")
    argv = ["gate", str(gates), "--baseline", base, "--variant", var]
    capsys.readouterr()
    assert main(argv) == 2
    assert "scored differently (scoring config hash" in _one_error_line(capsys)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    junit, markdown = tmp_path / "gates.xml", tmp_path / "summary.md"
    allowed = [*argv, "--allow-config-change", "--junit", str(junit), "--markdown", str(markdown)]
    assert main(allowed) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"WARNING: {base}, {var}: scored differently")
    # JUnit: the suite's first property, and the first test case (named by the warning)
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    children = list(suite)
    assert children[0].tag == "properties"
    assert children[0][0].attrib == {"name": "pathgrade.warning", "value": first}
    assert children[1].get("name") == first and children[1].get("classname") == (
        "pathgrade.provenance"
    )
    assert suite.get("tests") == "2" and suite.get("failures") == "0"
    # GitHub summary: the first line
    assert markdown.read_text(encoding="utf-8").splitlines()[0].startswith("> ⚠️ **WARNING: ")
    assert main([*argv, "--allow-config-change", "--json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert next(iter(doc)) == "warning" and doc["warning"] == first


def test_gate_under_github_actions_warns_first(
    two_configs: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, var = two_configs
    gates = tmp_path / "gates.toml"
    gates.write_text(GATES, encoding="utf-8")
    summary = tmp_path / "step_summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    argv = ["gate", str(gates), "--baseline", base, "--variant", var, "--allow-config-change"]
    capsys.readouterr()
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"::warning title=pathgrade gate::WARNING: {base}, {var}: scored")
    assert summary.read_text(encoding="utf-8").startswith("> ⚠️ **WARNING: ")


def test_report_refuses_then_allowed_opens_with_a_banner(
    two_configs: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = two_configs
    out = tmp_path / "r.html"
    argv = ["report", var, "--baseline", base, "-o", str(out), *FAST]
    capsys.readouterr()
    assert main(argv) == 2
    assert "scored differently (scoring config hash" in _one_error_line(capsys)
    assert not out.exists()
    assert main([*argv, "--allow-config-change"]) == 0
    page = out.read_text(encoding="utf-8")
    body = page[page.index("<body>") + len("<body>") :].lstrip()
    assert body.startswith('<div class="warning-banner" role="alert"><p>WARNING: ')
    assert "scored differently (scoring config hash: sha256:" in body[:400]


def test_report_of_v1_files_notes_unchecked(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    assert main(["report", str(V1), "--baseline", str(V1), "-o", str(out), *FAST]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'class="warning-banner"' not in page
    assert "provenance not recorded: comparability unchecked" in page


def test_ablation_checks_each_arm(
    two_configs: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = two_configs
    same = _score(tmp_path / "same.jsonl", VARIANT)
    argv = ["ablation", "--baseline", base, "--a", same, "--b", var, "--ab", same, *FAST]
    capsys.readouterr()
    assert main(argv) == 2
    err = _one_error_line(capsys)
    assert f"{base}, {var}: scored differently" in err  # the arm --b
    assert main([*argv, "--allow-config-change"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith(f"WARNING: {base}, {var}:")
    assert main([*argv, "--allow-config-change", "--json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert next(iter(doc)) == "warning"
    assert doc["provenance"]["a"]["differences"] == [] and doc["provenance"]["b"]["differences"]
