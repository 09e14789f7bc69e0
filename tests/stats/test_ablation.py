"""2x2 ablation: main effects, interaction, simple effects, Holm family, plain-words reading."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pathgrade.stats.ablation import (
    CaseSetMismatchError,
    _joint_resample_means,
    ablation_effects,
    ablation_records,
)
from pathgrade.stats.records import MissingMetricError


def rec(case_id: str, trial: int = 0, **metrics: Any) -> dict[str, Any]:
    usage = metrics.pop("usage", None)
    out: dict[str, Any] = {"case_id": case_id, "trial": trial, "metrics": metrics, "defects": []}
    if usage is not None:
        out["usage"] = usage
    return out


# Per case (r0, ra, rb, rab). A's own effect alpha = (1, 3, 2, 2), B's beta = (3, 3, 2, 4),
# the interaction gamma = (-4, -2, -2, 0); rab = r0 + alpha + beta + gamma.
HAND = {
    "c1": (0.0, 1.0, 3.0, 0.0),
    "c2": (1.0, 4.0, 4.0, 5.0),
    "c3": (2.0, 4.0, 4.0, 4.0),
    "c4": (1.0, 3.0, 5.0, 7.0),
}


def arms(
    values: dict[str, tuple[float, ...]], name: str = "path_score"
) -> list[list[dict[str, Any]]]:
    return [[rec(c, **{name: v[k]}) for c, v in values.items()] for k in range(4)]


def test_hand_computed_two_by_two() -> None:
    out = ablation_records(*arms(HAND), seed=1)
    m = out.metrics["path_score"]
    assert (out.cases, m.n, m.undefined, m.primary, m.direction) == (4, 4, 0, True, "higher")
    assert m.means == {"baseline": 1.0, "a": 3.0, "b": 4.0, "ab": 4.0}
    e = {k: v.estimate for k, v in m.effects.items()}
    # main A per case ((ra - r0) + (rab - rb)) / 2: (1 - 3)/2, (3 + 1)/2, (2 + 0)/2, (2 + 2)/2
    #   = -1, 2, 1, 2 -> mean 1
    # main B per case ((rb - r0) + (rab - ra)) / 2: (3 - 1)/2, (3 + 1)/2, (2 + 0)/2, (4 + 4)/2
    #   = 1, 2, 1, 4 -> mean 2
    # interaction rab - ra - rb + r0: -4, -2, -2, 0 -> mean -2
    # simple: ra - r0 = 1, 3, 2, 2 -> 2; rb - r0 = 3, 3, 2, 4 -> 3; rab - r0 = 0, 4, 2, 6 -> 3
    # conditional: rab - rb = -3, 1, 0, 2 -> 0; rab - ra = -1, 1, 0, 4 -> 1
    assert e == {
        "main_a": 1.0,
        "main_b": 2.0,
        "interaction": -2.0,
        "simple_a": 2.0,
        "simple_b": 3.0,
        "simple_ab": 3.0,
        "a_with_b": 0.0,
        "b_with_a": 1.0,
    }
    p = {k: v.p_value for k, v in m.effects.items()}
    # sign-flip, exact: main A |d| = 1, 2, 1, 2, sum 4: |T| >= 4 for T = +-6, +-4 (either 1
    # flipped): 6 of 16. main B all positive: only ++++ and ---- reach 8: 2/16. Interaction: 3
    # non-zero, all negative: 2/8. simple_ab: 3 non-zero, all positive: 2/8. a_with_b: sum 0,
    # every pattern reaches it: 1. b_with_a: +-1 +-1 +-4 reaches |T| >= 4 unless the 1s oppose
    # the 4 (T = +-2): 6 of 8.
    assert p == {
        "main_a": 6 / 16,
        "main_b": 2 / 16,
        "interaction": 2 / 8,
        "simple_a": 2 / 16,
        "simple_b": 2 / 16,
        "simple_ab": 2 / 8,
        "a_with_b": 1.0,
        "b_with_a": 6 / 8,
    }
    holm = {k: v.p_holm for k, v in m.effects.items()}
    # Holm over the 3 family tests: 0.125 * 3 = 0.375; 0.25 * 2 = 0.5; 0.375 * 1 -> max 0.5
    assert holm == {
        "main_a": 0.5,
        "main_b": 0.375,
        "interaction": 0.5,
        "simple_a": None,
        "simple_b": None,
        "simple_ab": None,
        "a_with_b": None,
        "b_with_a": None,
    }
    assert out.family_size == 3
    assert not any(v.detected for v in m.effects.values())
    # The interval of the interaction excludes 0: a resample mean >= -0.5 needs three or four
    # draws of c4 (P = 4 * (1/4)^3 * (1/2) + (1/4)^4 = 0.035 > 0.025), > -0.5 only all four
    # (0.004): the 97.5% quantile is -0.5. But with 4 cases p cannot pass the correction.
    assert m.effects["interaction"].ci[1] == pytest.approx(-0.5)
    assert m.reading == (
        "no detectable interaction after correcting for 3 comparisons (the interval alone"
        " excludes 0)"
    )


def test_joint_resampling_keeps_the_linear_identities_per_resample() -> None:
    rng = np.random.default_rng(0)
    columns = np.column_stack([rng.normal(size=9) for _ in range(6)])
    columns[:, 0] = columns[:, 3] + columns[:, 2] / 2  # main A = simple A + interaction / 2
    means = _joint_resample_means(columns, 500, np.random.default_rng(1))
    # the same cases are drawn for every column, so the identity holds in every resample
    np.testing.assert_allclose(means[:, 0], means[:, 3] + means[:, 2] / 2, atol=1e-12)
    assert means.shape == (500, 6)


def _synthetic(
    alpha: float, beta: float, gamma: float, n: int = 30, noise: float = 0.05, seed: int = 0
) -> dict[str, tuple[float, ...]]:
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(n):
        base = rng.normal(5.0, 1.0)
        e = rng.normal(0.0, noise, 3)
        ra = base + alpha + e[0]
        rb = base + beta + e[1]
        out[f"c{i}"] = (base, ra, rb, base + alpha + beta + gamma + e[2])
    return out


def _reading(values: dict[str, tuple[float, ...]], name: str = "path_score") -> str:
    return ablation_records(*arms(values, name), resamples=2000).metrics[name].reading


def test_readings() -> None:
    # B gains 1 alone, nothing with A present (interaction -1); A alone hurts
    assert _reading(_synthetic(-0.5, 1.0, -1.0)) == "B's gain disappears when A is present"
    # B gains 1 alone, 0.5 with A present
    assert _reading(_synthetic(-0.5, 1.0, -0.5)) == "B's gain shrinks when A is present"
    # B gains 1 alone, loses 1 with A present
    assert _reading(_synthetic(-0.5, 1.0, -2.0)) == "B's gain reverses when A is present"
    both = _reading(_synthetic(1.0, 1.0, -0.5))
    assert both == "B's gain shrinks when A is present; A's gain shrinks when B is present"
    assert _reading(_synthetic(0.3, 0.3, 1.0)) == (
        "A and B together gain more than the sum of their gains alone (synergy)"
    )
    assert _reading(_synthetic(-0.3, -0.3, -1.0)) == (
        "A and B together do worse than the sum of their effects alone"
    )
    additive = _synthetic(0.3, 0.6, 0.0, noise=0.0)  # rab = ra + rb - r0 exactly
    assert _reading(additive) == "A and B act independently (no detectable interaction)"


def test_reading_follows_the_metric_direction() -> None:
    # latency: lower is better. B cuts it by 1 alone; with A present the cut is gone.
    values = _synthetic(0.5, -1.0, 1.0)
    lower = {c: tuple(100 + x for x in v) for c, v in values.items()}
    out = ablation_records(*_usage_arms(lower), resamples=2000)
    m = out.metrics["latency_ms"]  # read from the usage objects: one name
    assert m.direction == "lower"
    assert m.reading == "B's gain disappears when A is present"


def _usage_arms(values: dict[str, tuple[float, ...]]) -> list[list[dict[str, Any]]]:
    return [[rec(c, usage={"latency_ms": v[k]}) for c, v in values.items()] for k in range(4)]


def test_reading_without_a_direction_names_the_numbers() -> None:
    out = ablation_records(
        *arms(_synthetic(0.3, 0.3, 1.0), "custom_x"), resamples=2000, direction=lambda _: "neither"
    )
    reading = out.metrics["custom_x"].reading
    assert reading.startswith("A and B interact: together they change it by 1.6")


def test_family_primary_and_secondary() -> None:
    values = _synthetic(0.3, 0.3, 1.0, n=12)
    records = [
        [rec(c, path_score=v[k], tool_accuracy=v[k] / 10) for c, v in values.items()]
        for k in range(4)
    ]
    out = ablation_records(*records, resamples=1000)
    assert out.metrics["path_score"].primary and not out.metrics["tool_accuracy"].primary
    assert out.family_size == 3
    assert all(e.p_holm is None for e in out.metrics["tool_accuracy"].effects.values())
    named = ablation_records(*records, metrics=["path_score", "tool_accuracy"], resamples=1000)
    assert named.family_size == 6 and named.metrics["tool_accuracy"].primary
    doc = named.to_dict()
    assert set(doc) == {"cases", "family_size", "metrics", "settings"}
    metric = doc["metrics"]["path_score"]
    assert set(metric) == {"direction", "primary", "n", "undefined", "means", "effects", "reading"}
    assert set(metric["effects"]["interaction"]) == {
        "estimate",
        "ci",
        "p_value",
        "p_holm",
        "detected",
    }


def test_undefined_cases_are_excluded_and_counted() -> None:
    records = arms(HAND)
    records[2][1]["metrics"]["path_score"] = None  # c2 undefined in RB
    m = ablation_records(*records).metrics["path_score"]
    assert (m.n, m.undefined) == (3, 1)
    # without c2: interaction -4, -2, 0 -> mean -2; main A -1, 1, 2 -> 2/3
    assert m.effects["interaction"].estimate == pytest.approx(-2.0)
    assert m.effects["main_a"].estimate == pytest.approx(2 / 3)


def test_trials_are_averaged_within_a_case() -> None:
    records = arms(HAND)
    # a second RA trial of c1 at 3.0: c1's RA mean becomes (1 + 3) / 2 = 2
    records[1].append(rec("c1", trial=1, path_score=3.0))
    m = ablation_records(*records).metrics["path_score"]
    assert m.means["a"] == pytest.approx((2.0 + 4.0 + 4.0 + 3.0) / 4)
    assert m.n == 4


def test_case_sets_must_match() -> None:
    records = arms(HAND)
    records[1] = records[1][:2]  # RA lacks c3, c4
    records[3] = [*records[3], rec("c9", path_score=1.0)]  # RAB has an extra case
    with pytest.raises(CaseSetMismatchError) as info:
        ablation_records(*records)
    assert info.value.missing == {"baseline": ["c9"], "a": ["c3", "c4", "c9"], "b": ["c9"]}
    assert "a lacks c3, c4, c9" in str(info.value)


def test_missing_metric_names_the_arm() -> None:
    with pytest.raises(MissingMetricError) as info:
        ablation_records(*arms(HAND), metrics=["goal_success"])
    assert info.value.side == "baseline"


def test_effects_validation() -> None:
    with pytest.raises(ValueError, match="same length"):
        ablation_effects([1.0], [1.0], [1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="nan"):
        ablation_effects([1.0], [1.0], [float("nan")], [1.0])
    with pytest.raises(ValueError, match="at least one"):
        ablation_effects([], [], [], [])
    one = ablation_effects([1.0], [2.0], [3.0], [5.0], resamples=50)
    assert one["interaction"].estimate == 1.0 and one["interaction"].ci == (1.0, 1.0)
