"""Latency, tokens and cost in result records: one name each, read by one function.

A record scored with the system layer has ``metrics.latency_ms`` (and ``tokens``, ``cost``)
beside its ``usage`` object; one scored before it has only ``usage.latency_ms``. Every reader
(:func:`pathgrade.stats.records.amount`) gives the one name the same value in both.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from pathgrade.metrics.system.usage import AMOUNTS as SYSTEM_AMOUNTS
from pathgrade.stats.records import AMOUNTS, amount, case_values, metric_names, run_values


def new(case_id: str, latency: float | None, steps: int = 3) -> dict[str, Any]:
    """A record as the system layer writes it: the metric and the usage field agree."""
    usage = {"steps": steps, "tokens": None, "cost": None, "latency_ms": latency}
    metrics = {"path_score": 100.0, "latency_ms": latency, "tokens": None, "cost": None}
    return {"case_id": case_id, "trial": 0, "metrics": metrics, "usage": usage}


def old(case_id: str, latency: float | None, steps: int = 3) -> dict[str, Any]:
    """A record scored before the system layer: the amounts only in ``usage``."""
    usage = {"steps": steps, "tokens": None, "cost": None, "latency_ms": latency}
    return {"case_id": case_id, "trial": 0, "metrics": {"path_score": 100.0}, "usage": usage}


def test_the_amounts_are_the_system_layers() -> None:
    assert AMOUNTS == SYSTEM_AMOUNTS == ("latency_ms", "tokens", "cost")


def test_amount_reads_the_metric_else_the_usage_object() -> None:
    assert amount(new("a", 4200.0), "latency_ms") == 4200.0
    assert amount(old("a", 4200.0), "latency_ms") == 4200.0  # scored before the layer
    assert amount(old("a", None), "latency_ms") is None
    assert amount(new("a", None), "tokens") is None
    # the metric wins over the usage field where both have a value
    both = {"metrics": {"cost": 0.5}, "usage": {"cost": 0.25}}
    assert amount(both, "cost") == 0.5
    assert amount({"metrics": {}}, "cost") is None  # nothing anywhere: unknown
    assert amount({"metrics": {"tokens": True}}, "tokens") is None  # not a number


def test_every_name_is_listed_once() -> None:
    # new records: the metric keys, then usage.steps; old records: the amounts come from
    # the usage object under their one name, in the system layer's order, before usage.steps
    assert metric_names([new("a", 1.0)]) == [
        "path_score",
        "latency_ms",
        "tokens",
        "cost",
        "usage.steps",
    ]
    assert metric_names([old("a", 1.0)]) == [
        "path_score",
        "latency_ms",
        "tokens",
        "cost",
        "usage.steps",
    ]
    mixed = metric_names([old("a", 1.0), new("b", 2.0)])
    assert mixed == ["path_score", "latency_ms", "tokens", "cost", "usage.steps"]
    assert not {"usage.latency_ms", "usage.tokens", "usage.cost"} & set(mixed)


def test_old_and_new_records_give_the_same_values() -> None:
    # two cases: a has trials 100 and 300 (mean 200), b one unknown trial
    records_new = [new("a", 100.0), new("a", 300.0), new("b", None)]
    records_old = [old("a", 100.0), old("a", 300.0), old("b", None)]
    for records in (records_new, records_old, [*records_old[:1], *records_new[1:]]):
        runs = run_values(records, "latency_ms")
        assert runs.values[:2].tolist() == [100.0, 300.0] and math.isnan(runs.values[2])
        means = case_values(records, "latency_ms").means
        assert means["a"] == 200.0 and math.isnan(means["b"])


@pytest.mark.parametrize("name", ["latency_ms", "tokens", "cost"])
def test_the_usage_spelling_reads_the_same_values(name: str) -> None:
    records = [
        {"case_id": "a", "metrics": {name: 2.0}, "usage": {name: 2.0}},
        {"case_id": "b", "metrics": {}, "usage": {name: 5.0}},
    ]
    one = run_values(records, name).values.tolist()
    assert run_values(records, f"usage.{name}").values.tolist() == one == [2.0, 5.0]


def test_usage_steps_is_the_usage_field() -> None:
    assert run_values([new("a", 1.0, steps=4)], "usage.steps").values.tolist() == [4.0]
