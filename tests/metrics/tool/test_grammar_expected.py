"""The tool layer's expected calls of a reference written with the path grammar (issue 23):
the branch the trajectory alignment chose, never a ``one_of`` placeholder."""

from __future__ import annotations

import numpy as np

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.types import Step
from pathgrade.metrics.tool.layer import expected_calls, tool_layer
from pathgrade.metrics.trajectory.grammar import branch_calls

CHOICE = {"one_of": [["b", "c"], ["d"]]}


def _tools(calls: tuple[Step, ...] | None) -> list[str]:
    assert calls is not None
    return [s.tool for s in calls]


def _case(reference: list[object]) -> Case:
    return Case.model_validate({"case_id": "c", "reference": reference})


def test_branch_calls_rebuild_the_instance_from_its_record() -> None:
    path = _case(
        [
            "a",
            CHOICE,
            {"tool": "p", "repeat": {"min": 1, "max": 3}},
            {"tool": "x", "optional": True},
        ]
    ).reference
    assert path is not None
    # one_of branch 1 ([d]); poll p counted 3 times; the optional x (source [3]) used.
    record = {"one_of": [1], "optional": ["[3]"], "repeat": {"[2]": 3}}
    assert _tools(branch_calls(path, record)) == ["a", "d", "p", "p", "p", "x"]
    # Branch 0 ([b, c]), no optional used, p at its min of 1.
    assert _tools(branch_calls(path, {"one_of": [0], "optional": [], "repeat": {}})) == [
        "a",
        "b",
        "c",
        "p",
    ]
    assert branch_calls(path, {"one_of": [2]}) is None  # no such alternative


def test_without_a_branch_each_alternative_is_a_candidate_of_its_required_calls() -> None:
    path = _case(
        [
            "a",
            CHOICE,
            {"tool": "e", "optional": True},
            {"tool": "p", "repeat": {"min": 2, "max": 4}},
        ]
    ).reference
    assert path is not None
    # Alternatives [a, b, c, e?, p{2..4}] and [a, d, e?, p{2..4}]: required copies only.
    assert [[s.tool for s in c] for c in expected_calls(path)] == [
        ["a", "b", "c", "p", "p"],
        ["a", "d", "p", "p"],
    ]
    plain = _case(["a", "b"]).reference
    assert plain is not None
    assert expected_calls(plain) == [plain]


def _dangerous_fp(case: Case, steps: list[str], dangerous: tuple[str, ...]) -> float:
    config = ScoringConfig(dangerous_tools=dangerous)
    result = score([case], [Run.model_validate({"case_id": "c", "steps": steps})], config)
    return float(result.metrics["dangerous_false_positives"][0])


def test_the_chosen_branch_is_expected_in_scoring() -> None:
    # [a, one_of([b, c], [d]), e] and run [a, d, e]: the alignment takes branch [d], so
    # d is expected (not a false positive) and b, c are not.
    case = _case(["a", CHOICE, "e"])
    assert _dangerous_fp(case, ["a", "d", "e"], ("d",)) == 0  # was 1: d not in {a, one_of, e}
    assert _dangerous_fp(case, ["a", "d", "e", "b"], ("b", "d")) == 1  # b: another branch's
    (run,) = list(score([case], [Run.model_validate({"case_id": "c", "steps": ["a", "d", "e"]})]))
    assert run.reference_branch == {"one_of": [1], "optional": [], "repeat": {}}


def test_an_optional_step_is_expected_only_when_used() -> None:
    # [lookup?, refund, send]: lookup is expected when the run makes it, and calling it is
    # then no false positive; a run without it expects {refund, send} only.
    case = _case([{"tool": "lookup", "optional": True}, "refund", "send"])
    assert _dangerous_fp(case, ["lookup", "refund", "send"], ("lookup",)) == 0
    assert _dangerous_fp(case, ["refund", "send"], ("lookup",)) == 0


def test_argument_correctness_is_read_against_the_branch() -> None:
    # Reference [one_of([refund:1], [refund:2]), send]; run [refund:2, send]. The branch
    # chosen is [1] (refund:2): both calls paired and correct, argument_correctness 2/2 = 1.
    # Against the placeholder, the run's refund would pair with nothing.
    case = _case([{"one_of": [["refund:1"], ["refund:2"]]}, "send"])
    run = Run.model_validate({"case_id": "c", "steps": ["refund:2", "send"]})
    layer = tool_layer(
        {"c": case},
        [run],
        reference_indices=[0],
        reference_branches={0: {"one_of": [1], "optional": [], "repeat": {}}},
    )
    (result,) = layer.runs
    assert result.metrics["argument_correctness"] == 1.0
    assert [(c.tool, c.reference_step_index, c.correct) for c in result.arguments] == [
        ("refund", 0, True),
        ("send", 1, True),
    ]
    # Without the branch (no index either): of the candidates [refund:1, send] and
    # [refund:2, send], the second pairs 2 correct calls against 1, and is chosen.
    (free,) = tool_layer({"c": case}, [run]).runs
    assert free.metrics["argument_correctness"] == 1.0


def test_scoring_passes_the_branch_to_the_tool_layer() -> None:
    # A repeat poll{1..3} and 4 polls: the branch counts 3 copies; all 4 polls are of an
    # expected tool, so the confusion table has poll as a true positive, never one_of.
    case = _case([{"tool": "poll", "repeat": {"min": 1, "max": 3}}, "done"])
    runs = [Run.model_validate({"case_id": "c", "steps": ["poll"] * 4 + ["done"]})]
    result = score([case], runs, ScoringConfig(dangerous_tools=("done",)))
    table = {row["tool"]: row for row in result.summary_extra["tools"]["per_tool"]}
    assert "one_of" not in table
    assert table["poll"]["tp"] == 1 and table["done"]["tp"] == 1
    assert np.isclose(result.metrics["dangerous_false_positives"][0], 0.0)
