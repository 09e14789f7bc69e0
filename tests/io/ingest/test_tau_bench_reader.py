"""tau-bench compact runs reader: runs, cases from gold actions, bad lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, detect, tau_bench

from .helpers import write_lines

SHARED = Path(__file__).resolve().parents[3] / "examples" / "tau_bench" / "tau_bench_runs.jsonl"


def record(**extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "case_id": "tau/0",
        "run_id": "tau/0#m#trial1",
        "trial": 1,
        "domain": "airline",
        "task_id": 0,
        "model": "m",
        "instruction": "cancel it",
        "gold_actions": [{"tool": "cancel_reservation", "arguments": {"reservation_id": "Z"}}],
        "gold_outputs": ["42"],
        "agent_actions": [
            {"tool": "get_reservation_details", "arguments": {"reservation_id": "Z"}},
            {"tool": "cancel_reservation", "arguments": {"reservation_id": "Z"}},
        ],
        "agent_tool_error_indices": [0],
        "reward": 1.0,
        "r_actions": None,
        "r_outputs": 1.0,
        "episode_done": True,
    }
    base.update(extra)
    return base


def test_golden_run_and_case(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "tau.jsonl", [record()])
    assert detect(path).name == "tau-bench"
    (run,) = list(tau_bench.read(path))
    assert (run.case_id, run.run_id, run.trial, run.success) == ("tau/0", "tau/0#m#trial1", 1, True)
    assert [s.tool for s in run.steps] == ["get_reservation_details", "cancel_reservation"]
    assert run.steps[0].error is not None and run.steps[1].error is None
    assert run.metadata["r_outputs"] == 1.0
    (case,) = tau_bench.read_cases(path)
    assert case.reference is not None and [str(s) for s in case.reference] == [
        "cancel_reservation(reservation_id='Z')"
    ]
    assert case.metadata["gold_outputs"] == ["42"]


def test_bad_lines(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "tau.jsonl",
        [record(), b"{", record(reward="yes"), record(agent_actions=[{"name": "x"}])],
    )
    with pytest.raises(InputError) as caught:
        list(tau_bench.read(path))
    assert caught.value.line == 2
    options = IngestOptions(skip_invalid=True)
    assert len(list(tau_bench.read(path, options))) == 1
    assert [(e.line, e.field) for e in options.skipped] == [
        (2, None),
        (3, "reward"),
        (4, "agent_actions"),
    ]


def test_the_shared_file_loads_whole() -> None:
    runs = list(tau_bench.read(SHARED))
    assert len(runs) == 200 and sum(bool(r.success) for r in runs) == 84
    assert len(tau_bench.read_cases(SHARED)) == 50
