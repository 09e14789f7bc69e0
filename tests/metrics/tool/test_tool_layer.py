"""The worked examples of issue 5 for the tool-call layer, on tests/data/layers."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade.core.config import FieldMatch, MatchingConfig, ToolMatch
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.io.tools import load_tools
from pathgrade.metrics.tool import ToolLayerResult, tool_layer

MATCHING = MatchingConfig(
    tools={
        "get_metrics": ToolMatch(fields={"step_s": FieldMatch(mode="numeric", abs_tol=5)}),
        "restart_service": ToolMatch(fields={"reason": FieldMatch(mode="ignore")}),
    }
)


@pytest.fixture(scope="module")
def result(
    layer_cases: dict[str, Case], layer_runs: list[Run], tools_path: Path
) -> ToolLayerResult:
    return tool_layer(layer_cases, layer_runs, load_tools(tools_path), matching=MATCHING)


def test_wrong_tenant_is_schema_valid_but_incorrect(result: ToolLayerResult) -> None:
    r1 = result.runs[0]
    assert r1.metrics["schema_validity"] == 1.0
    assert r1.metrics["argument_correctness"] == 0.0
    assert r1.metrics["argument_precision"] == 0.75
    assert r1.metrics["argument_recall"] == 0.75
    assert r1.metrics["argument_f1"] == 0.75
    (call,) = r1.arguments
    wrong = [f for f in call.fields if f.status != "match"]
    assert [(f.path, f.expected, f.actual) for f in wrong] == [
        ("service_id", "svc-acme-1", "svc-globex-1")
    ]
    assert r1.not_computed["state_match"] == "case has no expected_state"
    assert r1.metrics["dangerous_false_positives"] == 0


def test_numeric_tolerance_ignored_field_and_matching_end_state(result: ToolLayerResult) -> None:
    r2 = result.runs[1]
    assert r2.metrics == {
        "unknown_tool_calls": 0,
        "schema_invalid_calls": 0,
        "schema_validity": 1.0,
        "argument_correctness": 1.0,
        "argument_precision": 1.0,
        "argument_recall": 1.0,
        "argument_f1": 1.0,
        "execution_success_rate": 1.0,  # error "" is empty: success
        "execution_errors": 0.0,
        "state_match": 1.0,  # restarts 1.0 == 1
        "state_differences": 0,
        "dangerous_false_positives": 0,
    }
    assert r2.reference_index == 0


def test_dangerous_tool_called_when_it_should_not_be(result: ToolLayerResult) -> None:
    r3 = result.runs[2]
    assert r3.dangerous_false_positives == ("restart_service",)
    assert r3.metrics["dangerous_false_positives"] == 1
    assert r3.metrics["argument_correctness"] == 1.0  # the extra call is not paired
    assert r3.metrics["execution_success_rate"] == 0.5
    assert r3.metrics["execution_errors"] == 1.0
    assert r3.metrics["state_match"] == 0.0
    assert [str(d) for d in r3.state_differences] == [
        "$.audit: unexpected ['restart attempted']",
        "$.services.svc-acme-3.status: expected 'running', got 'stopped'",
    ]
    report = result.report.dangerous
    assert report.tools == ("restart_service",)
    assert (report.fp, report.tn, report.false_positive_rate) == (1, 1, 0.5)
    assert [(fp.case_id, fp.run_id, fp.tool) for fp in report.false_positives] == [
        ("c3", "r3", "restart_service")
    ]


def test_invalid_call_lists_error_paths_and_unknown_tool_is_reported(
    result: ToolLayerResult,
) -> None:
    r4 = result.runs[3]
    assert r4.metrics["schema_validity"] == 0.0
    assert r4.metrics["schema_invalid_calls"] == 1
    assert r4.metrics["unknown_tool_calls"] == 1
    assert r4.unknown_tools == ("search_runbook",)
    (invalid,) = r4.invalid_calls
    assert (invalid.step_index, invalid.tool) == (1, "get_metrics")
    assert [(v.path, v.validator) for v in invalid.violations] == [
        ("$", "required"),
        ("$.metric", "enum"),
    ]
    assert "'window' is a required property" in str(invalid)
    # service_id right; metric wrong; window.start, window.end missing.
    assert r4.metrics["argument_precision"] == 0.5
    assert r4.metrics["argument_recall"] == 0.25
    assert r4.metrics["argument_f1"] == pytest.approx(1 / 3)
    assert r4.metrics["argument_correctness"] == 0.0
    assert result.report.unknown_tools == {"search_runbook": 1}


def test_run_without_labels_is_not_computed_never_zero(result: ToolLayerResult) -> None:
    r5 = result.runs[4]
    assert r5.metrics == {
        "unknown_tool_calls": 0,
        "schema_invalid_calls": 0,
        "execution_errors": 0.0,
    }
    assert r5.not_computed == {
        "schema_validity": "no call of a tool with a schema",
        "argument_correctness": "case has no reference path",
        "argument_precision": "case has no reference path",
        "argument_recall": "case has no reference path",
        "argument_f1": "case has no reference path",
        "execution_success_rate": "run made no calls",
        "state_match": "case has no expected_state",
        "state_differences": "case has no expected_state",
        "dangerous_false_positives": "case has no reference path",
    }


def test_per_tool_confusion(result: ToolLayerResult) -> None:
    rows = {row.tool: row for row in result.report.per_tool}
    assert list(rows) == ["get_metrics", "restart_service", "search_runbook"]
    gm, rs, sr = rows["get_metrics"], rows["restart_service"], rows["search_runbook"]
    assert (gm.tp, gm.fp, gm.fn, gm.tn) == (4, 0, 0, 0)
    assert (gm.precision, gm.recall, gm.f1, gm.false_positive_rate) == (1.0, 1.0, 1.0, None)
    assert (rs.tp, rs.fp, rs.fn, rs.tn) == (1, 1, 1, 1)
    assert (rs.precision, rs.recall, rs.f1, rs.false_positive_rate) == (0.5, 0.5, 0.5, 0.5)
    assert rs.dangerous and not gm.dangerous
    assert (sr.tp, sr.fp, sr.fn, sr.tn) == (0, 1, 0, 3)
    assert (sr.precision, sr.recall, sr.f1, sr.false_positive_rate) == (0.0, None, 0.0, 0.25)
    assert (result.report.labelled_runs, result.report.unlabelled_runs) == (4, 1)


def test_strict_makes_an_unknown_tool_an_error(
    layer_cases: dict[str, Case], layer_runs: list[Run], tools_path: Path
) -> None:
    with pytest.raises(InputError, match=r"field 'steps\[0\].tool': tool 'search_runbook'"):
        tool_layer(layer_cases, layer_runs, load_tools(tools_path), strict=True)


def test_without_tools_file_validity_is_not_computed(
    layer_cases: dict[str, Case], layer_runs: list[Run]
) -> None:
    out = tool_layer(layer_cases, layer_runs, None, matching=MATCHING)
    assert out.runs[0].not_computed["schema_validity"] == "no tools file"
    assert "schema_validity" not in out.runs[0].metrics
    assert out.report.dangerous.tools == ()
    assert out.runs[2].not_computed["dangerous_false_positives"] == "no tool is marked dangerous"
    # dangerous tools may also come from the config
    again = tool_layer(layer_cases, layer_runs, None, dangerous=["restart_service"])
    assert again.runs[2].metrics["dangerous_false_positives"] == 1


def test_default_matching_is_exact(
    layer_cases: dict[str, Case], layer_runs: list[Run], tools_path: Path
) -> None:
    out = tool_layer(layer_cases, layer_runs, load_tools(tools_path))
    r2 = out.runs[1]
    # step_s 59 != 60 and the optional "reason" is an extra field: both calls incorrect
    assert r2.metrics["argument_correctness"] == 0.0
    assert r2.metrics["argument_precision"] == pytest.approx(5 / 7)
    assert r2.metrics["argument_recall"] == pytest.approx(5 / 6)


def test_inputs_are_not_mutated(
    layer_cases: dict[str, Case], layer_runs: list[Run], tools_path: Path
) -> None:
    before = [run.model_dump() for run in layer_runs]
    tool_layer(layer_cases, layer_runs, load_tools(tools_path), matching=MATCHING)
    assert [run.model_dump() for run in layer_runs] == before


def test_unknown_case_and_bad_reference_index(layer_cases: dict[str, Case]) -> None:
    with pytest.raises(InputError, match="unknown case 'nope'"):
        tool_layer(layer_cases, [Run(case_id="nope")])
    with pytest.raises(InputError, match="reference index 3 out of range"):
        tool_layer(layer_cases, [Run(case_id="c1")], reference_indices=[3])
