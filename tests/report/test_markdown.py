"""``score --markdown`` and ``compare --markdown`` (issue 32, part 4): the same numbers as
the text and the JSON, through the one formatter; ``$GITHUB_STEP_SUMMARY`` under GitHub
Actions; user text escaped."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pathgrade.cli.main import main
from pathgrade.report.markdown import md_cell, md_table, publish
from pathgrade.report.number_text import format_interval, format_p, format_value

EXAMPLES = Path(__file__).parents[2] / "examples"
SCORE = ["score", str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / "runs.jsonl")]
SCORE += ["--config", str(EXAMPLES / "pathgrade.toml")]


def _rows(markdown: str) -> dict[str, list[str]]:
    """Table rows by their first cell (unescaped ``_``)."""
    out = {}
    for line in markdown.splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            out[cells[0].replace("\\_", "_")] = cells[1:]
    return out


def test_score_markdown_has_the_numbers_of_the_text_and_the_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "summary.md"
    assert main([*SCORE, "--json", "--markdown", str(target)]) == 0
    summary = orjson.loads(capsys.readouterr().out)["summary"]
    monkeypatch.setenv("COLUMNS", "200")
    assert main(SCORE) == 0
    text = capsys.readouterr().out
    rows = _rows(target.read_text())
    assert target.read_text().startswith("### pathgrade score: 4 cases, 8 runs")
    amounts = ("latency_ms", "tokens", "cost")
    for name, row in summary["by_case"].items():
        mean = format_value(row["mean"], name)
        interval = format_interval(row["low"], row["high"], name)
        if name in amounts:  # one place for an amount: the System table, with its mean's CI
            lines = [t for t in text.splitlines() if t.startswith(f"{name} ") and "(" not in t]
            assert name not in rows and not lines, name
            system_row = rows[f"{name} ({summary['system'][name]['unit']})"]
            assert [system_row[0], system_row[-1]] == [mean, interval], name
            continue
        assert rows[name][:2] == [mean, interval], name
        line = next(t for t in text.splitlines() if t.startswith(f"{name} "))
        assert mean in line.split() and interval in line, name
    assert rows["path_score"][:2] == ["76.9", "[61.9, 87.5]"]  # 1 decimal: points
    # a count's mean and its interval: one precision
    assert rows["redundant_steps"][:2] == ["0.313", "[0.000, 0.750]"]
    assert rows["latency_ms (ms)"][0] == "6,050"  # the system table, grouped


def test_compare_markdown_has_the_numbers_of_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = []
    for name in ("runs", "runs_variant"):
        out = tmp_path / f"{name}.jsonl"
        argv = [*SCORE[:2], str(EXAMPLES / f"{name}.jsonl"), *SCORE[3:], "--out", str(out)]
        assert main([*argv, "--json"]) == 0
        results.append(str(out))
    target = tmp_path / "compare.md"
    capsys.readouterr()
    argv = ["compare", *results, "--resamples", "300", "--markdown", str(target), "--json"]
    assert main(argv) == 0
    doc = orjson.loads(capsys.readouterr().out)
    rows = _rows(target.read_text())
    for name, m in doc["metrics"].items():
        row = rows[name]
        assert row[3:7] == [
            format_value(m["baseline"], name),
            format_value(m["variant"], name),
            format_value(m["diff"], name, True),
            format_interval(m["ci"][0], m["ci"][1], name, True),
        ], name
        assert row[8:10] == [format_p(m["p_value"]), format_p(m["p_holm"])]
        assert row[10] == md_cell(m["verdict"])
    assert rows["path_score"][3:6] == ["76.9", "95.0", "+18.1"]


def test_under_github_actions_the_summary_is_appended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    step = tmp_path / "step_summary.md"
    step.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    assert main([*SCORE, "--json"]) == 0
    written = step.read_text()
    assert written.startswith("earlier step\n### pathgrade score: 4 cases, 8 runs")
    publish("x\n", None, {"GITHUB_ACTIONS": "false", "GITHUB_STEP_SUMMARY": str(step)})
    assert step.read_text() == written  # not under Actions: nothing appended


def test_user_text_cannot_break_a_table() -> None:
    cell = md_cell("a|b\n| evil | row |\u202e`code`")
    assert "\n" not in cell and "|" not in cell.replace("\\|", "")
    assert "\\u202e" in cell and "\\`code\\`" in cell
    table = md_table(["name", "n"], [False, True], [[cell, "1"]])
    assert len(table) == 3 and table[1] == "| --- | ---: |"


def test_an_unwritable_markdown_path_is_one_line_before_scoring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*SCORE, "--markdown", str(tmp_path / "no" / "such" / "x.md")]) == 2
    err = capsys.readouterr().err
    assert "--markdown" in err and "does not exist" in err and len(err.strip().splitlines()) == 1
