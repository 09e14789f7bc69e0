"""``pathgrade gate`` under GitHub Actions: Markdown summary and ``::error`` annotations."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade.cli.main import main
from pathgrade.gates import GateReport
from pathgrade.gates.evaluate import GateResult
from pathgrade.gates.model import Gate
from pathgrade.report.github import gate_annotations, gate_markdown

from .conftest import Stored

GATES = """
[[gate]]
name = "path score not below baseline"
metric = "path_score"
rule = "not_below_baseline"

[[gate]]
name = "goal success at least 0.99"
metric = "goal_success"
rule = "min"
threshold = 0.99
hard = true
"""


def _report() -> GateReport:
    gate = Gate(metric="path_score", rule="min", threshold=1.0, name="a|b\n::error::x")
    failed = GateResult(gate, False, "50% below\nnext line", 1.0, 0.5, 0.5, 1.0)
    return GateReport((failed,), 4, 0)


def test_annotations_are_encoded() -> None:
    [line] = gate_annotations(_report(), "gates, v1.toml")
    assert line.startswith(
        "::error file=gates%2C v1.toml,title=pathgrade gate%3A a|b%0A%3A%3Aerror"
    )
    assert line.endswith("::50%25 below%0Anext line")
    assert "\n" not in line


def test_markdown_escapes_cells() -> None:
    text = gate_markdown(_report())
    assert "a\\|b ::error::x" in text
    assert "0 of" not in text and "1 of 1 gate(s) failed (0 hard)" in text
    assert "| **FAIL** |" in text


def test_gate_cli_under_github_actions(
    stored: Stored,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    gates = tmp_path / "gates.toml"
    gates.write_text(GATES)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("PATHGRADE_STORE", str(stored.store))
    markdown = tmp_path / "gates.md"
    args = ["gate", str(gates), "--baseline", stored.baseline, "--variant", stored.variant]
    code = main([*args, "--markdown", str(markdown)])
    assert code == 1
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("::error ")]
    assert errors == [
        f"::error file={gates},title=pathgrade gate%3A path score not below baseline"
        + errors[0][errors[0].index("::mean") :]
    ]
    written = summary.read_text("utf-8")
    assert written.startswith("earlier step\n### pathgrade gates (gates.toml)")
    assert markdown.read_text("utf-8") == written[len("earlier step\n") :]


def test_no_annotations_outside_github(
    stored: Stored,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    gates = tmp_path / "gates.toml"
    gates.write_text(GATES)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("PATHGRADE_STORE", str(stored.store))
    main(["gate", str(gates), "--baseline", stored.baseline, "--variant", stored.variant])
    assert "::error" not in capsys.readouterr().out
