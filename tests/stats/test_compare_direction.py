"""``compare`` reads each metric's better direction from the catalogue.

A rise in a lower-is-better count (``dangerous_false_positives``, ``missing_steps``, latency)
is ``regressed`` and a fall ``improved``; a metric without a direction says ``changed``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.metrics import catalogue
from pathgrade.metrics.catalogue import MetricRow
from pathgrade.stats.compare import compare_records, metric_direction

N_CASES = 12
LOWER_COUNTS = (
    "dangerous_false_positives",
    "forbidden_action_count",
    "redundant_steps",
    "missing_steps",
    "usage.steps",
    "latency_ms",
    "defects.wasted_step",
)
#: A concrete emitted spelling of each family row.
INSTANCE = {"rubric.<dimension>": "rubric.clarity", "pass@<k>": "pass@2", "pass^<k>": "pass^2"}


def record(case_id: str, name: str, value: float | bool) -> dict[str, Any]:
    """One result record carrying ``name`` where ``pathgrade score`` puts it."""
    out: dict[str, Any] = {"case_id": case_id, "trial": 0, "metrics": {}, "defects": []}
    if name.startswith("usage."):
        out["usage"] = {name.removeprefix("usage."): value}
    elif name.startswith("defects."):
        out["defects"] = [{"kind": name.removeprefix("defects.")}] * int(value)
    else:
        out["metrics"][name] = value
    return out


def sides(
    name: str, base: list[float | bool], var: list[float | bool]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return (
        [record(f"c{i}", name, v) for i, v in enumerate(base)],
        [record(f"c{i}", name, v) for i, v in enumerate(var)],
    )


@pytest.mark.parametrize("name", LOWER_COUNTS)
def test_a_rise_in_a_lower_is_better_metric_is_regressed(name: str) -> None:
    # every case goes up by 1 or 2: paired diffs all > 0, CI [>= 1, <= 2], Wilcoxon p
    # = 2 / 2**12 ~ 0.0005 (one metric: Holm changes nothing)
    base = [float(i % 3) for i in range(N_CASES)]
    var = [b + 1 + i % 2 for i, b in enumerate(base)]
    b, v = sides(name, base, var)
    rise = compare_records(b, v, metrics=[name], resamples=500).metrics[name]
    assert rise.direction == "lower" and rise.higher_is_better is False
    assert rise.diff == pytest.approx(1.5) and rise.verdict == "regressed"
    fall = compare_records(v, b, metrics=[name], resamples=500).metrics[name]
    assert fall.verdict == "improved"
    assert rise.to_dict()["direction"] == "lower"


def test_unknown_and_directionless_metrics_say_changed() -> None:
    base = [float(i) for i in range(N_CASES)]
    var = [b + 3 for b in base]
    for name in ("num_ret@5", "my_plugin_metric"):
        b, v = sides(name, base, var)
        m = compare_records(b, v, resamples=500).metrics[name]
        assert m.direction == "neither" and m.higher_is_better is None
        assert m.verdict == "changed"
    assert metric_direction("my_plugin_metric") == "neither"
    assert metric_direction("recall@20") == "higher"


def _instance(row: MetricRow) -> str:
    return INSTANCE.get(row.name, row.name)


def _values(row: MetricRow, centre: list[float], step: list[float], up: bool) -> Any:
    """Baseline and variant values inside the row's range, every paired diff of sign ``up``."""
    sign = 1.0 if up else -1.0
    if row.kind == "binary":
        low, high = [False] * N_CASES, [True] * N_CASES  # McNemar: 12 discordant, p ~ 0.0005
        return (low, high) if up else (high, low)
    if math.isinf(row.lo) or math.isinf(row.hi):
        # an open side: centre 10 inside the finite bound (0 when both are open)
        mid = row.lo + 10 if not math.isinf(row.lo) else row.hi - 10
        mid = 0.0 if math.isinf(mid) else mid
        base = [mid + 4 * c for c in centre]
        var = [b + sign * (1 + 2 * s) for b, s in zip(base, step, strict=True)]
        if row.kind == "count":
            base = [float(round(b)) for b in base]
            var = [b + sign * (1 + round(2 * s)) for b, s in zip(base, step, strict=True)]
        return base, var
    lo, hi = row.lo, row.hi
    mid, span = (lo + hi) / 2, (hi - lo) / 2
    base = [mid + 0.2 * span * c for c in centre]
    var = [b + sign * span * (0.05 + 0.3 * s) for b, s in zip(base, step, strict=True)]
    return base, var


unit = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)
positive = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=150, deadline=None)
@given(
    row=st.sampled_from(catalogue.rows()),
    centre=st.lists(unit, min_size=N_CASES, max_size=N_CASES),
    step=st.lists(positive, min_size=N_CASES, max_size=N_CASES),
    up=st.booleans(),
)
def test_verdict_follows_the_catalogue_direction(
    row: MetricRow, centre: list[float], step: list[float], up: bool
) -> None:
    name = _instance(row)
    base, var = _values(row, centre, step, up)
    b, v = sides(name, base, var)
    m = compare_records(b, v, metrics=[name], resamples=200, seed=1).metrics[name]
    assert m.direction == row.direction
    if row.direction == "neither":
        assert m.verdict == "changed"
    else:
        better = up == (row.direction == "higher")
        assert m.verdict == ("improved" if better else "regressed"), (name, m)
