"""The pure ``semantic`` matcher: threshold, free-text decision, number guard, fallbacks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.config import MatchingConfig
from pathgrade.core.errors import ConfigError
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.evidence import free_text_name, free_text_value, same_numbers

from .helpers import evidence

# angles in degrees: cos(0 - 30) = 0.866, cos(0 - 40) = 0.766, cos(0 - 90) = 0
ANGLES = {"weather in Paris": 0.0, "Paris weather": 30.0, "Paris forecast": 40.0, "Lyon": 90.0}


def matchers(config: dict[str, object], **kw: object) -> MatcherSet:
    return MatcherSet(MatchingConfig.model_validate(config), {"semantic": evidence(ANGLES, **kw)})


def test_field_threshold_is_a_cosine() -> None:
    m = matchers({"tools": {"search": {"fields": {"q": {"mode": "semantic", "threshold": 0.8}}}}})
    tool = m.for_tool("search")
    assert tool.match({"q": "weather in Paris"}, {"q": "Paris weather"})  # 0.866 >= 0.8
    assert not tool.match({"q": "weather in Paris"}, {"q": "Paris forecast"})  # 0.766 < 0.8
    assert not tool.match({"q": "weather in Paris"}, {"q": "Lyon"})  # 0
    (detail,) = tool.explain({"q": "weather in Paris"}, {"q": "Paris weather"})
    assert (detail.mode, detail.matched) == ("semantic", True)
    assert detail.similarity == pytest.approx(0.8660254, abs=1e-6)


def test_default_threshold_and_call_level_mode() -> None:
    # default 0.85: 0.866 matches; call-level semantic compares free-text fields only
    tool = matchers({"mode": "semantic"}).for_tool("search")
    assert tool.match({"q": "weather in Paris", "n": 3}, {"q": "Paris weather", "n": 3.0})
    assert not tool.match({"q": "weather in Paris", "n": 3}, {"q": "Paris weather", "n": 4})
    details = tool.explain({"q": "weather in Paris", "n": 3}, {"q": "Paris weather", "n": 3})
    assert [(d.name, d.mode, d.matched) for d in details] == [
        ("n", "normalized", True),
        ("q", "semantic", True),
    ]


def test_ids_are_never_semantic_without_an_override() -> None:
    angles = {"W1234567": 0.0, "W1234576": 1.0, "ok go": 0.0, "fine go": 1.0}
    m = MatcherSet(MatchingConfig(mode="semantic"), {"semantic": evidence(angles)})
    tool = m.for_tool("get_order")
    # an id-like value and an id-like field name fall back to normalized (cosine 0.9998)
    assert not tool.match({"note": "W1234567"}, {"note": "W1234576"})
    assert not tool.match({"order_id": "ok go"}, {"order_id": "fine go"})
    assert tool.match({"note": "ok go"}, {"note": "fine go"})
    # the schema wins over the heuristic: a plain string field is free text
    typed = evidence(angles, schema_free={"get_order": {"order_id": True, "note": False}})
    tool = MatcherSet(MatchingConfig(mode="semantic"), {"semantic": typed}).for_tool("get_order")
    assert tool.match({"order_id": "ok go"}, {"order_id": "fine go"})
    assert not tool.match({"note": "ok go"}, {"note": "fine go"})


def test_number_guard_holds_even_under_an_override() -> None:
    angles = {"refund order 1234": 0.0, "refund order 1243": 0.0}
    config = {"tools": {"refund": {"fields": {"reason": {"mode": "semantic"}}}}}
    tool = MatcherSet(MatchingConfig.model_validate(config), {"semantic": evidence(angles)})
    r = tool.for_tool("refund")
    assert not r.match({"reason": "refund order 1234"}, {"reason": "refund order 1243"})


def test_non_strings_fall_back_to_normalized() -> None:
    tool = matchers({"tools": {"t": {"fields": {"x": {"mode": "semantic"}}}}}).for_tool("t")
    assert tool.match({"x": 10}, {"x": "10.0"})
    assert not tool.match({"x": True}, {"x": 1})
    assert tool.match({"x": ["weather in Paris"]}, {"x": ["Paris weather"]})


def test_missing_evidence_and_bad_threshold_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="needs embeddings"):
        MatcherSet(MatchingConfig(mode="semantic"))
    with pytest.raises(ConfigError, match="cosine"):
        matchers({"tools": {"t": {"mode": "semantic", "threshold": 85}}})


def test_heuristic_examples() -> None:
    assert free_text_name("summary") and free_text_name("query")
    assert not free_text_name("order_id") and not free_text_name("email")
    assert free_text_value("Марс") and free_text_value("planet Mars")
    assert not free_text_value("#W2378156") and not free_text_value("2024-05-01")
    assert not free_text_value("12.5") and not free_text_value("basic_economy")
    assert same_numbers("gate 12, at 9:30", "at 9:30 gate 12")
    assert not same_numbers("$50 refund", "$500 refund")


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 180), st.floats(0, 180), st.floats(0, 1))
def test_match_is_cosine_at_least_threshold(a: float, b: float, threshold: float) -> None:
    import math

    angles = {"alpha text": a, "beta text": b}
    config = {"tools": {"t": {"fields": {"q": {"mode": "semantic", "threshold": threshold}}}}}
    tool = MatcherSet(MatchingConfig.model_validate(config), {"semantic": evidence(angles)})
    (detail,) = tool.for_tool("t").explain({"q": "alpha text"}, {"q": "beta text"})
    assert detail.similarity is not None
    assert abs(detail.similarity - math.cos(math.radians(a - b))) < 1e-5
    assert detail.matched == (detail.similarity >= threshold)
    assert tool.for_tool("t").match({"q": "alpha text"}, {"q": "beta text"}) == detail.matched
