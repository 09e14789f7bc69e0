"""The hand-written fixture set of tests/data/layers: a tools file, five cases, five runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade.core.types import Case, Run

LAYERS = Path(__file__).resolve().parents[1] / "data" / "layers"


def _jsonl(name: str) -> list[dict[str, object]]:
    with (LAYERS / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="session")
def layer_cases() -> dict[str, Case]:
    cases = [Case.model_validate(row) for row in _jsonl("cases.jsonl")]
    return {case.case_id: case for case in cases}


@pytest.fixture(scope="session")
def layer_runs() -> list[Run]:
    return [Run.model_validate(row) for row in _jsonl("runs.jsonl")]


@pytest.fixture(scope="session")
def tools_path() -> Path:
    return LAYERS / "tools.json"
