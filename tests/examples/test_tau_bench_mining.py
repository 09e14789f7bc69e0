"""Mined references on the tau-bench example: the figures of docs/tau_bench.md, pinned."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pathgrade.io.ingest import tau_bench

from .scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "tau_bench" / "mine_references.py"
DOC = Path(__file__).resolve().parents[2] / "docs" / "tau_bench.md"


def _load() -> ModuleType:
    return load_script(SCRIPT, "mine_references")


@pytest.fixture(scope="module")
def example() -> ModuleType:
    return _load()


@pytest.fixture(scope="module")
def result(example: ModuleType) -> dict[str, Any]:
    path = example.RUNS
    measured: dict[str, Any] = example.measure(
        tau_bench.read_cases(path), list(tau_bench.read(path))
    )
    return measured


def test_what_was_mined(result: dict[str, Any]) -> None:
    # 31 of 50 tasks have a reward-1 run among trials 0-1; 10 of them two different paths.
    assert (result["tasks"], result["tasks_mined"]) == (50, 31)
    assert result["tasks_with_several_paths"] == 10
    assert result["partial_order_proposals"] == 1 and result["grammar_steps"] == 8
    # Two logs per task at most: no two calls at one place are each made by two successful
    # runs, and no steps were seen in both orders, so no one_of and no unordered group; with
    # min_choice_runs=1, 6 choices.
    assert (result["unordered_steps"], result["choices_from_one_run"]) == (0, 6)


def test_auc_of_mined_against_gold_references(result: dict[str, Any]) -> None:
    rows = {row["references"]: row for row in result["rows"]}
    mined = rows["mined from trials 0-1"]
    gold = rows["gold actions, same runs"]
    every = rows["gold actions, all tasks"]
    loose = rows["mined, min_choice_runs=1"]
    assert (loose["path_score_reward_1"], loose["path_score_reward_0"]) == (70.1, 32.6)
    assert loose["auc"] == 0.806
    assert (mined["runs"], mined["reward_1"]) == (gold["runs"], gold["reward_1"]) == (62, 35)
    assert (every["runs"], every["reward_1"]) == (100, 41)
    assert (mined["path_score_reward_1"], mined["path_score_reward_0"]) == (78.0, 33.5)
    assert (gold["path_score_reward_1"], gold["path_score_reward_0"]) == (83.7, 45.2)
    assert (mined["auc"], gold["auc"], every["auc"]) == (0.843, 0.861, 0.915)


def test_the_doc_shows_the_table(example: ModuleType, result: dict[str, Any]) -> None:
    assert example.table(result) in DOC.read_text(encoding="utf-8")
