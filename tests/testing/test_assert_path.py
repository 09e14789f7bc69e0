"""``pathgrade.testing``: assert_path, RecordedRuns and the trials requirement (no pytester)."""

from __future__ import annotations

import contextvars
import re
from math import comb
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig
from pathgrade.core.config import Penalties
from pathgrade.pytest_session import TestRecorder
from pathgrade.stats.passk import pass_at_k, pass_hat_k
from pathgrade.testing import (
    PathAssertionError,
    RecordedRuns,
    TrialsRequirement,
    assert_path,
    recording,
)

CASE = Case(
    case_id="c1",
    reference=["lookup:A", "refund:A"],
    tool_kinds={"refund": "write"},
    forbidden_tools=["delete_account"],
)
DEFAULTS = ScoringConfig()


def run(*steps: str, trial: int = 0, run_id: str | None = None, case_id: str = "c1") -> Run:
    return Run(case_id=case_id, steps=steps, trial=trial, run_id=run_id)


def test_a_good_path_passes_and_returns_its_result() -> None:
    result = assert_path(run("lookup:A", "refund:A"), CASE, min_path_score=100, config=DEFAULTS)
    assert result.metrics["path_score"] == 100.0
    assert result.defects == ()


def test_min_path_score_fails_with_the_aligned_path() -> None:
    # A repeated look-up is a wasted_step: 100 - 10 (default penalty) = 90 < 95.
    with pytest.raises(PathAssertionError) as raised:
        assert_path(
            run("lookup:A", "lookup:A", "refund:A"), CASE, min_path_score=95, config=DEFAULTS
        )
    lines = str(raised.value).splitlines()
    assert lines[0] == "path of case 'c1' (trial 0) fails: path_score 90 < min_path_score 95"
    assert lines[1] == "path_score 90.0, composite 0.667, goal_success -"  # 2 of 3 steps match
    assert lines[2].startswith("Trajectory: reference and agent steps, aligned")
    assert lines[5].split() == ["extra", "lookup:A", "1", "↻", "wasted"]
    assert raised.value.result.metrics["path_score"] == 90.0


def test_the_minimum_itself_passes() -> None:
    result = assert_path(
        run("lookup:A", "lookup:A", "refund:A"), CASE, min_path_score=90, config=DEFAULTS
    )
    assert result.metrics["path_score"] == 90.0


def test_no_defects_marks_a_forbidden_call() -> None:
    # forbidden_action costs 100 (default): path_score 0; no minimum is asked for.
    with pytest.raises(PathAssertionError) as raised:
        assert_path(
            run("lookup:A", "refund:A", "delete_account:A", run_id="v3"),
            CASE,
            no_defects=["forbidden_action", "unexpected_write"],
            config=DEFAULTS,
        )
    text = str(raised.value)
    assert text.splitlines()[0] == (
        "path of case 'c1' (run 'v3', trial 0) fails: forbidden_action x1 (no_defects)"
    )
    assert re.search(r"\n +extra +delete_account:A +2  ✖ forbidden\n", text)
    assert "forbidden_action      100  tool 'delete_account' is forbidden" in text


def test_an_unexpected_write_is_marked_unlike_an_extra_read() -> None:
    with pytest.raises(PathAssertionError) as raised:
        assert_path(
            run("lookup:A", "refund:A", "refund:A"),
            CASE,
            no_defects=["unexpected_write"],
            config=DEFAULTS,
        )
    assert re.search(r"\n +extra +refund:A +2  ✎ unexpected write\n", str(raised.value))
    # An extra read is no defect: not asked for, not marked.
    result = assert_path(
        run("lookup:A", "search:x", "refund:A"),
        CASE,
        no_defects=["unexpected_write"],
        config=DEFAULTS,
    )
    assert [a.op for a in result.alignment] == ["match", "insertion", "match"]


def test_an_undefined_path_score_fails_a_minimum() -> None:
    case = Case(case_id="c1", query="no reference path")
    with pytest.raises(PathAssertionError, match="path_score undefined"):
        assert_path(run("lookup:A"), case, min_path_score=0, config=DEFAULTS)
    assert assert_path(run("lookup:A"), case, config=DEFAULTS).metrics["path_score"] is None


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"no_defects": ["forbidden_acton"]}, ValueError, "unknown defect kind 'forbidden_acton'"),
        ({"no_defects": "forbidden_action"}, TypeError, "got the string"),
        ({"min_path_score": True}, ValueError, "min_path_score must be a finite number"),
        ({"min_path_score": float("nan")}, ValueError, "min_path_score must be a finite number"),
    ],
)
def test_bad_arguments_are_errors_not_passes(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        assert_path(run("lookup:A", "refund:A"), CASE, config=DEFAULTS, **kwargs)


def test_a_run_of_another_case_is_an_error() -> None:
    with pytest.raises(ValueError, match="the run is for case 'c2', not for case 'c1'"):
        assert_path(run("lookup:A", case_id="c2"), CASE, config=DEFAULTS)


def test_without_a_session_the_config_is_found_as_the_cli_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pathgrade.toml").write_text("[penalties]\nwasted_step = 30\n")
    monkeypatch.chdir(tmp_path)
    wasteful = run("lookup:A", "lookup:A", "refund:A")
    # A fresh context has no recorder, as outside pytest: pathgrade.toml is read (100 - 30).
    result = contextvars.Context().run(assert_path, wasteful, CASE)
    assert result.metrics["path_score"] == 70.0
    # An explicit config wins (100 - 10).
    assert assert_path(wasteful, CASE, config=DEFAULTS).metrics["path_score"] == 90.0


def test_a_recorder_keeps_every_check_and_gives_the_default_config() -> None:
    strict = ScoringConfig(penalties=Penalties(wasted_step=50))
    recorder = TestRecorder("t.py::test_x", lambda: strict)
    with recording(recorder):
        result = assert_path(run("lookup:A", "lookup:A", "refund:A"), CASE)  # 100 - 50
        with pytest.raises(PathAssertionError):
            assert_path(run("refund:A"), CASE, min_path_score=100)
    assert result.metrics["path_score"] == 50.0
    assert [(c.case_id, r.steps[0].tool, cfg is strict) for c, r, cfg in recorder.checked] == [
        ("c1", "lookup", True),
        ("c1", "refund", True),
    ]
    # One distinct case: its results are the test's node id, trials 0 and 1.
    entries = recorder.entries()
    assert [(e.case.case_id, e.run.case_id, e.run.trial) for e in entries] == [
        ("t.py::test_x", "t.py::test_x", 0),
        ("t.py::test_x", "t.py::test_x", 1),
    ]
    assert entries[0].source is CASE


def test_several_cases_in_one_test_are_told_apart() -> None:
    other = CASE.model_copy(update={"case_id": "c2"})
    recorder = TestRecorder("t.py::test_y", lambda: DEFAULTS)
    with recording(recorder):
        for case in (CASE, other, CASE):
            assert_path(run("lookup:A", case_id=case.case_id), case)
    got = [(e.case.case_id, e.run.trial) for e in recorder.entries()]
    assert got == [("t.py::test_y::c1", 0), ("t.py::test_y::c2", 0), ("t.py::test_y::c1", 1)]


def test_entries_survive_the_trip_to_an_xdist_controller() -> None:
    recorder = TestRecorder("t.py::test_z", lambda: DEFAULTS)
    recorder.record(CASE, run("lookup:A", "refund:A", run_id="r"), DEFAULTS)
    (entry,) = recorder.entries()
    back = type(entry).from_json(entry.to_json())
    assert back == entry


RUNS = RecordedRuns(
    [run("a", trial=1, run_id="x"), run("b", trial=0, run_id="y"), run("c", trial=1, run_id="z")],
    "runs.jsonl",
)


def test_recorded_runs_by_case_and_trial() -> None:
    assert len(RUNS) == 3 and RUNS[0].run_id == "x"
    assert [r.run_id for r in RUNS.for_case("c1")] == ["y", "x", "z"]  # by trial, then file order
    assert RUNS.get("c1", trial=0).run_id == "y"
    assert RUNS.get("c1", trial=1, run_id="z").run_id == "z"
    assert RUNS.for_case("nope") == ()
    with pytest.raises(LookupError, match=r"2 runs of case 'c1' trial 1 in runs\.jsonl: .*give"):
        RUNS.get("c1", trial=1)
    with pytest.raises(
        LookupError, match=r"no run of case 'c9' in runs\.jsonl; the case has: no runs"
    ):
        RUNS.get("c9")
    assert "RecordedRuns(runs=3, cases=1" in repr(RUNS)


def test_trials_figures_by_hand() -> None:
    requirement = TrialsRequirement.parse((5,), {"pass_hat_k": (2, 0.8), "pass_at_k": (2, 0.8)})
    ok, text = requirement.check([True, False, True, False, True])
    # pass^2 = C(3,2)/C(5,2) = 3/10; pass@2 = 1 - C(2,2)/C(5,2) = 1 - 1/10.
    assert not ok
    assert text == (
        "3 of 5 trials passed (failed: 1, 3); pass^2 = C(3,2)/C(5,2) = 0.3 >= 0.8: no;"
        " pass@2 = 1 - C(2,2)/C(5,2) = 0.9 >= 0.8: yes"
    )
    assert TrialsRequirement.parse((), {"n": 5, "pass_at_k": (2, 0.8)}).check(
        [True, False, True, False, True]
    ) == (True, "3 of 5 trials passed (failed: 1, 3); pass@2 = 1 - C(2,2)/C(5,2) = 0.9 >= 0.8: yes")


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {"pass_hat_k": (1, 1.0)}, "n .* must be an integer >= 1, got None"),
        ((0,), {"pass_hat_k": (1, 1.0)}, "got 0"),
        ((3,), {}, "give pass_hat_k"),
        ((3,), {"pass_hat_k": (4, 0.5)}, "k must be an integer from 1 to n=3, got 4"),
        ((3,), {"pass_hat_k": (1, 1.5)}, "minimum must be a number from 0 to 1"),
        ((3,), {"pass_at_k": 2}, "must be a pair"),
        ((3,), {"pass_hat_k": (1, 1), "passk": 1}, "unknown argument"),
        ((3, 4), {"pass_hat_k": (1, 1)}, "one positional argument"),
        ((3,), {"n": 3, "pass_hat_k": (1, 1)}, "n given twice"),
    ],
)
def test_bad_trials_markers(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TrialsRequirement.parse(args, kwargs)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_trials_check_is_passk_and_monotone(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 12))
    k = data.draw(st.integers(1, n))
    minimum = data.draw(st.floats(0, 1))
    outcomes = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    c = sum(outcomes)
    hat = TrialsRequirement(n, pass_hat_k=(k, minimum))
    at = TrialsRequirement(n, pass_at_k=(k, minimum))
    assert hat.check(outcomes)[0] == (comb(c, k) / comb(n, k) >= minimum)
    assert hat.check(outcomes)[0] == (pass_hat_k(n, c, k) >= minimum)
    assert at.check(outcomes)[0] == (pass_at_k(n, c, k) >= minimum)
    # One more passing trial never turns a pass into a failure.
    if not all(outcomes):
        better = list(outcomes)
        better[better.index(False)] = True
        for requirement in (hat, at):
            assert requirement.check(better)[0] or not requirement.check(outcomes)[0]
