"""The record's ``usage`` totals against the system layer's amounts, the one name of each.

``usage`` (:func:`pathgrade.metrics.trajectory.runlevel.usage_totals`, also the budget check):
the recorded total, else the steps' sum. The system layer
(:func:`pathgrade.metrics.system.usage.run_usage`) reads the same, with two more sources:
``tokens`` from ``input_tokens + output_tokens`` before the steps' sum, and ``cost`` priced
from ``[prices]``. So latency is the same by definition, and tokens and cost are the same
except in the two cases below (docs/layers.md, "One name for each amount").
"""

from __future__ import annotations

from typing import Any

import pytest

from pathgrade.core.config import Price
from pathgrade.core.types import Run
from pathgrade.metrics.system.usage import run_usage
from pathgrade.metrics.trajectory.runlevel import usage_totals

PRICES = {"m": Price(input_per_mtok=2.0, output_per_mtok=2.0)}


def _run(usage: dict[str, Any] | None, steps: list[dict[str, Any]]) -> Run:
    data = {"case_id": "c", "usage": usage, "steps": steps, "metadata": {}}
    return Run.model_validate(data)


@pytest.mark.parametrize(
    ("usage", "steps"),
    [
        ({"latency_ms": 900.0, "tokens": 50.0, "cost": 0.5}, [{"tool": "a", "latency_ms": 1.0}]),
        (None, [{"tool": "a", "latency_ms": 100.0, "tokens": 10}, {"tool": "b", "cost": 0.25}]),
        (None, [{"tool": "a"}]),
        ({"latency_ms": None}, []),
        ({"tokens": 70.0, "input_tokens": 50.0, "output_tokens": 20.0}, [{"tool": "a"}]),
    ],
)
def test_the_same_value_where_no_extra_source_applies(
    usage: dict[str, Any] | None, steps: list[dict[str, Any]]
) -> None:
    run = _run(usage, steps)
    totals, system = usage_totals(run), run_usage(run, PRICES)
    assert (totals.latency_ms, totals.tokens, totals.cost) == (
        system.latency_ms,
        system.tokens,
        system.cost,
    )


def test_tokens_differ_when_only_the_split_is_recorded() -> None:
    # 100 input + 50 output tokens, no total; the one step records 10: the system layer says
    # 150, the usage object (and a tokens budget) the steps' 10
    run = _run({"input_tokens": 100.0, "output_tokens": 50.0}, [{"tool": "a", "tokens": 10}])
    assert run_usage(run, PRICES).tokens == 150.0
    assert usage_totals(run).tokens == 10.0


def test_cost_differs_when_only_a_price_gives_it() -> None:
    # 1,000 tokens of model m at $2 per million either way: 0.002 USD; nothing recorded
    run = Run.model_validate(
        {"case_id": "c", "usage": {"tokens": 1000.0}, "metadata": {"model": "m"}}
    )
    found = run_usage(run, PRICES)
    assert found.cost == pytest.approx(0.002) and found.cost_source == "priced"
    assert usage_totals(run).cost is None
