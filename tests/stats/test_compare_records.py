"""Baseline vs variant comparison over result records."""

from __future__ import annotations

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
    m = compare_records(base, var, metrics=["usage.latency_ms"]).metrics["usage.latency_ms"]
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
