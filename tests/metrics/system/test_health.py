"""The reference-free counts of one run (pathgrade.metrics.system.health): hand-computed
examples of every metric and its edge cases, the findings that explain them, and properties."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, score
from pathgrade.core.results import Finding
from pathgrade.core.types import Step
from pathgrade.metrics import catalogue
from pathgrade.metrics.system.health import (
    FINDING_CODES,
    HEALTH_METRICS,
    health_findings,
    health_metrics,
    loop_starts,
    loops,
    repeated_calls,
    retries_without_change,
    unrecovered_errors,
)


def _steps(*specs: str | dict[str, Any]) -> list[Step]:
    return [Step.model_validate(spec) for spec in specs]


def test_an_empty_run_has_zero_of_everything() -> None:
    assert health_metrics([]) == dict.fromkeys(HEALTH_METRICS, 0.0)
    assert health_findings([]) == ()


def test_repeated_calls_count_each_call_equal_to_the_one_before() -> None:
    # a a a b a: steps 1 and 2 repeat; the last a is not immediately after an a
    assert repeated_calls(_steps("a:1", "a:1", "a:1", "b", "a:1")) == [1, 2]
    # a different argument is a different call
    assert repeated_calls(_steps("a:1", "a:2")) == []


def test_argument_order_within_objects_and_integral_floats_do_not_matter() -> None:
    steps = _steps(
        {"tool": "t", "arguments": {"x": 1, "y": {"p": [1, 2], "q": "s"}}},
        {"tool": "t", "arguments": {"y": {"q": "s", "p": [1.0, 2]}, "x": 1.0}},
        {"tool": "t", "arguments": {"y": {"q": "s", "p": [2, 1]}, "x": 1}},  # list order does
        {"tool": "t", "arguments": {"y": {"q": "s", "p": [2, 1]}, "x": True}},  # true != 1
    )
    assert repeated_calls(steps) == [1]


def test_retries_without_change_follow_a_failed_identical_call() -> None:
    steps = _steps(
        {"tool": "a", "error": "timeout"},
        {"tool": "a", "error": "timeout"},  # a retry (and a repeat)
        "a",  # a retry that worked
        "a",  # a repeat, not a retry: the one before succeeded
        {"tool": "b", "error": ""},  # an empty error is no error
        "b",
    )
    assert retries_without_change(steps) == [1, 2]
    assert health_metrics(steps)["repeated_calls"] == 4.0
    assert health_metrics(steps)["tool_errors"] == 2.0


def test_a_changed_retry_is_no_retry_without_change() -> None:
    steps = _steps({"tool": "a", "arguments": [1], "error": "bad id"}, "a:2")
    assert retries_without_change(steps) == []
    assert health_metrics(steps)["unrecovered_errors"] == 0.0  # a later a succeeded


def test_loops_hand_computed() -> None:
    def count(text: str) -> int:
        return len(loop_starts(list(text)))

    assert count("abab") == 1
    assert count("abcabcabc") == 2
    assert count("ababa") == 1  # a partial copy counts nothing
    assert count("aaaa") == 0  # one call repeated is repeated_calls, not a loop
    assert count("aabaab") == 1  # period 3: the block "aab" is not one call
    assert count("abababab") == 3  # smallest period first: 2, not 4
    assert count("ab") == 0 and count("") == 0 and count("a") == 0
    assert count("xabab") == 1 and count("ababcdcd") == 2
    # copies never overlap: after "abab" the scan resumes at the third a
    assert loop_starts(list("ababab")) == [(2, 2), (4, 2)]
    assert count("abcab") == 0


def test_loops_on_steps_report_the_start_of_each_copy() -> None:
    steps = _steps("a:1", "b", "a:1", "b", "c")
    assert loops(steps) == [2]


def test_unrecovered_errors_ask_whether_the_tool_later_worked() -> None:
    steps = _steps(
        {"tool": "a", "error": "e1"},
        "b",
        "a",  # a worked later: the first a is recovered
        {"tool": "b", "error": "e2"},
        {"tool": "b", "error": "e3"},  # no later b succeeds: both unrecovered
    )
    assert unrecovered_errors(steps) == [3, 4]


def test_an_error_on_the_last_step_is_unrecovered() -> None:
    steps = _steps("a", {"tool": "a", "error": "boom"})
    assert unrecovered_errors(steps) == [1]  # an earlier success does not count
    assert health_metrics(steps)["tool_errors"] == 1.0


def test_empty_retrievals_are_marked_retrieval_calls_that_returned_nothing() -> None:
    def retrieval(output: Any, error: str | None = None) -> dict[str, Any]:
        return {"tool": "search", "output": output, "error": error, "metadata": {"retrieval": True}}

    steps = _steps(
        retrieval(None),
        retrieval([]),
        retrieval(""),
        retrieval({}),
        retrieval(["d1"]),
        retrieval([], error="503"),  # a failure, not an empty result
        {"tool": "search", "output": []},  # not marked as a retrieval
        {"tool": "search", "output": [], "metadata": {"retrieval": "yes"}},  # not true
        retrieval(0),  # a value, not nothing
    )
    assert health_metrics(steps)["empty_retrievals"] == 4.0


def test_findings_explain_each_counted_call() -> None:
    steps = _steps({"tool": "a", "error": "timeout"}, {"tool": "a", "error": "timeout"}, "b")
    found = health_findings(steps)
    assert [(f.code, f.step) for f in found] == [
        ("tool_error", 0),
        ("unrecovered_tool_error", 0),
        ("repeated_call", 1),
        ("retry_without_change", 1),
        ("tool_error", 1),
        ("unrecovered_tool_error", 1),
    ]
    message = "retries a unchanged after it failed: timeout"
    assert found[3].to_dict() == {"code": "retry_without_change", "step": 1, "message": message}


def test_score_gives_the_counts_to_runs_without_a_reference() -> None:
    cases = [Case(case_id="free"), Case(case_id="ref", reference=("a", "b"))]
    runs = [
        Run(case_id="free", steps=("a", "b", "a", "b", {"tool": "c", "error": "x"})),
        Run(case_id="ref", steps=("a", "a", "b")),
        Run(case_id="free"),
    ]
    result = score(cases, runs)
    assert math.isnan(result.metrics["path_score"][0])  # no reference: no path score
    got = {name: result.metrics[name].tolist() for name in HEALTH_METRICS}
    assert got == {
        "repeated_calls": [0.0, 1.0, 0.0],
        "retries_without_change": [0.0, 0.0, 0.0],
        "loops": [1.0, 0.0, 0.0],
        "tool_errors": [1.0, 0.0, 0.0],
        "unrecovered_errors": [1.0, 0.0, 0.0],
        "empty_retrievals": [0.0, 0.0, 0.0],
    }
    record = result[0]
    assert record.metrics["loops"] == 1 and type(record.metrics["loops"]) is int
    assert result.findings is not None
    assert [f.code for f in result.findings(0)] == ["loop", "tool_error", "unrecovered_tool_error"]
    assert result.findings(2) == ()


def test_every_metric_has_a_catalogue_row_counted_lower_is_better() -> None:
    assert len(FINDING_CODES) == len(HEALTH_METRICS)
    for name in HEALTH_METRICS:
        row = catalogue.row(name)
        assert (row.layer, row.kind, row.direction) == ("system", "count", "lower")


_CALLS = st.sampled_from(["a", "b", "c"])


@st.composite
def _runs(draw: st.DrawFn) -> list[Step]:
    n = draw(st.integers(0, 10))
    return [
        Step(
            tool=draw(_CALLS),
            arguments={"k": draw(st.integers(0, 1))},
            error=draw(st.sampled_from([None, None, "", "err"])),
        )
        for _ in range(n)
    ]


@settings(max_examples=200, deadline=None)
@given(_runs())
def test_properties(steps: list[Step]) -> None:
    values = health_metrics(steps)
    n = len(steps)
    assert all(v >= 0 and v == int(v) for v in values.values())
    assert values["retries_without_change"] <= values["repeated_calls"] <= max(0, n - 1)
    assert values["unrecovered_errors"] <= values["tool_errors"] <= n
    assert 2 * values["loops"] <= n  # each loop is a copy of at least 2 calls after a block
    # findings: one per counted call, each naming a real step
    found = health_findings(steps)
    per_code = {code: 0 for code in FINDING_CODES}
    for finding in found:
        assert isinstance(finding, Finding) and 0 <= finding.step < n
        per_code[finding.code] += 1
    assert [per_code[c] for c in FINDING_CODES] == [values[m] for m in HEALTH_METRICS]
    # a run of distinct calls has no repeat and no loop
    distinct = [Step(tool="t", arguments=[i]) for i in range(n)]
    assert health_metrics(distinct)["repeated_calls"] == health_metrics(distinct)["loops"] == 0


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 4), st.integers(2, 4))
def test_a_block_repeated_r_times_is_r_minus_one_loops(k: int, copies: int) -> None:
    block = [Step(tool=f"t{i}") for i in range(k)]  # k distinct calls
    steps = block * copies
    assert health_metrics(steps)["loops"] == copies - 1
    assert health_metrics(steps)["repeated_calls"] == 0
