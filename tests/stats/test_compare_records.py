"""Baseline vs variant comparison over result records."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pathgrade.stats.compare import compare_records
from pathgrade.stats.records import MissingMetricError


def rec(case_id: str, trial: int = 0, **metrics: Any) -> dict[str, Any]:
    usage = metrics.pop("usage", None)
    out: dict[str, Any] = {"case_id": case_id, "trial": trial, "metrics": metrics, "defects": []}
    if usage is not None:
        out["usage"] = usage
    return out


def mcnemar_sides() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    # 15 baseline-fail/variant-pass, 5 baseline-pass/variant-fail, 30 both pass, 10 both fail
    pairs = [(False, True)] * 15 + [(True, False)] * 5 + [(True, True)] * 30
    pairs += [(False, False)] * 10
    base = [rec(f"c{i}", goal_success=b) for i, (b, _) in enumerate(pairs)]
    var = [rec(f"c{i}", goal_success=v) for i, (_, v) in enumerate(pairs)]
    return base, var


def test_binary_metric_uses_mcnemar_worked_example() -> None:
    base, var = mcnemar_sides()
    out = compare_records(base, var, seed=1)
    m = out.metrics["goal_success"]
    assert m.test == "mcnemar_exact"
    assert round(m.p_value, 6) == 0.041389
    assert m.discordant == (15, 5)
    assert m.diff == pytest.approx(10 / 60)
    assert m.p_holm == m.p_value  # one metric: Holm changes nothing
    assert m.verdict == "improved"
    doc = out.to_dict()
    assert doc["paired_cases"] == 60 and doc["unpaired"] == []
    assert set(doc["metrics"]["goal_success"]) >= {
        "baseline",
        "variant",
        "diff",
        "ci",
        "test",
        "p_value",
        "p_holm",
        "verdict",
    }


def test_unpaired_cases_are_reported() -> None:
    base = [rec("a", x=1.0), rec("b", x=0.5)]
    var = [rec("b", x=0.7), rec("c", x=0.1)]
    out = compare_records(base, var)
    assert out.paired_cases == 1
    assert out.unpaired == [
        {"case_id": "a", "only_in": "baseline"},
        {"case_id": "c", "only_in": "variant"},
    ]


def test_no_common_case_is_an_error() -> None:
    with pytest.raises(ValueError, match="no case_id in common"):
        compare_records([rec("a", x=1.0)], [rec("b", x=1.0)])


def test_trials_are_averaged_per_case_and_null_excluded() -> None:
    base = [rec("a", 0, x=0.0), rec("a", 1, x=1.0), rec("b", 0, x=None), rec("c", 0, x=0.2)]
    var = [rec("a", 0, x=1.0), rec("b", 0, x=0.4), rec("c", 0, x=0.4)]
    m = compare_records(base, var).metrics["x"]
    assert m.n == 2 and m.undefined == 1
    assert m.baseline == pytest.approx((0.5 + 0.2) / 2)
    assert m.variant == pytest.approx((1.0 + 0.4) / 2)
    assert m.test == "wilcoxon" and m.p_permutation is not None


def test_binary_with_trials_is_compared_as_rates() -> None:
    base = [rec("a", t, ok=t == 0) for t in range(3)] + [rec("b", 0, ok=True)]
    var = [rec("a", t, ok=True) for t in range(3)] + [rec("b", 0, ok=True)]
    assert compare_records(base, var).metrics["ok"].test == "wilcoxon"


def test_direction_and_verdict() -> None:
    base = [rec(f"c{i}", usage={"latency_ms": 100.0 + i}) for i in range(40)]
    var = [rec(f"c{i}", usage={"latency_ms": 150.0 + i}) for i in range(40)]
    m = compare_records(base, var, metrics=["latency_ms"]).metrics["latency_ms"]
    assert not m.higher_is_better
    assert m.verdict == "regressed"


def test_interval_spanning_zero_says_the_data_cannot_tell() -> None:
    base = [rec(f"c{i}", x=float(i % 2)) for i in range(10)]
    var = [rec(f"c{i}", x=float((i + 1) % 2)) for i in range(10)]
    m = compare_records(base, var).metrics["x"]
    assert m.ci[0] <= 0.0 <= m.ci[1]
    assert m.verdict == "no detectable difference"


def test_missing_metric_fails_loudly() -> None:
    with pytest.raises(MissingMetricError, match="'nope' is missing in the baseline"):
        compare_records([rec("a", x=1.0)], [rec("a", x=1.0)], metrics=["nope"])


def test_all_null_metric_has_no_paired_data() -> None:
    m = compare_records([rec("a", x=None)], [rec("a", x=1.0)]).metrics["x"]
    assert m.n == 0 and m.verdict == "no paired data"
    assert m.to_dict()["diff"] is None


def test_metric_streams_are_independent_of_the_metric_set() -> None:
    base = [rec(f"c{i}", x=i / 10, y=(i % 3) / 3) for i in range(10)]
    var = [rec(f"c{i}", x=(i + 2) / 12, y=(i % 4) / 3) for i in range(10)]
    both = compare_records(base, var, seed=4).metrics["x"].ci
    alone = compare_records(base, var, seed=4, metrics=["x"]).metrics["x"].ci
    assert both == alone


# --- the primary family, the issue's scenario, power ---------------------------------------

#: 19 more trajectory and usage metrics, unchanged between the two sides: with path_score and
#: goal_success, the 21 metrics of a default trajectory comparison.
_UNCHANGED = [
    *("tool_accuracy", "argument_accuracy", "step_order_accuracy", "path_efficiency"),
    *("composite", "tool_precision", "tool_recall", "tool_f1", "required_tool_coverage"),
    *("forbidden_action_count", "redundant_steps", "missing_steps", "recovery_rate"),
    *("out_of_order", "over_budget"),
]
_BASE_SCORES = [75.0, 70.0, 80.0, 85.0, 60.0, 90.0, 65.0, 90.0, 100.0, 100.0, 100.0, 100.0]


def issue_sides() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """12 cases: 8 improve to 100 (by 25, 30, 20, 15, 40, 10, 35, 10), 4 stay at 100."""

    def side(scores: list[float]) -> list[dict[str, Any]]:
        out = []
        for i, score in enumerate(scores):
            metrics: dict[str, Any] = {"path_score": score, "goal_success": score == 100.0}
            metrics.update(dict.fromkeys(_UNCHANGED, 1.0))
            usage = {"steps": 4, "tokens": 900.0 + i, "cost": 0.01, "latency_ms": 300.0 + i}
            out.append(rec(f"c{i}", usage=usage, **metrics))
        return out

    return side(_BASE_SCORES), side([100.0] * 12)


def test_issue_scenario_reads_improved_with_the_default_family() -> None:
    base, var = issue_sides()
    out = compare_records(base, var, resamples=2000)
    assert len(out.metrics) == 21 and out.family_source == "default"
    assert out.primary == ("path_score", "goal_success") and out.family_size == 2
    m = out.metrics["path_score"]
    # baseline mean 1015 / 12 = 84.58; diffs sum 185, mean 15.42
    assert m.baseline == pytest.approx(1015 / 12) and m.diff == pytest.approx(185 / 12)
    assert m.ci[0] > 0  # about [7.9, 23.3]
    # 8 non-zero diffs, all positive: exact Wilcoxon p = 2 / 2^8 = 0.0078125
    assert m.p_value == pytest.approx(0.0078125)
    # goal_success: McNemar b = 8, c = 0, p = 2 * 0.5^8 = 0.0078125; Holm over 2: both 2p
    assert out.metrics["goal_success"].p_value == pytest.approx(0.0078125)
    assert m.p_holm == pytest.approx(0.015625)
    assert m.verdict == "improved" and m.family == "primary"
    # power: sd of the 12 diffs 14.53183, se = 14.53183 / sqrt(12) = 4.194980;
    # MDE = (t_11(0.975) + t_11(0.8)) * se = (2.200985 + 0.875530) * 4.194980 = 12.9059;
    # cases: ratio sd / diff = 0.942603; n = 9: (3.194894 * 0.942603)^2 = 9.07 > 9;
    # n = 10: (3.145561 * 0.942603)^2 = 8.79 <= 10, so 10
    assert m.power is not None and m.power.mde == pytest.approx(12.9059, abs=1e-4)
    assert m.power.n_needed == 10
    tools = out.metrics["tool_accuracy"]
    assert tools.family == "secondary" and math.isnan(tools.p_holm)
    assert tools.verdict == "no detectable difference" and tools.power is None
    doc = out.to_dict()
    assert doc["family"] == {
        "primary": ["path_score", "goal_success"],
        "size": 2,
        "source": "default",
    }
    assert doc["metrics"]["tool_accuracy"]["p_holm"] is None
    assert doc["metrics"]["tool_accuracy"]["p_value"] == 1.0
    assert doc["metrics"]["tool_accuracy"]["family"] == "secondary"
    assert list(doc["metrics"])[:2] == ["path_score", "goal_success"]  # primary first


def test_issue_scenario_with_holm_over_all_21_says_why_it_is_not_significant() -> None:
    base, var = issue_sides()
    names = list(compare_records(base, var, resamples=200).metrics)
    out = compare_records(base, var, primary=names, resamples=2000)
    m = out.metrics["path_score"]
    # p-values: 0.0078125 twice, 1 for the 19 unchanged; Holm: max(21 p, 20 p) = 0.1640625
    assert out.family_size == 21
    assert m.p_holm == pytest.approx(0.1640625)
    assert m.ci[0] > 0 and m.p_value < 0.05  # the interval alone excludes 0
    assert m.verdict == "not significant after correcting for 21 comparisons"


def test_primary_names_not_asked_for_are_compared_too() -> None:
    base, var = issue_sides()
    out = compare_records(base, var, metrics=["tool_accuracy"], primary=["path_score"])
    assert list(out.metrics) == ["path_score", "tool_accuracy"]
    assert out.metrics["tool_accuracy"].family == "secondary"
    empty = [{**r, "metrics": {**r["metrics"], "x": None}} for r in base]
    filled = [{**r, "metrics": {**r["metrics"], "x": 1.0}} for r in var]
    holes = compare_records(empty, filled, metrics=["x"], primary=["path_score", "x"])
    assert holes.family_size == 1  # x has no defined pair: no test, not counted in N
    assert holes.metrics["x"].verdict == "no paired data"
    assert holes.metrics["path_score"].p_holm == holes.metrics["path_score"].p_value
    with pytest.raises(MissingMetricError, match="'ndcg@10'"):
        compare_records(base, var, primary=["ndcg@10"])


def test_metrics_asked_for_are_the_primary_family() -> None:
    base, var = issue_sides()
    out = compare_records(base, var, metrics=["tool_accuracy", "path_score"], resamples=200)
    assert out.primary == ("tool_accuracy", "path_score") and out.family_source == "metrics"
    assert {m.family for m in out.metrics.values()} == {"primary"}


def test_power_of_a_primary_metric_worked_example() -> None:
    # d = [0, 1] * 5: n = 10, mean 0.5, sd = sqrt(10 * 0.25 / 9) = 0.527046, sd / sqrt(n) = 1/6
    # MDE = (t_9(0.975) + t_9(0.8)) / 6 = (2.262157 + 0.883404) / 6 = 0.524260
    # cases needed: n = 10 gives (3.145561 * 0.527046 / 0.5)^2 = 10.99 > 10; n = 11 gives
    # (3.107197 * 1.054093)^2 = 10.73 <= 11, so 11
    base = [rec(f"c{i}", path_score=50.0) for i in range(10)]
    var = [rec(f"c{i}", path_score=50.0 + i % 2) for i in range(10)]
    m = compare_records(base, var, resamples=200).metrics["path_score"]
    assert m.power is not None
    assert m.power.mde == pytest.approx(0.524260, abs=1e-6)
    assert m.power.n_needed == 11
    assert m.power.alpha == 0.05 and m.power.power == 0.8
    doc = m.to_dict()["power"]
    assert doc["mde"] == pytest.approx(0.524260, abs=1e-6) and doc["cases_needed"] == 11
    assert doc["reason"] is None and doc["n"] == 10


def test_power_reasons_when_undefined() -> None:
    # every diff is 1: no spread; no diff at all: nothing to detect (MDE still defined)
    base = [rec(f"c{i}", path_score=float(i), goal_success=True) for i in range(6)]
    var = [rec(f"c{i}", path_score=float(i) + 1, goal_success=True) for i in range(6)]
    out = compare_records(base, var, resamples=200).metrics
    flat = out["path_score"].to_dict()["power"]
    assert flat["mde"] is None and flat["cases_needed"] is None
    assert flat["reason"] == "the paired differences have no spread (sd = 0)"
    same = compare_records(base, base, resamples=200).metrics["path_score"].to_dict()["power"]
    assert same["reason"] == "the paired differences have no spread (sd = 0)"
    noisy = [rec(f"c{i}", path_score=float(i) + (-1) ** i) for i in range(6)]
    zero = compare_records(base, noisy, metrics=["path_score"], resamples=200)
    power = zero.metrics["path_score"].to_dict()["power"]  # diffs +1 -1 ...: mean 0, sd 1.095
    assert power["mde"] is not None and power["cases_needed"] is None
    assert power["reason"] == "the observed mean difference is 0"
