"""Faults injected into replayed tool calls: every kind, per tool, per nth call, seeded draws."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run, Step
from pathgrade.replay import FaultPlan, FaultRule, ReplayTask, load_faults, replay_run

RECORDED = Run(
    case_id="c1",
    run_id="r1",
    steps=(
        Step(tool="lookup", arguments={"order": "A17"}, output={"status": "paid", "total": 10}),
        Step(tool="search", arguments={"q": "policy"}, output="refunds within 30 days"),
        Step(tool="list", arguments={}, output=[1, 2, 3, 4, 5]),
        Step(tool="count", arguments={}, output=7),
    ),
)


def every_tool_once(task: ReplayTask) -> str:
    for tool, arguments in (
        ("lookup", {"order": "A17"}),
        ("search", {"q": "policy"}),
        ("list", {}),
        ("count", {}),
    ):
        task.call(tool, arguments)
    return "done"


def observed(plan: FaultPlan, agent: Any = every_tool_once) -> list[tuple[Any, Any]]:
    run = replay_run(RECORDED, agent, faults=plan)
    return [(s.output, s.error) for s in run.steps]


def test_no_rule_applies_so_the_recording_answers() -> None:
    plan = FaultPlan((FaultRule("timeout", tool="absent"),))
    assert observed(plan) == [(s.output, s.error) for s in RECORDED.steps]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (FaultRule("timeout"), (None, "timeout: the tool did not answer in time")),
        (FaultRule("error"), (None, "HTTP 503: Service Unavailable")),
        (FaultRule("error", status=502), (None, "HTTP 502: Service Unavailable")),
        (FaultRule("permission_denied"), (None, "permission denied")),
        (FaultRule("permission_denied", message="403 nope"), (None, "403 nope")),
        (
            FaultRule("mcp_is_error"),
            ({"isError": True, "content": [{"type": "text", "text": "tool error"}]}, "tool error"),
        ),
    ],
)
def test_error_kinds_replace_the_output_on_every_call(
    rule: FaultRule, expected: tuple[Any, Any]
) -> None:
    assert observed(FaultPlan((rule,))) == [expected] * 4


def test_empty_and_truncated_results_keep_the_shape() -> None:
    assert observed(FaultPlan((FaultRule("empty_result"),))) == [
        ({}, None),
        ("", None),
        ([], None),
        (None, None),  # a number has no empty form
    ]
    # keep 0.5: floor(2 * .5) = 1 key, floor(23 * .5) = 11 chars, floor(5 * .5) = 2 items
    assert observed(FaultPlan((FaultRule("truncated_result"),))) == [
        ({"status": "paid"}, None),
        ("refunds wit", None),
        ([1, 2], None),
        (7, None),  # nothing to truncate
    ]
    # keep 0.25: floor(5 * .25) = 1 item
    assert observed(FaultPlan((FaultRule("truncated_result", tool="list", keep=0.25),)))[2] == (
        [1],
        None,
    )


def test_faulted_steps_are_flagged_and_counted() -> None:
    plan = FaultPlan((FaultRule("timeout", tool="search"), FaultRule("empty_result")), seed=4)
    run = replay_run(RECORDED, every_tool_once, faults=plan)
    assert [s.metadata.get("fault") for s in run.steps] == [
        {"kind": "empty_result", "rule": 1},
        {"kind": "timeout", "rule": 0},  # the first rule that applies wins
        {"kind": "empty_result", "rule": 1},
        {"kind": "empty_result", "rule": 1},
    ]
    assert all(s.metadata["replay"] == "recorded" for s in run.steps)
    faults = run.metadata["replay"]["faults"]
    assert faults["injected"] == 4 and faults["by_kind"] == {"timeout": 1, "empty_result": 3}
    assert faults["plan"]["seed"] == 4 and faults["plan"]["rules"][0] == {
        "kind": "timeout",
        "tool": "search",
    }
    assert "faults" not in replay_run(RECORDED, every_tool_once).metadata["replay"]


def lookup_n_times(n: int) -> Any:
    def agent(task: ReplayTask) -> str:
        for _ in range(n):
            task.call("lookup", {"order": "A17"})
        return "done"

    return agent


def test_nth_counts_the_calls_of_the_tool_from_one() -> None:
    plan = FaultPlan((FaultRule("timeout", tool="lookup", nth=(2, 4)),))
    errors = [e is not None for _, e in observed(plan, lookup_n_times(5))]
    assert errors == [False, True, False, True, False]
    # no tool: nth counts every call of the run (2nd call = search)
    anyone = FaultPlan((FaultRule("timeout", nth=(2,)),))
    assert [e is not None for _, e in observed(anyone)] == [False, True, False, False]


def test_a_faulted_call_does_not_use_up_its_recording() -> None:
    two = Run(
        case_id="c1",
        run_id="r1",
        steps=(
            Step(tool="lookup", arguments={"order": "A17"}, output="first"),
            Step(tool="lookup", arguments={"order": "A17"}, output="second"),
        ),
    )
    plan = FaultPlan((FaultRule("timeout", nth=(1,)),))
    run = replay_run(two, lookup_n_times(3), faults=plan)
    # the retry sees what the faulted call would have seen
    assert [s.output for s in run.steps] == [None, "first", "second"]
    assert run.steps[0].metadata["fixture"] == 0 and run.steps[1].metadata["fixture"] == 0
    assert run.metadata["replay"]["unused_fixtures"] == 0


def test_a_fault_on_an_unrecorded_call_is_flagged_as_both() -> None:
    def agent(task: ReplayTask) -> str:
        task.call("policy", {"topic": "x"})
        return "done"

    run = replay_run(RECORDED, agent, faults=FaultPlan((FaultRule("permission_denied"),)))
    step = run.steps[0]
    assert step.metadata == {
        "replay": "unrecorded",
        "fault": {"kind": "permission_denied", "rule": 0},
    }
    assert step.error == "permission denied" and run.metadata["replay"]["unrecorded"] == 1


def faulted_positions(plan: FaultPlan, run: Run, calls: int) -> list[int]:
    replayed = replay_run(run, lookup_n_times(calls), faults=plan)
    return [i for i, s in enumerate(replayed.steps) if "fault" in s.metadata]


def test_seeded_probability_is_reproducible_and_per_run() -> None:
    plan = FaultPlan((FaultRule("timeout", probability=0.5),), seed=3)
    first = faulted_positions(plan, RECORDED, 20)
    assert first == faulted_positions(plan, RECORDED, 20)
    # the draws are random.Random("3/c1/r1/0").random() < 0.5, one per call
    rng = random.Random("3/c1/r1/0")
    assert first == [i for i in range(20) if rng.random() < 0.5]
    other = RECORDED.model_copy(update={"run_id": "r2"})
    assert faulted_positions(plan, other, 20) != first  # another run, another stream
    reseeded = FaultPlan(plan.rules, seed=4)
    assert faulted_positions(reseeded, RECORDED, 20) != first


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.floats(0.0, 1.0), st.integers(1, 30))
def test_probability_draws_match_the_documented_stream(seed: int, p: float, n: int) -> None:
    plan = FaultPlan((FaultRule("timeout", tool="lookup", probability=p),), seed=seed)
    rng = random.Random(f"{seed}/c1/r1/0")
    expected = [i for i in range(n) if p == 1.0 or rng.random() < p]
    assert faulted_positions(plan, RECORDED, n) == expected


def test_rules_are_checked() -> None:
    for bad in (
        {"kind": "crash"},
        {"kind": "timeout", "nth": (0,)},
        {"kind": "timeout", "probability": 1.5},
        {"kind": "error", "status": 404},
        {"kind": "truncated_result", "keep": 1.0},
    ):
        with pytest.raises(ValueError):
            FaultRule(**bad)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "faults.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_faults_file_round_trip(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
seed = 7
[[fault]]
tool = "refund"
kind = "timeout"
nth = 1
[[fault]]
kind = "truncated_result"
probability = 0.25
keep = 0.1
[[fault]]
kind = "error"
status = 502
message = "bad gateway"
""",
    )
    plan = load_faults(path)
    assert plan.seed == 7 and plan.source == str(path)
    assert plan.rules == (
        FaultRule("timeout", tool="refund", nth=(1,)),
        FaultRule("truncated_result", probability=0.25, keep=0.1),
        FaultRule("error", status=502, message="bad gateway"),
    )


@pytest.mark.parametrize(
    ("text", "field", "says"),
    [
        ('[[fault]]\nkind = "crash"', "fault[0].kind", "expected one of timeout"),
        ('[[fault]]\nkind = "timeout"\ncolour = 1', "fault[0].colour", "unknown key"),
        ('[[fault]]\nkind = "timeout"\nnth = 0', "fault[0].nth", "integer >= 1"),
        ('[[fault]]\nkind = "timeout"\nnth = ["2"]', "fault[0].nth", "integer >= 1"),
        ('[[fault]]\nkind = "timeout"\nprobability = 2', "fault[0].probability", "[0, 1]"),
        ('[[fault]]\nkind = "timeout"\nprobability = "x"', "fault[0].probability", "number"),
        ('[[fault]]\nkind = "timeout"\ntool = 3', "fault[0].tool", "tool name"),
        ('[[fault]]\nkind = "timeout"\nstatus = 503', "fault[0].status", "kind 'error' only"),
        ('[[fault]]\nkind = "error"\nstatus = 404', "fault[0].status", "5xx"),
        ('[[fault]]\nkind = "empty_result"\nkeep = 0.5', "fault[0].keep", "truncated_result"),
        ('seed = "x"\n[[fault]]\nkind = "timeout"', "seed", "integer"),
        ("seed = 1", "fault", "one or more"),
        ('rules = 1\n[[fault]]\nkind = "timeout"', "rules", "unknown key"),
    ],
)
def test_faults_file_errors_name_file_and_field(
    tmp_path: Path, text: str, field: str, says: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_faults(path)
    error = caught.value
    assert error.file == str(path) and error.field == field and says in error.message
    assert "\n" not in str(error)


def test_unreadable_faults_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read faults file"):
        load_faults(tmp_path / "missing.toml")
    with pytest.raises(InputError, match="malformed faults file"):
        load_faults(write(tmp_path, "[[fault]\nkind ="))
