"""Field-level argument comparison, pairing, validators and the end-state diff."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathgrade.core.config import FieldMatch, MatchingConfig, ToolMatch
from pathgrade.core.errors import ConfigError
from pathgrade.core.types import Step
from pathgrade.metrics.tool import json_equal, register_validator, state_diff, unregister_validator
from pathgrade.metrics.tool.arguments import FieldComparer, pair_calls
from pathgrade.metrics.tool.confusion import Observation, tool_confusion
from pathgrade.metrics.tool.validators import resolve_validators


def comparer(**tools: ToolMatch) -> FieldComparer:
    return FieldComparer(MatchingConfig(tools=tools), resolve_validators())


def compare(agent: Any, ref: Any, **tools: ToolMatch) -> tuple[int, int, int, bool]:
    c = comparer(**tools).compare(
        Step(tool="t", arguments=agent), 0, Step(tool="t", arguments=ref), 0
    )
    return c.tp, c.fp, c.fn, c.correct


def test_json_equality() -> None:
    assert json_equal(1, 1.0)
    assert not json_equal("1", 1)
    assert not json_equal(True, 1)
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not json_equal([1, 2], [2, 1])


def test_optional_fields_give_field_precision_and_recall() -> None:
    ref = {"id": "A17", "window": {"start": "10:00", "end": "11:00"}}
    assert compare({"id": "A17", "window": {"start": "10:00", "end": "11:00"}}, ref) == (
        3,
        0,
        0,
        True,
    )
    assert compare({"id": "A17", "window": {"start": "10:00"}, "note": "x"}, ref) == (
        2,
        1,
        1,
        False,
    )


def test_subset_ignore_and_per_field_modes() -> None:
    assert compare({"id": "A", "extra": 1}, {"id": "A"}, t=ToolMatch(mode="subset"))[3]
    assert compare({"id": "B"}, {"id": "A"}, t=ToolMatch(mode="ignore")) == (0, 0, 0, True)
    norm = ToolMatch(fields={"name": FieldMatch(mode="normalized")})
    assert compare({"name": " ACME  Corp"}, {"name": "acme corp"}, t=norm)[3]
    fuzzy = ToolMatch(fields={"q": FieldMatch(mode="fuzzy", threshold=90)})
    assert compare({"q": "refund policy for orders"}, {"q": "orders refund policy"}, t=fuzzy)[3]
    tol = ToolMatch(fields={"amount": FieldMatch(mode="numeric", rel_tol=0.01)})
    assert compare({"amount": 99.5}, {"amount": 100}, t=tol)[3]
    assert not compare({"amount": 98}, {"amount": 100}, t=tol)[3]
    assert not compare({"amount": "lots"}, {"amount": 100}, t=tol)[3]


def test_positional_arguments_compare_by_position() -> None:
    assert compare(["A17"], ["A17"]) == (1, 0, 0, True)
    assert compare(["A18"], ["A17"]) == (0, 1, 1, False)
    assert compare({"order": "A17"}, ["A17"]) == (0, 1, 1, False)


def test_custom_validator_registered_and_passed() -> None:
    def same_sql(value: Any, reference: Any) -> bool:
        return " ".join(str(value).lower().split()) == " ".join(str(reference).lower().split())

    rule = ToolMatch(fields={"sql": FieldMatch(mode="sql_equiv")})
    register_validator("sql_equiv", same_sql)
    try:
        with pytest.raises(ValueError, match="already registered"):
            register_validator("sql_equiv", same_sql)
        assert compare({"sql": "SELECT  1"}, {"sql": "select 1"}, t=rule)[3]
    finally:
        unregister_validator("sql_equiv")
    with pytest.raises(ConfigError, match="unknown argument matching mode or validator"):
        compare({"sql": "x"}, {"sql": "x"}, t=rule)
    direct = FieldComparer(
        MatchingConfig(tools={"t": rule}), resolve_validators({"sql_equiv": same_sql})
    )
    step = Step(tool="t", arguments={"sql": "SELECT 1"})
    assert direct.compare(step, 0, Step(tool="t", arguments={"sql": "select 1"}), 0).correct


def test_builtin_validators() -> None:
    rule = ToolMatch(
        fields={"ids": FieldMatch(mode="unordered"), "who": FieldMatch(mode="casefold")}
    )
    assert compare(
        {"ids": [2, 1, 1], "who": "Ann  Lee"}, {"ids": [1, 2, 1], "who": "ann lee"}, t=rule
    )[3]
    assert not compare({"ids": [2, 1]}, {"ids": [1, 2, 1]}, t=rule)[3]


def test_pairing_is_optimal_not_greedy() -> None:
    agent = [Step(tool="get", arguments={"id": "B"}), Step(tool="get", arguments={"id": "A"})]
    ref = [Step(tool="get", arguments={"id": "A"}), Step(tool="get", arguments={"id": "B"})]
    pairs = pair_calls(comparer(), agent, ref)
    assert [(p.step_index, p.reference_step_index, p.correct) for p in pairs] == [
        (0, 1, True),
        (1, 0, True),
    ]


def test_state_diff_field_by_field() -> None:
    expected = {"orders": {"A17": {"status": "refunded", "amount": 20}}, "log": [1, 2]}
    actual = {"orders": {"A17": {"status": "open", "amount": 20.0}}, "log": [1], "x": True}
    assert [(d.path, d.kind) for d in state_diff(expected, actual)] == [
        ("$.log[1]", "missing"),
        ("$.orders.A17.status", "changed"),
        ("$.x", "unexpected"),
    ]
    assert state_diff(expected, expected) == []


def test_confusion_includes_dangerous_tools_never_called() -> None:
    obs = [Observation("c", None, 0, frozenset({"a"}), frozenset({"a"}))]
    table, report = tool_confusion(obs, dangerous=["delete"])
    assert [(r.tool, r.tn) for r in table] == [("a", 0), ("delete", 1)]
    assert (report.fp, report.tn, report.false_positive_rate) == (0, 1, 0.0)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(json_values, json_values)
def test_state_diff_empty_iff_equal_and_symmetric_in_size(a: Any, b: Any) -> None:
    diff = state_diff(a, b)
    assert (diff == []) == json_equal(a, b)
    assert len(diff) == len(state_diff(b, a))


@given(
    st.dictionaries(st.sampled_from("abcde"), st.integers(0, 3), max_size=5),
    st.dictionaries(st.sampled_from("abcde"), st.integers(0, 3), max_size=5),
)
def test_field_counts_bounds(agent: dict[str, int], ref: dict[str, int]) -> None:
    tp, fp, fn, correct = compare(agent, ref)
    assert tp + fp == len(agent) and tp + fn == len(ref)
    assert correct == (agent == ref)


tool_sets = st.frozensets(st.sampled_from(["a", "b", "c", "d"]), max_size=4)


@given(st.lists(st.tuples(tool_sets, tool_sets), max_size=6))
def test_confusion_counts_partition_the_runs(
    pairs: list[tuple[frozenset[str], frozenset[str]]],
) -> None:
    obs = [Observation(f"c{i}", None, 0, s, c) for i, (s, c) in enumerate(pairs)]
    table, report = tool_confusion(obs, universe=["a"], dangerous=["d"])
    for row in table:
        assert row.tp + row.fp + row.fn + row.tn == len(obs)
        for value in (row.precision, row.recall, row.f1, row.false_positive_rate):
            assert value is None or 0.0 <= value <= 1.0
    assert report.fp == len(report.false_positives)
