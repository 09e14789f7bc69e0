"""Gate evaluation on in-memory records: each rule the issue lists, missing metrics, hard gates."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.gates import Gate, GateSet, GateSettings, evaluate_gates


def rec(
    case_id: str, trial: int = 0, *, defects: tuple[str, ...] = (), **kw: Any
) -> dict[str, Any]:
    usage = {k: kw.pop(k) for k in ("latency_ms", "tokens", "cost") if k in kw}
    return {
        "case_id": case_id,
        "trial": trial,
        "metrics": kw,
        "defects": [{"kind": d, "penalty": 0, "detail": ""} for d in defects],
        "usage": usage,
    }


def one(gate: Gate, base: list[dict[str, Any]], var: list[dict[str, Any]]) -> Any:
    report = evaluate_gates(GateSet((gate,), GateSettings(resamples=2000)), base, var)
    return report.results[0]


def test_not_below_baseline() -> None:
    base = [rec("a", **{"recall@20": 0.8}), rec("b", **{"recall@20": 0.6})]
    same = one(Gate("recall@20", "not_below_baseline"), base, base)
    assert same.passed and same.baseline == same.variant == pytest.approx(0.7)
    worse = [rec("a", **{"recall@20": 0.8}), rec("b", **{"recall@20": 0.5})]
    assert not one(Gate("recall@20", "not_below_baseline"), base, worse).passed
    tolerant = Gate("recall@20", "not_below_baseline", tolerance=0.1)
    assert one(tolerant, base, worse).passed


def test_relative_improvement_of_two_percent() -> None:
    base = [rec("a", **{"ndcg@5": 0.50})]
    gate = Gate("ndcg@5", "min_relative_change", threshold=0.02)
    assert one(gate, base, [rec("a", **{"ndcg@5": 0.51})]).passed  # +2.0%
    result = one(gate, base, [rec("a", **{"ndcg@5": 0.505})])  # +1.0%
    assert not result.passed and result.observed == pytest.approx(0.01)


def test_success_ci_lower_bound_above_zero() -> None:
    base = [rec(f"c{i}", goal_success=i % 2 == 0) for i in range(80)]
    better = [rec(f"c{i}", goal_success=i % 8 != 1) for i in range(80)]
    gate = Gate("goal_success", "ci_lower_above", threshold=0.0)
    improved = one(gate, base, better)
    assert improved.passed and improved.observed > 0
    assert not one(gate, base, base).passed  # no change: the lower bound is 0, not above


def test_p95_latency_growth_limit() -> None:
    base = [rec(f"c{i}", latency_ms=100.0 + i) for i in range(100)]
    gate = Gate("latency_ms", "max_relative_change", threshold=0.15, statistic="p95")
    slower = [rec(f"c{i}", latency_ms=(100.0 + i) * 1.10) for i in range(100)]
    much_slower = [rec(f"c{i}", latency_ms=(100.0 + i) * 1.20) for i in range(100)]
    assert one(gate, base, slower).passed
    result = one(gate, base, much_slower)
    assert not result.passed and result.observed == pytest.approx(0.20)


def test_absolute_budgets() -> None:
    var = [rec("a", tokens=3000, cost=0.01), rec("b", tokens=5000, cost=0.03)]
    assert one(Gate("tokens", "max", threshold=4000), [], var).passed  # mean 4000
    assert not one(Gate("tokens", "max", threshold=3999), [], var).passed
    assert one(Gate("cost", "max", threshold=0.05), [], var).passed


def test_defect_counts_not_higher_than_baseline() -> None:
    base = [rec("a", defects=("unrecovered_error",)), rec("b")]
    same = [rec("a"), rec("b", defects=("unrecovered_error",))]
    more = [rec("a", defects=("unrecovered_error", "unrecovered_error")), rec("b")]
    gate = Gate("defects.unrecovered_error", "not_above_baseline", statistic="sum")
    assert one(gate, base, same).passed
    failed = one(gate, base, more)
    assert not failed.passed and failed.variant == 2 and failed.baseline == 1


def test_hard_safety_gate_cannot_be_outweighed() -> None:
    base = [rec(f"c{i}", goal_success=False, forbidden_action_count=0) for i in range(50)]
    var = [rec(f"c{i}", goal_success=True, forbidden_action_count=0) for i in range(50)]
    var[7]["metrics"]["forbidden_action_count"] = 1  # one forbidden action, huge gains elsewhere
    gates = GateSet(
        (
            Gate("goal_success", "ci_lower_above", threshold=0.0),
            Gate("forbidden_action_count", "equal", threshold=0, hard=True),
        ),
        GateSettings(resamples=1000),
    )
    report = evaluate_gates(gates, base, var)
    assert report.results[0].passed
    assert not report.passed and len(report.hard_failures) == 1
    assert report.hard_failures[0].variant == 1  # the worst run decides


def test_hard_gate_fails_on_undefined_values() -> None:
    var = [rec("a", dangerous_false_positives=0), rec("b", dangerous_false_positives=None)]
    result = one(Gate("dangerous_false_positives", "equal", threshold=0, hard=True), [], var)
    assert not result.passed and "undefined" in result.message


def test_missing_metric_fails_loudly() -> None:
    base = [rec("a", tool_accuracy=1.0)]
    for gate in (
        Gate("ndcg@5", "not_below_baseline"),
        Gate("ndcg@5", "max", threshold=1.0),
        Gate("ndcg@5", "ci_lower_above", threshold=0.0),
    ):
        result = one(gate, base, base)
        assert not result.passed
        assert "ndcg@5" in result.message
    assert not one(
        Gate("defects.unrecovered_error", "max", threshold=1), [], [{"case_id": "a", "metrics": {}}]
    ).passed


def test_all_null_metric_fails() -> None:
    base = [rec("a", recovery_rate=None)]
    result = one(Gate("recovery_rate", "not_below_baseline"), base, base)
    assert not result.passed and "no defined value" in result.message


def test_relative_change_from_zero() -> None:
    base = [rec("a", redundant_steps=0)]
    gate = Gate("redundant_steps", "max_relative_change", threshold=0.15)
    assert one(gate, base, base).passed
    result = one(gate, base, [rec("a", redundant_steps=1)])
    assert not result.passed and math.isinf(result.observed)
    assert result.to_dict()["value"] == "inf"


def test_baseline_rules_use_paired_cases_only() -> None:
    base = [rec("a", x=0.5), rec("b", x=0.5)]
    var = [rec("a", x=0.5), rec("new", x=0.0)]
    report = evaluate_gates(GateSet((Gate("x", "not_below_baseline"),)), base, var)
    assert report.passed and report.paired_cases == 1 and report.unpaired_cases == 2


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"metric": "x", "rule": "max"}, "threshold"),
        ({"metric": "x", "rule": "bigger"}, "rule"),
        ({"metric": "x", "rule": "not_below_baseline", "threshold": 1.0}, "threshold"),
        ({"metric": "x", "rule": "max", "threshold": 1.0, "statistic": "p999x"}, "statistic"),
        ({"metric": "x", "rule": "not_below_baseline", "hard": True}, "hard"),
        (
            {"metric": "x", "rule": "ci_lower_above", "threshold": 0.0, "statistic": "p95"},
            "statistic",
        ),
        ({"metric": "", "rule": "max", "threshold": 1.0}, "metric"),
    ],
)
def test_invalid_gates(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        Gate(**kwargs)


NO_CHANGE_GATES = [
    Gate("m", "not_below_baseline"),
    Gate("m", "not_above_baseline"),
    Gate("m", "max_relative_change", threshold=0.0),
    Gate("m", "min_relative_change", threshold=0.0),
    Gate("m", "max_absolute_change", threshold=0.0),
    Gate("m", "min_absolute_change", threshold=0.0),
    Gate("m", "not_below_baseline", statistic="p95"),
    Gate("m", "not_above_baseline", statistic="median"),
    Gate("m", "max_relative_change", threshold=0.15, statistic="max"),
    Gate("m", "not_above_baseline", statistic="sum"),
]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.one_of(st.none(), st.floats(0, 1e4))),
        min_size=1,
        max_size=30,
    ).filter(lambda rows: any(v is not None for _, v in rows))
)
def test_no_change_passes_every_baseline_gate(rows: list[tuple[int, float | None]]) -> None:
    records = [rec(f"c{c}", i, m=v) for i, (c, v) in enumerate(rows)]
    report = evaluate_gates(GateSet(tuple(NO_CHANGE_GATES)), records, records)
    assert report.passed, [r.message for r in report.results if not r.passed]
