"""The system layer's per-run latency, tokens and cost, and cost from a price table."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade import score
from pathgrade.core.config import Price, ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.metrics import catalogue
from pathgrade.metrics.system.usage import run_usage, usage_columns

PRICES = {"gpt-x": Price(input_per_mtok=2.5, output_per_mtok=10.0)}


def _run(usage: dict[str, Any] | None = None, model: str | None = "gpt-x", **kw: Any) -> Run:
    metadata = {} if model is None else {"model": model}
    return Run.model_validate({"case_id": "c", "usage": usage, "metadata": metadata, **kw})


def test_cost_from_the_price_table() -> None:
    # 1,000 input tokens at $2.50/M + 200 output tokens at $10/M = 0.0025 + 0.002 = 0.0045
    got = run_usage(_run({"input_tokens": 1000, "output_tokens": 200}), PRICES)
    assert got.cost == pytest.approx(0.0045) and got.cost_source == "priced"
    assert got.tokens == 1200  # no total recorded: input + output


def test_split_implied_by_the_total() -> None:
    # total 1,200 and input 1,000: output 200, the same 0.0045
    got = run_usage(_run({"tokens": 1200, "input_tokens": 1000}), PRICES)
    assert got.cost == pytest.approx(0.0045)


def test_only_a_total_is_priced_only_with_equal_prices() -> None:
    only_total = _run({"tokens": 2000})
    unequal = run_usage(only_total, PRICES)
    assert unequal.cost is None and unequal.cost_source == "no_token_split"
    flat = {"gpt-x": Price(input_per_mtok=3.0, output_per_mtok=3.0)}
    assert run_usage(only_total, flat).cost == pytest.approx(0.006)  # 2000 * 3 / 1e6


def test_unknown_model_and_no_model_are_unknown_never_zero() -> None:
    unknown = run_usage(_run({"tokens": 10, "input_tokens": 10}, model="other"), PRICES)
    assert unknown.cost is None and unknown.cost_source == "unknown_model"
    none = run_usage(_run({"tokens": 10, "input_tokens": 10}, model=None), PRICES)
    assert none.cost is None and none.cost_source == "no_model"
    nothing = run_usage(_run(None), PRICES)
    assert nothing == type(nothing)(None, None, None, "no_tokens")


def test_recorded_cost_then_step_costs_win_over_prices() -> None:
    recorded = run_usage(_run({"cost": 0.5, "input_tokens": 1000, "output_tokens": 0}), PRICES)
    assert (recorded.cost, recorded.cost_source) == (0.5, "recorded")
    steps = [{"tool": "a", "cost": 0.25, "latency_ms": 30}, {"tool": "b", "latency_ms": 12}]
    from_steps = run_usage(_run({"input_tokens": 5, "output_tokens": 5}, steps=steps), PRICES)
    assert (from_steps.cost, from_steps.cost_source) == (0.25, "steps")
    assert from_steps.latency_ms == 42.0  # 30 + 12: no recorded latency
    assert run_usage(_run({"latency_ms": 7}, steps=steps), PRICES).latency_ms == 7


def test_columns_count_unknown_costs_by_reason() -> None:
    runs = [
        _run({"input_tokens": 1000, "output_tokens": 200}),
        _run({"tokens": 50}, model="other"),
        _run(None),
    ]
    found = usage_columns(runs, PRICES)
    assert set(found.values) == {"tokens", "cost"}  # no latency anywhere: no column
    cost = found.values["cost"]
    assert cost[0] == pytest.approx(0.0045) and math.isnan(cost[1]) and math.isnan(cost[2])
    assert dict(found.sources) == {"priced": 1}
    assert dict(found.unknown) == {"unknown_model": 1, "no_tokens": 1}
    assert usage_columns([_run(None)], PRICES).values == {}


def test_score_emits_the_layer_and_its_summary() -> None:
    case = Case.model_validate({"case_id": "c", "reference": ["a"]})
    runs = [
        _run({"latency_ms": 100, "input_tokens": 1000, "output_tokens": 200}, steps=["a"]),
        _run({"latency_ms": 300, "tokens": 10}, model="other", steps=["a"]),
    ]
    result = score([case], runs, ScoringConfig(prices=PRICES))
    assert result[0].metrics["cost"] == pytest.approx(0.0045)
    assert result[1].metrics["cost"] is None
    system = result.summary()["system"]
    # latency 100, 300 (one case): mean 200; p95 at h = 0.95: 100 + 0.95 * 200 = 290
    assert system["latency_ms"]["mean"] == 200.0
    assert system["latency_ms"]["p95"] == pytest.approx(290.0)
    assert system["cost"]["unknown"] == 1
    assert system["cost"]["unknown_reasons"] == {"unknown_model": 1}
    assert system["cost"]["sources"] == {"priced": 1}
    for name in ("latency_ms", "tokens", "cost", "latency_ms.p95", "cost.max", "tokens.mean"):
        assert catalogue.direction(name) == "lower"
    assert catalogue.row("cost").unit == "USD"
    assert "system_usage" not in result.summary().get("not_computed", {})


def test_no_usage_is_not_computed() -> None:
    case = Case.model_validate({"case_id": "c", "reference": ["a"]})
    result = score([case], [Run.model_validate({"case_id": "c", "steps": ["a"]})])
    summary = result.summary()
    assert "system" not in summary and "latency_ms" not in result.metrics
    assert "system_usage" in summary["not_computed"]


def test_price_table_loads_from_toml(tmp_path: Any) -> None:
    from pathgrade.io.config import load_config

    path = tmp_path / "pathgrade.toml"
    path.write_text('[prices."gpt-x"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10\n')
    assert load_config(path).prices == PRICES
    path.write_text('[prices."gpt-x"]\ninput_per_mtok = -1\noutput_per_mtok = 10\n')
    with pytest.raises(InputError, match=r"field 'prices\.gpt-x\.input_per_mtok'"):
        load_config(path)


def test_gates_read_the_layer_from_records() -> None:
    from pathgrade.gates import Gate, GateSet, evaluate_gates

    case = Case.model_validate({"case_id": "c", "reference": ["a"]})
    runs = [_run({"latency_ms": v, "tokens": 10}, model="other") for v in (100, 200, 300)]
    records = [r.to_dict() for r in score([case], runs, ScoringConfig(prices=PRICES))]
    # p99 of 100, 200, 300 at h = 1.98: 200 + 0.98 * 100 = 298
    p99 = Gate("latency_ms", "max", 298.0, statistic="p99")
    cost = Gate("cost", "max", 1.0)  # every cost unknown: the gate fails, never passes on 0
    report = evaluate_gates(GateSet((p99, cost)), records, records)
    assert report.results[0].passed and report.results[0].variant == pytest.approx(298.0)
    assert not report.results[1].passed


AMOUNT = st.one_of(st.none(), st.integers(0, 5000).map(float))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.tuples(AMOUNT, AMOUNT, AMOUNT, AMOUNT, AMOUNT)),
            st.lists(st.tuples(AMOUNT, AMOUNT, AMOUNT), max_size=3),
            st.sampled_from([None, "gpt-x", "other"]),
        ),
        max_size=8,
    )
)
def test_columns_equal_the_per_run_definition(specs: list[Any]) -> None:
    # The columns' fast path (no usage, no step amounts) against run_usage, run by run.
    runs = []
    for usage, steps, model in specs:
        fields = ("tokens", "cost", "latency_ms", "input_tokens", "output_tokens")
        recorded = None if usage is None else dict(zip(fields, usage, strict=True))
        step_list = [
            {"tool": "a", "latency_ms": lat, "tokens": tok, "cost": cost}
            for lat, tok, cost in steps
        ]
        runs.append(_run(recorded, model=model, steps=step_list))
    found = usage_columns(runs, PRICES)
    for index, run in enumerate(runs):
        one = run_usage(run, PRICES)
        for name in ("latency_ms", "tokens", "cost"):
            expected = getattr(one, name)
            if name not in found.values:
                assert expected is None
                continue
            got = float(found.values[name][index])
            assert (math.isnan(got) and expected is None) or got == expected
    sources = [run_usage(r, PRICES).cost_source for r in runs]
    if "cost" in found.values:
        assert sum(found.sources.values()) + sum(found.unknown.values()) == len(runs)
        assert found.unknown["unknown_model"] == sources.count("unknown_model")
