"""The primary family (which metrics Holm corrects for) and the verdict table."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.metrics.spec import Direction
from pathgrade.stats.compare import compare_records
from pathgrade.stats.family import (
    HEADLINES,
    SECONDARY_MARK,
    default_primary,
    headline,
    primary_family,
    significance_level,
    verdict,
)
from pathgrade.stats.holm import holm


def test_headline_per_layer_follows_the_table_then_the_records_order() -> None:
    names = ["path_score", "recall@5", "ndcg@10", "ndcg@5", "P@5", "schema_validity"]
    assert headline("retrieval", names) == "ndcg@10"  # ndcg before recall; first ndcg listed
    assert headline("retrieval", ["precision@5", "recall@20", "mrr@10"]) == "recall@20"
    assert headline("tool", names) == "schema_validity"
    assert headline("tool", [*names, "argument_correctness"]) == "argument_correctness"
    assert headline("answer", ["context_recall", "faithfulness"]) == "faithfulness"
    assert headline("answer", ["faithfulness", "token_f1"]) == "token_f1"
    # context_recall is an answer metric, not the retrieval "recall" row
    assert headline("retrieval", ["context_recall"]) is None
    assert "usage" not in HEADLINES and "defects" not in HEADLINES


def test_default_primary_is_always_metrics_then_one_headline_per_present_layer() -> None:
    names = ["tool_accuracy", "goal_success", "path_score", "recall@5", "token_f1", "faithfulness"]
    names += ["argument_correctness", "latency_ms", "usage.steps", "defects.wasted_step"]
    assert default_primary(names) == [
        "path_score",
        "goal_success",
        "recall@5",
        "argument_correctness",
        "token_f1",
    ]
    assert default_primary(["my_metric", "usage.steps"]) == []


def test_family_precedence_primary_then_metrics_then_default_then_all() -> None:
    names = ["path_score", "goal_success", "tool_accuracy"]
    assert primary_family(names, metrics=["tool_accuracy"], primary=["goal_success"]) == (
        ["goal_success"],
        "primary",
    )
    assert primary_family(names, metrics=["tool_accuracy", "path_score"]) == (
        ["tool_accuracy", "path_score"],
        "metrics",
    )
    assert primary_family(names) == (["path_score", "goal_success"], "default")
    # the default skips metrics without paired data ...
    no_goal = primary_family(names, has_data=lambda n: n != "goal_success")
    assert no_goal == (["path_score"], "default")
    # ... and falls back to every metric when none of the default is present
    assert primary_family(["x", "y"]) == (["x", "y"], "all")


def test_significance_level_is_exact() -> None:
    assert 1.0 - 0.95 != 0.05
    assert significance_level(0.95) == 0.05
    assert significance_level(0.99) == 0.01


KW: dict[str, Any] = {"n": 12, "diff": 15.4, "direction": "higher", "alpha": 0.05}


@pytest.mark.parametrize(
    ("ci", "p", "p_holm", "expected"),
    [
        ((-1.0, 3.0), 0.001, 0.003, "no detectable difference"),
        ((0.0, 3.0), 0.001, 0.003, "no detectable difference"),  # 0 on the edge: spans
        ((8.3, 22.1), 0.07, 0.07, "not significant"),  # interval and test disagree
        ((8.3, 22.1), 0.0078, 0.164, "not significant after correcting for 21 comparisons"),
        ((8.3, 22.1), 0.0078, 0.0234, "improved"),
        ((8.3, 22.1), 0.0078, None, "improved (secondary, uncorrected)"),
        ((8.3, 22.1), 0.07, None, "not significant"),
        ((8.3, 22.1), 0.05, 0.05, "not significant"),  # p = alpha does not pass
    ],
)
def test_verdict_table(
    ci: tuple[float, float], p: float, p_holm: float | None, expected: str
) -> None:
    assert verdict(ci=ci, p_value=p, p_holm=p_holm, family_size=21, **KW) == expected


def test_verdict_direction_and_no_data() -> None:
    down = {**KW, "diff": -2.0}
    ci = (-3.0, -1.0)
    assert verdict(ci=ci, p_value=0.01, p_holm=0.02, family_size=2, **down) == "regressed"
    lower = {**down, "direction": "lower"}
    assert verdict(ci=ci, p_value=0.01, p_holm=0.02, family_size=2, **lower) == "improved"
    neither = {**down, "direction": "neither"}
    assert verdict(ci=ci, p_value=0.01, p_holm=None, family_size=2, **neither) == (
        "changed (secondary, uncorrected)"
    )
    nan = float("nan")
    empty = {**KW, "n": 0}
    assert verdict(ci=(nan, nan), p_value=nan, p_holm=nan, family_size=2, **empty) == (
        "no paired data"
    )


# --- the verdict never contradicts the numbers, on random paired data ---------------------

NAMES: dict[str, Direction] = {
    "path_score": "higher",
    "missing_steps": "lower",
    "num_ret@5": "neither",
    "tool_accuracy": "higher",
}


def _records(values: dict[str, list[float]]) -> list[dict[str, Any]]:
    n = len(next(iter(values.values())))
    return [{"case_id": f"c{i}", "metrics": {k: v[i] for k, v in values.items()}} for i in range(n)]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_verdict_is_consistent_with_interval_p_and_direction(data: st.DataObject) -> None:
    n = data.draw(st.integers(4, 16), label="n")
    cell = st.integers(-20, 20).map(lambda x: x / 4)
    base = {k: data.draw(st.lists(cell, min_size=n, max_size=n)) for k in NAMES}
    shift = {k: data.draw(st.sampled_from([0.0, 1.0, 3.0, -3.0])) for k in NAMES}
    noise = {k: data.draw(st.lists(cell, min_size=n, max_size=n)) for k in NAMES}
    var = {k: [b + shift[k] + e / 4 for b, e in zip(base[k], noise[k], strict=True)] for k in NAMES}
    chosen = data.draw(st.lists(st.sampled_from(list(NAMES)), min_size=1, unique=True))
    confidence = data.draw(st.sampled_from([0.9, 0.95]))
    out = compare_records(
        _records(base), _records(var), primary=chosen, resamples=200, confidence=confidence
    )
    alpha = significance_level(confidence)
    expected_holm = holm([out.metrics[m].p_value for m in chosen])
    assert out.family_size == len(chosen) and list(out.primary) == chosen
    for name, m in out.metrics.items():
        assert m.family == ("primary" if name in chosen else "secondary")
        assert m.direction == NAMES[name]
        excludes = not (m.ci[0] <= 0.0 <= m.ci[1])
        primary = m.family == "primary"
        p_adj = m.p_holm if primary else m.p_value
        if primary:
            assert m.p_holm == pytest.approx(expected_holm[chosen.index(name)])
            assert m.p_holm >= m.p_value - 1e-12
        else:
            assert math.isnan(m.p_holm)
        better = m.direction != "neither" and (m.diff > 0) == (m.direction == "higher")
        word = "changed" if m.direction == "neither" else ("improved" if better else "regressed")
        if not excludes:
            assert m.verdict == "no detectable difference"
        elif not m.p_value < alpha:
            assert m.verdict == "not significant"
        elif not p_adj < alpha:
            assert primary
            assert m.verdict == f"not significant after correcting for {len(chosen)} comparisons"
        else:
            assert m.verdict == (word if primary else word + SECONDARY_MARK)


def test_doctests() -> None:
    import doctest

    import pathgrade.stats.family as family

    result = doctest.testmod(family)
    assert result.failed == 0 and result.attempted > 0
