"""Under pytest-xdist the workers' results reach the controller: the stored run is the one a
session without workers stores (a differential test), and the gates still set the status."""

from __future__ import annotations

import json

import pytest

from pathgrade.store import RunStore

pytest.importorskip("xdist")
pytest_plugins = ["pytester"]

CASES = [
    {
        "case_id": f"c{i}",
        "reference": [f"lookup:{i}", f"refund:{i}"],
        "tool_kinds": {"refund": "write"},
    }
    for i in range(4)
]
TESTS = """
import os

import pytest

from pathgrade import Run
from pathgrade.testing import assert_path


def plan(case, trial=None):
    steps = [s.tool + ":" + s.arguments[0] for s in case.reference]
    if os.environ.get("WASTE") if trial is None else trial % 2:
        steps.insert(0, steps[0])
    return Run(case_id=case.case_id, steps=steps)


def test_path(pathgrade_case):
    assert_path(plan(pathgrade_case), pathgrade_case)


@pytest.mark.pathgrade_trials(4, pass_at_k=(1, 0.5))
def test_trials(pathgrade_cases, pathgrade_trial):
    case = pathgrade_cases["c0"]
    assert_path(plan(case, pathgrade_trial), case, min_path_score=100)


def test_two_cases(pathgrade_cases):
    for case_id in ("c1", "c2", "c1"):
        assert_path(plan(pathgrade_cases[case_id]), pathgrade_cases[case_id])
"""
#: Two workers (pytest-benchmark off: it warns that it cannot time under xdist).
WORKERS = ("-p", "no:benchmark", "-n", "2")
GATES = '[[gate]]\nmetric = "path_score"\nrule = "not_below_baseline"\n'


@pytest.fixture
def store(pytester: pytest.Pytester) -> str:
    pytester.makefile(".jsonl", cases="".join(json.dumps(c) + "\n" for c in CASES))
    pytester.makefile(".toml", gates=GATES)
    pytester.makeini("[pytest]\npathgrade_cases = cases.jsonl\n")
    pytester.makepyfile(test_agent=TESTS)
    return str(pytester.path / "store")


def test_workers_store_what_one_process_stores(pytester: pytest.Pytester, store: str) -> None:
    pytester.runpytest("--pathgrade-store", store, "--pathgrade-save", "serial").assert_outcomes(
        passed=6
    )
    result = pytester.runpytest(*WORKERS, "--pathgrade-store", store, "--pathgrade-save", "workers")
    result.assert_outcomes(passed=6)
    # 4 cases + 4 trials + 3 checks of two cases.
    result.stdout.fnmatch_lines(["pathgrade: 11 results of 6 tests saved as run 'workers' (*)."])
    serial, workers = RunStore(store).load("serial"), RunStore(store).load("workers")
    assert workers.records == serial.records
    assert workers.traces == serial.traces
    ids = [(r["case_id"].removeprefix("test_agent.py::"), r["trial"]) for r in workers.records]
    assert ids == [
        *((f"test_path[c{i}]", 0) for i in range(4)),
        *(("test_trials", trial) for trial in range(4)),
        ("test_two_cases::c1", 0),
        ("test_two_cases::c1", 1),
        ("test_two_cases::c2", 0),
    ]
    # Trials 1 and 3 repeat the look-up: path_score 100 - 10 = 90.
    trials = {
        r["trial"]: r["metrics"]["path_score"] for r in workers.records if "trials" in r["case_id"]
    }
    assert trials == {0: 100.0, 1: 90.0, 2: 100.0, 3: 90.0}


def test_gates_fail_a_session_with_workers(pytester: pytest.Pytester, store: str) -> None:
    assert pytester.runpytest("--pathgrade-store", store, "--pathgrade-save", "base").ret == 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WASTE", "1")
        result = pytester.runpytest(
            *WORKERS, "--pathgrade-store", store, "--pathgrade-baseline", "base",
            "--pathgrade-gates", "gates.toml",
        )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*on 7 paired cases: 1 of 1 gates failed (0 hard): the session fails."]
    )
