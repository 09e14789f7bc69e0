"""Shared fixtures: the example suite scored once per test session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pathgrade.core.config import ScoringConfig
from pathgrade.core.results import ScoreResult
from pathgrade.core.types import Case, Run
from pathgrade.evaluate import score
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.config import load_config

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class Scored:
    result: ScoreResult
    runs: list[Run]
    cases: dict[str, Case]
    config: ScoringConfig


@pytest.fixture(scope="session")
def scored() -> Scored:
    config = load_config(EXAMPLES / "pathgrade.toml")
    cases = {c.case_id: c for c in load_cases(EXAMPLES / "cases.jsonl").items}
    runs = list(load_runs(EXAMPLES / "runs.jsonl", cases).items)
    return Scored(score(cases, runs, config), runs, cases, config)
