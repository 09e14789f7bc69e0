"""Issue 32: no table cuts a number or a name, at any width from 60 columns up.

Each command's text is rendered at 60, 80, 100 and 160 columns (``COLUMNS``, as a CI log or
a pipe gives it) and checked against its own ``--json``: no ellipsis anywhere, no table line
wider than the console, and every number of the columns a table never leaves out appears
whole, written by the one formatter (:func:`pathgrade.report.number_text.format_value`). A
column a narrow layout leaves out is named once under its table; its numbers are checked
whenever it is shown.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.cli.main import main
from pathgrade.report.number_text import format_number, format_p, format_value

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples"
GOLDEN = ROOT / "tests" / "golden" / "trec_eval"
WIDTHS = (60, 80, 100, 160)
WIDTH = pytest.mark.parametrize("width", WIDTHS)


def _run(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> str:
    capsys.readouterr()
    assert main(list(argv)) == code
    return capsys.readouterr().out


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    return orjson.loads(_run(capsys, *argv, "--json"))


def _left_out(text: str) -> set[str]:
    """The headers the text says it left out (``not shown at N columns: a, b (see --json)``)."""
    found: set[str] = set()
    for match in re.finditer(r"not shown at \d+ columns:\s+(.*?)\s+\(see\s+--json\)", text, re.S):
        found |= {h.strip() for h in match.group(1).replace("\n", " ").split(",")}
    return found


def _whole(text: str, token: str) -> bool:
    """``token`` appears in ``text`` as a whole number (not inside a longer one)."""
    return re.search(rf"(?<![\w.+-]){re.escape(token)}(?![\w]|[.,]\d)", text) is not None


def _check(text: str, width: int, numbers: list[str], next_lines: bool = False) -> None:
    assert "…" not in text, text
    for line in text.splitlines():
        if next_lines and line.startswith("  pathgrade "):
            continue  # a command to copy stays on one line, however long
        assert len(line) <= width, (width, line)
    missing = [n for n in numbers if not _whole(text, n)]
    assert not missing, (width, missing, text)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("widths")
    out = []
    for name in ("runs", "runs_variant"):
        target = root / f"{name}.jsonl"
        argv = [str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / f"{name}.jsonl")]
        argv += ["--config", str(EXAMPLES / "pathgrade.toml"), "--out", str(target), "--json"]
        assert main(["score", *argv]) == 0
        out.append(target)
    return out[0], out[1]


@WIDTH
def test_score(
    width: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["score", str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / "runs.jsonl")]
    argv += ["--config", str(EXAMPLES / "pathgrade.toml")]
    doc = _json(capsys, *argv)
    monkeypatch.setenv("COLUMNS", str(width))
    text = _run(capsys, *argv)
    summary = doc["summary"]
    numbers = []
    for name, row in summary["by_case"].items():
        numbers += [format_value(row[k], name) for k in ("mean", "low", "high")]
    for name, row in summary["system"].items():
        if isinstance(row, dict) and "runs" in row:
            numbers += [format_value(row[k], name) for k in ("mean", "p95")]
    for run in doc["results"]:
        numbers += [format_value(run["metrics"][k], k) for k in ("path_score", "composite")]
    _check(text, width, [n for n in numbers if n != "-"], next_lines=True)
    assert "latency_ms" in text and "required_tool_coverage" in text  # names whole


@WIDTH
def test_compare(
    width: int,
    results: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["compare", str(results[0]), str(results[1]), "--resamples", "200"]
    doc = _json(capsys, *argv)
    monkeypatch.setenv("COLUMNS", str(width))
    text = _run(capsys, *argv)
    left_out = _left_out(text)
    numbers = []
    for name, m in doc["metrics"].items():
        numbers += [format_value(m["diff"], name, True), format_p(m["p_holm"])]
        numbers += [format_value(v, name, True) for v in m["ci"]]
        for column in ("baseline", "variant"):
            if column not in left_out:
                numbers.append(format_value(m[column], name))
        if "p" not in left_out:
            numbers.append(format_p(m["p_value"]))
    _check(text, width, [n for n in numbers if n != "-"])


@WIDTH
def test_gate(
    width: int,
    results: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["gate", str(EXAMPLES / "gates.toml"), "--baseline", str(results[0])]
    argv += ["--variant", str(results[1])]
    doc = _json(capsys, *argv)
    monkeypatch.setenv("COLUMNS", str(width))
    text = _run(capsys, *argv)
    # baseline and variant as every table writes the metric; the decision's value and
    # threshold at 4 significant digits (cli/gate_text.py)
    numbers = [format_number(g["value"]) for g in doc["gates"]]
    numbers += [format_number(g["threshold"]) for g in doc["gates"]]
    if "baseline" not in _left_out(text):
        numbers += [format_value(g["baseline"], g["metric"]) for g in doc["gates"]]
    _check(text, width, [n for n in numbers if n != "-"])


@WIDTH
def test_retrieval(
    width: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["retrieval", str(GOLDEN / "qrels.test"), str(GOLDEN / "results.test")]
    doc = _json(capsys, *argv)
    monkeypatch.setenv("COLUMNS", str(width))
    text = _run(capsys, *argv, "--per-query")
    numbers = [format_value(value, name) for name, value in doc["summary"].items()]
    for row in doc["per_query"].values():
        numbers += [format_value(value, name) for name, value in row.items()]
    _check(text, width, numbers)


@WIDTH
def test_runs_list_and_show(
    width: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = str(tmp_path / "store")
    argv = ["score", str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / "runs.jsonl")]
    argv += ["--config", str(EXAMPLES / "pathgrade.toml"), "--save", "baseline-run"]
    _run(capsys, *argv, "--store", store)
    manifest = _json(capsys, "runs", "show", "baseline-run", "--store", store)
    monkeypatch.setenv("COLUMNS", str(width))
    listed = _run(capsys, "runs", "list", "--store", store)
    _check(listed, width, [str(manifest["runs"])])
    assert "baseline-run" in listed
    shown = _run(capsys, "runs", "show", "baseline-run", "--store", store)
    means = {
        k: v
        for k, v in manifest["summary"].items()
        if isinstance(v, int | float) and not isinstance(v, bool) and k != "runs"
    }
    assert means
    table = shown[shown.index("summary") :]
    _check(table, width, [format_value(v, k) for k, v in means.items()])


@WIDTH
def test_cases_lint(
    width: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    capsys.readouterr()
    main(["cases", "lint", str(EXAMPLES / "cases.jsonl")])
    _check(capsys.readouterr().out, width, [])


@WIDTH
def test_ablation(
    width: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The four arms of tests/cli/test_ablation_cli.py's hand-computed example.
    hand = {"c1": (0.0, 1.0, 3.0, 0.0), "c2": (1.0, 4.0, 4.0, 5.0)}
    hand |= {"c3": (2.0, 4.0, 4.0, 4.0), "c4": (1.0, 3.0, 5.0, 7.0)}
    argv = ["ablation"]
    for k, flag in enumerate(("--baseline", "--a", "--b", "--ab")):
        records = [
            {
                "schema_version": 1,
                "case_id": case,
                "run_id": f"run-{case}",
                "trial": 0,
                "metrics": {"path_score": scores[k], "goal_success": True},
                "defects": [],
            }
            for case, scores in hand.items()
        ]
        path = tmp_path / f"arm{k}.jsonl"
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
        argv += [flag, str(path)]
    argv += ["-m", "path_score", "--resamples", "300"]
    doc = _json(capsys, *argv)
    monkeypatch.setenv("COLUMNS", str(width))
    text = _run(capsys, *argv)
    numbers = []
    for name, m in doc["metrics"].items():
        for effect in m["effects"].values():
            numbers += [format_value(effect["estimate"], name, True), format_p(effect["p_holm"])]
            numbers += [format_value(v, name, True) for v in effect["ci"]]
    assert len(numbers) >= 4 * 4  # at least the four main effects of path_score
    _check(text, width, [n for n in numbers if n != "-"])
