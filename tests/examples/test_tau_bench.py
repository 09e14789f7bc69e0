"""The tau-bench example end to end: 200 real airline runs, pass^k and hand-checked scores."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest

import pathgrade
from pathgrade.core.results import RunResult
from pathgrade.report.number_text import format_value

from .scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "tau_bench" / "score_tau_bench.py"


def _load() -> ModuleType:
    return load_script(SCRIPT, "score_tau_bench")


@pytest.fixture(scope="module")
def example() -> ModuleType:
    return _load()


@pytest.fixture(scope="module")
def doc(example: ModuleType) -> dict[str, Any]:
    cases, runs = example.cases_and_runs()
    result: dict[str, Any] = example.report(cases, runs)
    return result


@pytest.fixture(scope="module")
def results(example: ModuleType) -> dict[str, RunResult]:
    cases, runs = example.cases_and_runs()
    scored = pathgrade.score(cases, runs, example.config())
    return {r.run_id or "": r for r in scored}


def test_pass_hat_k_from_the_recorded_reward(doc: dict[str, Any]) -> None:
    # tau-bench's own figures for gpt-4o airline (its README and SUMMARY.json).
    assert doc["runs"] == 200 and doc["cases"] == 50
    assert doc["mean_reward"] == pytest.approx(0.42)
    assert doc["pass^k"] == {"1": 0.42, "2": 0.2733, "3": 0.22, "4": 0.2}


def test_agreement_matches_the_independent_analysis(doc: dict[str, Any]) -> None:
    # The shared data README found, independently, that "every gold call present with exact
    # args" agrees with the reward in 77% of runs: 27 reward-1 runs miss a gold call, and
    # 19 reward-0 runs have every gold call. missing_steps == 0 is that criterion.
    row = doc["agreement"]["all_gold_calls"]
    assert row["agreement"] == pytest.approx(0.77)
    assert (row["path_pass_reward_0"], row["path_fail_reward_1"]) == (19, 27)
    writes = doc["agreement"]["writes_exact"]
    assert writes["agreement"] == pytest.approx(0.935)
    # 9 of its 10 reward-1 misses are write calls that returned an error (nothing changed);
    # not counting failed calls leaves 1 + 4 disagreements.
    effective = doc["agreement"]["effective_writes"]
    assert effective["agreement"] == pytest.approx(0.975)
    assert (effective["path_pass_reward_0"], effective["path_fail_reward_1"]) == (4, 1)
    assert doc["agreement"]["exact_path"]["path_pass_reward_0"] == 0


def run(results: dict[str, RunResult], task: int, trial: int) -> RunResult:
    return results[f"tau_bench/airline/test/{task}#gpt-4o#trial{trial}"]


def test_task6_trial0_by_hand(results: dict[str, RunResult]) -> None:
    # Gold: [update_reservation_flights(M05KNL ...)] (R = 1). Agent (A = 6): get_user_details,
    # get_reservation_details, search_onestop_flight, think, calculate, then the gold call
    # with exactly the gold arguments. N = max(R, A) = 6.
    # tool/argument accuracy = 1 aligned match / 6; step order = 1 - Levenshtein/6 = 1 - 5/6;
    # path efficiency = R/A = 1/6; composite = (0.3 + 0.3 + 0.2 + 0.2) * 1/6 = 1/6.
    # The five extra steps are reads that repeat nothing: no defect, path_score = 100.
    # tool_f1 = 2 * 1 / (1 + 6) = 2/7. Reward 1: path and outcome agree.
    r = run(results, 6, 0)
    for name in (
        "tool_accuracy",
        "argument_accuracy",
        "step_order_accuracy",
        "path_efficiency",
        "composite",
    ):
        assert r.metrics[name] == pytest.approx(1 / 6), name
    assert r.metrics["path_score"] == 100.0 and r.defects == ()
    assert r.metrics["tool_f1"] == pytest.approx(2 / 7)


def test_task0_trial0_by_hand(results: dict[str, RunResult]) -> None:
    # Gold: one book_reservation with nonfree_baggages 0 and payments 250 + 5 (R = 1).
    # Agent (A = 8): reads and calculations, a book_reservation with nonfree_baggages 1 (it
    # failed, step 4), think, calculate, and a book_reservation paying 250 + 55 (step 7).
    # Neither booking has the gold arguments: the gold step is missing (-25) and both
    # bookings are writes no reference step asked for (2 x -25): path_score = 100 - 75 = 25.
    # One aligned tool match: tool accuracy = step order = path efficiency = 1/8, argument
    # accuracy 0; composite = 0.3/8 + 0.2/8 + 0.2/8 = 0.0875; tool_f1 = 2/(1 + 8). Reward 0.
    r = run(results, 0, 0)
    assert r.metrics["path_score"] == 25.0
    assert r.metrics["argument_accuracy"] == 0.0
    assert r.metrics["tool_accuracy"] == pytest.approx(1 / 8)
    assert r.metrics["step_order_accuracy"] == pytest.approx(1 / 8)
    assert r.metrics["composite"] == pytest.approx(0.0875)
    assert r.metrics["tool_f1"] == pytest.approx(2 / 9)
    kinds = [(d.kind, d.agent_step, d.reference_step) for d in r.defects]
    assert ("missing_step", None, 0) in kinds
    assert ("unexpected_write", 4, None) in kinds and ("unexpected_write", 7, None) in kinds


def test_where_path_and_outcome_disagree(results: dict[str, RunResult]) -> None:
    # Task 15 has an empty gold list (the right outcome is to change nothing). In trial 2 the
    # agent tried update_reservation_flights, which failed: nothing changed, reward 1, but the
    # path counts the attempted write: path_score = 100 - 25 = 75.
    r = run(results, 15, 2)
    assert r.metrics["path_score"] == 75.0
    assert [d.kind for d in r.defects] == ["unexpected_write"]
    # Task 2 trial 1 made all five gold writes exactly and nothing else that costs points
    # (path_score 100), but the episode never finished, so the reward is 0.
    assert run(results, 2, 1).metrics["path_score"] == 100.0
    # Task 1 trial 0 did nothing at all: the gold cancel is missing, 100 - 25 = 75, and
    # path efficiency is 0 (only the agent's path is empty).
    empty = run(results, 1, 0)
    assert empty.metrics["path_score"] == 75.0 and empty.metrics["path_efficiency"] == 0.0


def test_script_prints_both_tables(example: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert example.main([]) == 0
    out = capsys.readouterr().out
    assert "k=1: 0.4200, k=2: 0.2733, k=3: 0.2200, k=4: 0.2000" in out
    assert "argument matching: exact" in out and "argument matching: lenient" in out


# --- The two commands of docs/tau_bench.md ---------------------------------------------------

ROOT = SCRIPT.parents[2]
DOC = ROOT / "docs" / "tau_bench.md"
TOML = ROOT / "examples" / "tau_bench" / "pathgrade.toml"


def _doc_table(heading: str) -> list[list[str]]:
    """The body rows of the first table after ``heading`` in docs/tau_bench.md."""
    lines = DOC.read_text().split(heading, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return [
        [cell.strip().strip("*") for cell in line.strip("|").split("|")]
        for line in lines[start + 2 : end]  # after the header and the |---| line
    ]


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from pathgrade.cli.main import main

    folder = tmp_path_factory.mktemp("tau_cli")
    runs, cases = folder / "runs.jsonl", folder / "cases.jsonl"
    source = ROOT / "examples" / "tau_bench" / "tau_bench_runs.jsonl"
    assert main(["ingest", str(source), "-o", str(runs), "--cases-out", str(cases)]) == 0
    return cases, runs


def test_the_two_commands_are_the_ones_the_doc_shows() -> None:
    text = DOC.read_text()
    assert (
        "pathgrade ingest examples/tau_bench/tau_bench_runs.jsonl -o runs.jsonl"
        " --cases-out cases.jsonl\n"
        "pathgrade score cases.jsonl runs.jsonl --config examples/tau_bench/pathgrade.toml\n"
    ) in text


def test_score_prints_the_figures_of_the_doc(
    cli_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from pathgrade.cli.main import main

    cases, runs = cli_files
    capsys.readouterr()
    assert main(["score", str(cases), str(runs), "--config", str(TOML), "--limit", "0"]) == 0
    out = capsys.readouterr().out
    printed = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[2].startswith("["):
            printed[parts[0]] = parts[1]  # metric, mean (as the summary table prints it)
    # The mean column of the doc's path metrics table, row by row, is what score prints:
    # path_score 54.5 (54.475), missing_steps 1.205, redundant_steps 0.070 ...
    rows = _doc_table("## Path metrics (exact matching)")
    assert len(rows) == 9
    for row in rows:
        name = row[0].split()[0]
        assert printed[name] == row[1], name
    assert printed["path_score"] == "54.5"
    # pass^k row and the defect counts of the doc.
    (passk,) = [r for r in _doc_table("## Outcome: pass^k") if r[0] == "pass^k"]
    # printed by the one number rule: a proportion with 3 decimals (0.2733 -> 0.273)
    expected = ", ".join(
        f"k={k} {format_value(float(v), 'pass^k')}" for k, v in enumerate(passk[1:], 1)
    )
    assert f"pass^k: {expected}" in out
    flat = " ".join(out.split())
    assert (
        "defects: missing_step 241, out_of_order 26, unexpected_write 162,"
        " unrecovered_error 40, wasted_step 14"
    ) in flat
    doc = " ".join(DOC.read_text().split())
    assert (
        "missing_step 241, unexpected_write 162, unrecovered_error 40, out_of_order 26,"
        " wasted_step 14."
    ) in doc


def test_without_the_config_no_write_is_declared(
    cli_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The figure the doc gives for scoring without the config (extra writes cost nothing).
    from pathgrade.cli.main import main

    cases, runs = cli_files
    empty = tmp_path / "pathgrade.toml"
    empty.write_text("")
    capsys.readouterr()
    assert main(["score", str(cases), str(runs), "--config", str(empty), "--json"]) == 0
    summary = orjson.loads(capsys.readouterr().out)["summary"]
    assert f"{summary['path_score']:.1f}" == "69.9"
    assert "gives a path_score of 69.9" in " ".join(DOC.read_text().split())


def test_cli_cases_and_the_script_cases_agree(
    cli_files: tuple[Path, Path], example: ModuleType
) -> None:
    from pathgrade.io.cases import load_cases, load_runs

    cases, runs = cli_files
    script_cases, script_runs = example.cases_and_runs()
    assert load_cases(cases).items == script_cases
    assert load_runs(runs).items == script_runs


def test_the_conversation_figures_of_the_doc(
    cli_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/tau_bench.md, "Conversations": the bundled runs keep their turns, so score also
    # runs the conversation layer; the path figures above do not move.
    from pathgrade.cli.main import main

    cases, runs = cli_files
    capsys.readouterr()
    assert main(["score", str(cases), str(runs), "--config", str(TOML), "--json"]) == 0
    record = orjson.loads(capsys.readouterr().out)
    summary, results = record["summary"], record["results"]
    conversations = summary["conversations"]
    assert conversations["runs"] == 200 and conversations["turns"] == {"mean": 6.715, "max": 30}
    assert conversations["pass^k"] == pytest.approx(
        {"1": 0.42, "2": 0.2733, "3": 0.22, "4": 0.2}, abs=1e-4
    )
    assert conversations["divergence"]["diverged"] == 50
    assert conversations["divergence"]["first_turn"] == {"1": 50}
    metrics = [r["metrics"] for r in results]
    assert summary["conversation_success"] == pytest.approx(0.42)
    assert sum(m["turns"] for m in metrics) == 1343
    took = [m["turns_to_success"] for m in metrics if m["turns_to_success"] is not None]
    assert len(took) == 84 and f"{sum(took) / 84:.2f}" == "6.15"
    assert f"{summary['by_case']['turns_to_success']['mean']:.3f}" == "6.243"
    assert [m["premature_end"] for m in metrics].count(True) == 13
    assert summary["undefined"]["premature_end"] == 5
    errors = [m for m in metrics if m["first_error_turn"] is not None]
    assert len(errors) == 36 and summary["first_error_turn"] == 6.5
    assert [m["error_recovered"] for m in errors].count(True) == 26
    assert f"{summary['turns_to_recovery']:.2f}" == "1.38"
    for name in ("user_outcome", "reasked_facts", "escalation_correct", "turn_path_score"):
        assert name not in summary, name
    assert "conversation" not in summary["not_computed"]
    doc = " ".join(DOC.read_text().split())
    for figure in ("6.715 on average (2 to 30, 1343 in all)", "147 conversations", "took 6.15"):
        assert figure in doc, figure
