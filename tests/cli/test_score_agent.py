"""``pathgrade score --agent NAME``: one agent's sub-path, the same on every engine."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.engines.work import ScoreTask, release_job_state, run_task
from pathgrade.evaluate import score
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.partitions import plan_partitions
from pathgrade.io.results import jsonl_records, read_results
from pathgrade.store import RunStore


def _step(tool: str, agent: str | None = None) -> dict[str, Any]:
    return {"tool": tool, "metadata": {} if agent is None else {"agent": agent}}


P, R = "planner", "researcher"
CASES = [
    {
        "case_id": "c1",
        "reference": ["plan", "search", "fetch", "answer"],
        "references_by_agent": {R: ["search", "fetch"]},
        "gold_answer": "42",
    },
    {
        "case_id": "c2",
        "reference": ["plan", "search", "answer"],
        "references_by_agent": {R: [["search"], ["search", "fetch"]], P: ["plan", "answer"]},
    },
    {"case_id": "c3", "reference": ["plan"]},  # no reference for any agent
]
RUNS = [
    {
        "case_id": "c1",
        "run_id": "perfect",
        "steps": [_step("plan", P), _step("search", R), _step("fetch", R), _step("answer", P)],
        "answer": "42",
    },
    {
        "case_id": "c1",
        "run_id": "repeats",
        "trial": 1,
        "steps": [_step("plan", P), _step("search", R), _step("search", R), _step("fetch", R)],
    },
    {
        "case_id": "c2",
        "run_id": "second-path",
        "steps": [_step("setup"), _step("plan", P), _step("search", R), _step("fetch", R)],
    },
    {"case_id": "c3", "run_id": "no-reference", "steps": [_step("plan", P), _step("search", R)]},
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    cases, runs = tmp_path / "cases.jsonl", tmp_path / "runs.jsonl"
    cases.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    runs.write_text("".join(json.dumps(r) + "\n" for r in RUNS), encoding="utf-8")
    return cases, runs


def _score(files: tuple[Path, Path], out: Path, *options: str) -> list[dict[str, Any]]:
    assert main(["score", str(files[0]), str(files[1]), "--out", str(out), *options]) == 0
    return read_results(out)


def _by_run(records: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return {r["run_id"]: r["metrics"][name] for r in records}


def test_the_researchers_sub_paths_hand_computed(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _score(files, tmp_path / "r.jsonl", "--agent", R)
    # perfect: [search, fetch] = its reference. repeats: [search, search, fetch], the second
    # search repeats the first: one wasted step, 100 - 10 = 90, tool_accuracy 2 / N=3.
    # second-path: [search, fetch] matches c2's path 1 exactly. no-reference: c3 gives the
    # researcher none: null, never c3's whole-run reference.
    assert _by_run(records, "path_score") == {
        "perfect": 100,
        "repeats": 90,
        "second-path": 100,
        "no-reference": None,
    }
    assert _by_run(records, "tool_accuracy")["perfect"] == 1
    assert math.isclose(_by_run(records, "tool_accuracy")["repeats"], 2 / 3)
    assert [r["reference_index"] for r in records] == [0, 0, 1, None]
    assert set(_by_run(records, "goal_success").values()) == {None}  # the whole run's
    assert [r["usage"]["steps"] for r in records] == [2, 3, 2, 1]  # the sub-paths' steps
    assert {r["provenance"]["variables"]["agent_scope"] for r in records} == {R}
    err = capsys.readouterr().err
    assert err.strip() == (
        "warning: 1 of 3 cases have no reference for agent 'researcher' (references_by_agent"
        " names planner, researcher): scored with no reference (trajectory metrics undefined)"
    )
    whole = _score(files, tmp_path / "whole.jsonl")
    # The whole runs differ: perfect is perfect, c1's "repeats" misses answer, and so on.
    assert _by_run(whole, "path_score")["perfect"] == 100
    assert _by_run(whole, "path_score") != _by_run(records, "path_score")
    assert "agent_scope" not in whole[0]["provenance"]["variables"]


def test_every_engine_gives_the_same_records_and_agent_summary(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = _score(files, tmp_path / "m.jsonl", "--agent", R)
    local = _score(files, tmp_path / "l.jsonl", "--agent", R, "--partition-size", "1")
    pool = _score(
        files, tmp_path / "p.jsonl", "--agent", R, "--partition-size", "2", "--workers", "2"
    )
    assert memory == local == pool
    assert (tmp_path / "m.jsonl").read_bytes() == (tmp_path / "p.jsonl").read_bytes()
    capsys.readouterr()
    summaries, warnings = [], []
    for extra in ([], ["--partition-size", "1"]):
        assert main(["score", *map(str, files), "--agent", R, "--json", *extra]) == 0
        printed = capsys.readouterr()
        summaries.append(json.loads(printed.out)["summary"]["agent"])
        warnings.append(printed.err)
    assert summaries[0] == summaries[1] and warnings[0] == warnings[1]
    assert summaries[0]["cases_without_reference"] == 1 and summaries[0]["cases"] == 3
    assert warnings[0].startswith("warning: 1 of 3 cases have no reference for agent")


def test_the_dask_engine_gives_the_same_records(files: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    memory = _score(files, tmp_path / "m.jsonl", "--agent", R)
    dask = _score(files, tmp_path / "d.jsonl", "--agent", R, "--engine", "dask", "--workers", "1")
    assert memory == dask


def test_a_task_without_provenance_records_its_agent(files: tuple[Path, Path]) -> None:
    partition = plan_partitions(files[1], 10)[0]
    task = ScoreTask(str(files[0]), partition, agent=R)
    try:
        records = jsonl_records(run_task(task).take_records())
    finally:
        release_job_state()  # the task ran in this process: leave no pools behind
    assert {r["provenance"]["variables"]["agent_scope"] for r in records} == {R}
    assert [r["metrics"]["path_score"] for r in records] == [100, 90, 100, None]


def test_the_python_api_gives_the_cli_s_scores(files: tuple[Path, Path], tmp_path: Path) -> None:
    records = _score(files, tmp_path / "r.jsonl", "--agent", P)
    cases = {c.case_id: c for c in load_cases(files[0]).items}
    result = score(cases, load_runs(files[1], cases).items, agent=P)
    for name, values in result.metrics.items():
        api = [None if math.isnan(v) else v for v in values.tolist()]
        cli = [r["metrics"].get(name) for r in records]
        assert api == [None if v is None else float(v) for v in cli], name
    # planner: c1 and c3 give it no reference; c2's [plan] against [plan, answer] misses one.
    assert _by_run(records, "path_score") == {
        "perfect": None,
        "repeats": None,
        "second-path": 75,
        "no-reference": None,
    }


def test_compare_refuses_an_agent_against_the_whole_run(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = tmp_path / "whole.jsonl", tmp_path / "researcher.jsonl"
    _score(files, base)
    _score(files, var, "--agent", R)
    capsys.readouterr()
    fast = ["--resamples", "200"]
    assert main(["compare", str(base), str(var), *fast]) == 2
    err = capsys.readouterr().err
    assert "scored differently (scoring config hash:" in err
    assert "(agent: whole run vs researcher)" in err and "--allow-config-change" in err
    assert main(["compare", str(base), str(var), *fast, "--allow-config-change"]) == 0
    out = capsys.readouterr().out
    assert "agent_scope (not recorded -> researcher)" in out
    same = tmp_path / "again.jsonl"
    _score(files, same, "--agent", R)
    capsys.readouterr()
    assert main(["compare", str(var), str(same), *fast]) == 0


def test_the_agent_scope_variable_is_agents_own(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["score", *map(str, files), "--label", "agent_scope=x"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "use --agent NAME" in err and "Traceback" not in err
    assert main([*argv, "--agent", R]) == 2
    capsys.readouterr()
    assert main(["score", *map(str, files), "--agent", " "]) == 2
    assert "--agent needs an agent's name" in capsys.readouterr().err


def test_the_table_names_the_agent_and_save_stores_the_views(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    argv = ["score", *map(str, files), "--agent", R, "--save", "r1", "--store", str(store)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "agent scope: researcher (its sub-path only; not scored: goal_success," in out
    stored = RunStore(store).load("r1")
    assert stored.manifest.variables["agent_scope"] == R
    assert [r["usage"]["steps"] for r in stored.records] == [2, 3, 2, 1]  # the views'
