"""One name for one quantity (issue 32): ``latency_ms``, ``tokens`` and ``cost`` appear once in
``score``'s summary, ``compare`` and ``gate``, never beside ``usage.latency_ms``,
``usage.tokens`` or ``usage.cost``; those spellings are still accepted as input, read the same
values and print one note; results scored before the system layer still show latency.

On the bundled examples (examples/runs.jsonl, examples/runs_variant.jsonl, scored with
examples/pathgrade.toml) only refund-A17's runs A and B record usage: latency 4200 and 7900 ms
(mean 6050, the one case with a latency), tokens 1800 and 3100 (mean 2450); in the variant
A' and B' record 4200 and 4400 ms (mean 4300) and 1800 and 1900 tokens (mean 1850): the
paired differences are -1750 ms and -600 tokens; no run records a cost.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.cli.main import main

EXAMPLES = Path(__file__).parents[2] / "examples"
ONE = ("latency_ms", "tokens", "cost")
OLD = ("usage.latency_ms", "usage.tokens", "usage.cost")
NOTE = "pathgrade: note: metric name 'usage.latency_ms' is deprecated"


def _score(capsys: pytest.CaptureFixture[str], runs: str, *extra: str) -> str:
    argv = ["score", str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / runs)]
    assert main([*argv, "--config", str(EXAMPLES / "pathgrade.toml"), *extra]) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The examples scored to results files: baseline and variant."""
    folder = tmp_path_factory.mktemp("one_name")
    out = []
    for runs in ("runs.jsonl", "runs_variant.jsonl"):
        path = folder / runs
        argv = ["score", str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / runs)]
        assert main([*argv, "--config", str(EXAMPLES / "pathgrade.toml"), "--out", str(path)]) == 0
        out.append(str(path))
    return out[0], out[1]


def _old_style(path: str, into: Path) -> str:
    """The results as scored before the system layer: no latency/tokens/cost metrics, only
    the records' usage objects."""
    lines = []
    for line in Path(path).read_text("utf-8").splitlines():
        record = json.loads(line)
        for name in ONE:
            record["metrics"].pop(name, None)
        lines.append(json.dumps(record))
    into.write_text("\n".join(lines) + "\n", "utf-8")
    return str(into)


def _keys(value: Any) -> list[str]:
    """Every key of a JSON document, at any depth."""
    if isinstance(value, dict):
        return [*value, *(k for v in value.values() for k in _keys(v))]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


def _rows(text: str, name: str) -> list[str]:
    """Lines of a table whose first cell is ``name``."""
    return [line for line in text.splitlines() if line.split()[:1] == [name]]


# --- score ------------------------------------------------------------------------------------


def test_score_json_names_each_amount_once(capsys: pytest.CaptureFixture[str]) -> None:
    doc = orjson.loads(_score(capsys, "runs.jsonl", "--json"))
    summary = doc["summary"]
    assert not set(OLD) & set(_keys(summary))
    assert (summary["latency_ms"], summary["tokens"], summary["cost"]) == (6050.0, 2450.0, None)
    assert [k for k in summary if k in ONE] == list(ONE)  # one top-level mean each
    assert [k for k in summary["by_case"] if k in ONE] == list(ONE)
    assert summary["system"]["latency_ms"]["mean"] == 6050.0
    for record in doc["results"]:
        assert [k for k in record["metrics"] if k in ONE] == list(ONE)
        assert not set(OLD) & set(record["metrics"])
        # the usage object is data and keeps its schema
        assert list(record["usage"]) == ["steps", "tokens", "cost", "latency_ms"]
    first = doc["results"][0]
    assert first["metrics"]["latency_ms"] == first["usage"]["latency_ms"] == 4200.0


def test_score_text_shows_each_amount_once(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    text = _score(capsys, "runs.jsonl")
    assert not any(old in text for old in OLD)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Summary over" in line)
    table = next(i for i, line in enumerate(lines) if line.strip() == "System")
    summary, system = "\n".join(lines[start:table]), "\n".join(lines[table:])
    for name in ONE:
        # One row, in the System table: its mean of per-case means, percentiles and the
        # mean's interval; the summary over cases says where it went.
        assert not _rows(summary, name), name
        assert len(_rows(system, name)) == 1, name
    assert "latency_ms, tokens, cost: in the System table below" in summary
    assert "6,050" in _rows(system, "latency_ms")[0]
    assert "[6,050, 6,050]" in _rows(system, "latency_ms")[0]  # the mean's 95% CI


# --- compare ----------------------------------------------------------------------------------


def test_compare_names_each_amount_once(
    results: tuple[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert main(["compare", *results, "--json", "--resamples", "200"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    names = list(doc["metrics"])
    assert [n for n in names if n in ONE] == list(ONE)
    assert not set(OLD) & set(names) and "usage.steps" in names
    assert doc["metrics"]["latency_ms"]["diff"] == -1750.0
    assert doc["metrics"]["tokens"]["diff"] == -600.0
    assert doc["metrics"]["cost"]["verdict"] == "no paired data"
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["compare", *results, "--resamples", "200"]) == 0
    text = capsys.readouterr().out
    assert not any(old in text for old in OLD)
    for name in ONE:
        assert len(_rows(text, name)) == 1, name
    assert "-1,750" in _rows(text, "latency_ms")[0]


def test_compare_metric_accepts_the_old_spelling_with_one_note(
    results: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", *results, "--json", "--resamples", "200"]
    assert main([*argv, "--metric", "latency_ms"]) == 0
    one = capsys.readouterr()
    assert main([*argv, "--metric", "usage.latency_ms"]) == 0
    old = capsys.readouterr()
    assert old.out == one.out  # the same document: compared under the one name
    assert list(orjson.loads(old.out)["metrics"]) == ["latency_ms"]
    assert NOTE not in one.err
    notes = [line for line in old.err.splitlines() if line.startswith("pathgrade: note:")]
    assert len(notes) == 1 and notes[0].startswith(NOTE) and "'latency_ms'" in notes[0]


# --- gate -------------------------------------------------------------------------------------

GATES = """
[[gate]]
metric = "{latency}"
statistic = "p95"
rule = "max_relative_change"
threshold = 0.15

[[gate]]
metric = "{tokens}"
rule = "max"
threshold = 2000
"""


def _gate(capsys: pytest.CaptureFixture[str], gates: Path, sides: tuple[str, str]) -> Any:
    code = main(["gate", str(gates), "--baseline", sides[0], "--variant", sides[1], "--json"])
    captured = capsys.readouterr()
    return code, orjson.loads(captured.out), captured.err


def test_a_gate_on_the_old_spelling_is_the_gate_on_the_one_name(
    results: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = tmp_path / "new.toml"
    new.write_text(GATES.format(latency="latency_ms", tokens="tokens"), "utf-8")
    old = tmp_path / "old.toml"
    old.write_text(GATES.format(latency="usage.latency_ms", tokens="usage.tokens"), "utf-8")
    code_new, doc_new, err_new = _gate(capsys, new, results)
    code_old, doc_old, err_old = _gate(capsys, old, results)
    assert code_new == code_old == 0
    assert doc_old["gates"] == doc_new["gates"]
    latency, tokens = doc_new["gates"]
    # p95 of 4200, 7900 ms: 4200 + 0.95 * 3700 = 7715; of 4200, 4400: 4390; -0.431
    assert (latency["metric"], latency["baseline"], latency["variant"]) == (
        "latency_ms",
        7715.0,
        4390.0,
    )
    assert latency["value"] == pytest.approx(4390 / 7715 - 1)
    assert (tokens["metric"], tokens["variant"], tokens["passed"]) == ("tokens", 1850.0, True)
    assert "note" not in err_new
    notes = [line for line in err_old.splitlines() if line.startswith("pathgrade: note:")]
    assert len(notes) == 2  # once per old spelling, though each is checked twice on load
    assert notes[0].startswith(NOTE)
    assert "'usage.tokens' is deprecated" in notes[1]


# --- results scored before the system layer -----------------------------------------------------


def test_old_results_still_show_latency(
    results: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = (
        _old_style(results[0], tmp_path / "a.jsonl"),
        _old_style(results[1], tmp_path / "b.jsonl"),
    )
    assert main(["compare", *old, "--json", "--resamples", "200"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert [n for n in doc["metrics"] if n in ONE] == list(ONE)
    assert not set(OLD) & set(doc["metrics"])
    latency = doc["metrics"]["latency_ms"]
    assert (latency["baseline"], latency["variant"], latency["diff"]) == (6050.0, 4300.0, -1750.0)
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["compare", *old, "--resamples", "200"]) == 0
    assert "-1,750" in _rows(capsys.readouterr().out, "latency_ms")[0]
    gates = tmp_path / "g.toml"
    gates.write_text(GATES.format(latency="latency_ms", tokens="tokens"), "utf-8")
    _, doc_old, _ = _gate(capsys, gates, old)
    _, doc_new, _ = _gate(capsys, gates, results)
    assert doc_old["gates"] == doc_new["gates"]
