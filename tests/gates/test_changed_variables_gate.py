"""The ``changed_variables`` gate: a provenance check, not a metric (change one at a time)."""

from __future__ import annotations

import tomllib

import pytest

from pathgrade.core.errors import InputError
from pathgrade.gates import Gate, GateSet, evaluate_gates
from pathgrade.gates.model import CHANGED_VARIABLES
from pathgrade.io.gates import parse_gates

RULE = """
[[gate]]
metric = "changed_variables"
rule = "max"
threshold = 1
"""
RECORDS = [{"case_id": "c0", "metrics": {"path_score": 100.0}}]


def _gates(text: str = RULE) -> GateSet:
    return parse_gates(tomllib.loads(text), "gates.toml")


def test_the_toml_rule_loads_as_a_count_gate() -> None:
    (gate,) = _gates().gates
    assert (gate.metric, gate.rule, gate.threshold, gate.statistic) == (
        CHANGED_VARIABLES,
        "max",
        1.0,
        "count",
    )
    assert gate.name == "changed_variables max 1" and gate.needs_baseline


@pytest.mark.parametrize(
    ("extra", "field", "message"),
    [
        ('rule = "not_below_baseline"', "gate[1].rule", "use max, min or equal"),
        ('rule = "max"\nthreshold = 1\nstatistic = "p95"', "gate[1].statistic", "is a count"),
    ],
)
def test_a_provenance_check_takes_an_absolute_rule_and_no_statistic(
    extra: str, field: str, message: str
) -> None:
    text = f'[[gate]]\nmetric = "changed_variables"\n{extra}\n'
    with pytest.raises(InputError, match=message) as info:
        _gates(text)
    assert info.value.field == field


def test_a_near_miss_suggests_it() -> None:
    with pytest.raises(InputError, match="did you mean changed_variables"):
        _gates(RULE.replace('"changed_variables"', '"changed_variable"'))


def test_passes_with_at_most_one_change_fails_with_two() -> None:
    gates = _gates()
    one = {"model": ("m1", "m2")}
    two = {"model": ("m1", "m2"), "prompt_version": ("p1", "p2")}
    # 1 <= 1
    (result,) = evaluate_gates(gates, RECORDS, RECORDS, changed=one).results
    assert result.passed and result.message == "changed_variables 1 <= 1: model"
    assert (result.baseline, result.variant, result.threshold) == (None, 1.0, 1.0)
    # 2 <= 1 fails, naming both
    (result,) = evaluate_gates(gates, RECORDS, RECORDS, changed=two).results
    assert not result.passed
    assert result.message == "changed_variables 2 <= 1: model, prompt_version"
    # 0 <= 1
    assert evaluate_gates(gates, RECORDS, RECORDS, changed={}).passed


def test_unknown_provenance_fails_never_passes_vacuously() -> None:
    (result,) = evaluate_gates(_gates(), RECORDS, RECORDS).results
    assert not result.passed and "a side records no provenance" in result.message


def test_equal_zero_requires_nothing_changed() -> None:
    gate = Gate(CHANGED_VARIABLES, "equal", 0.0)
    gates = GateSet((gate,))
    assert evaluate_gates(gates, RECORDS, RECORDS, changed={}).passed
    assert not evaluate_gates(gates, RECORDS, RECORDS, changed={"seed": ("1", "2")}).passed
