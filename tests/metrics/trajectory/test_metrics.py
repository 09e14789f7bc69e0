"""Hand-computed values for every trajectory metric and defect."""

from __future__ import annotations

import math

import pytest

from pathgrade import ScoringConfig
from pathgrade.core.config import FieldMatch, MatchingConfig, Penalties, ToolMatch, Weights

from .helpers import one


def test_empty_against_empty_is_perfect() -> None:
    m = one([], []).metrics
    assert m["tool_accuracy"] == m["argument_accuracy"] == m["step_order_accuracy"] == 1.0
    assert m["path_efficiency"] == 1.0 and m["path_score"] == 100.0
    assert m["tool_precision"] == m["tool_recall"] == m["tool_f1"] == 1.0


def test_empty_agent_path() -> None:
    m = one(["a", "b"], []).metrics
    assert m["tool_accuracy"] == 0.0 and m["step_order_accuracy"] == 0.0
    assert m["path_efficiency"] == 0.0
    assert m["tool_precision"] is None  # undefined: the agent called nothing
    assert m["tool_recall"] == 0.0 and m["tool_f1"] == 0.0
    assert m["missing_steps"] == 2 and m["path_score"] == 50.0


def test_agent_acts_when_nothing_was_needed() -> None:
    m = one([], ["a:1"]).metrics
    assert m["path_efficiency"] == 0.0 and m["tool_recall"] is None
    assert m["tool_precision"] == 0.0 and m["path_score"] == 100.0  # an extra read is free


def test_tool_multiset_precision_recall() -> None:
    # reference a, a, b; agent a, b, b, c: intersection {a, b} = 2
    m = one(["a:1", "a:2", "b:1"], ["a:1", "b:1", "b:2", "c:1"]).metrics
    assert m["tool_precision"] == pytest.approx(2 / 4)
    assert m["tool_recall"] == pytest.approx(2 / 3)
    assert m["tool_f1"] == pytest.approx(2 * 2 / 7)


def test_substitution_counts_in_step_order_accuracy() -> None:
    # a b c vs a x c: one substitution -> 1 - 1/3
    r = one(["a", "b", "c"], ["a", "x", "c"])
    assert r.metrics["step_order_accuracy"] == pytest.approx(2 / 3)
    assert r.metrics["tool_accuracy"] == pytest.approx(2 / 3)
    assert [a.op for a in r.alignment] == ["match", "substitution", "match"]
    assert r.metrics["missing_steps"] == 1


def test_argument_mismatch_is_substitution_with_tool_match() -> None:
    r = one(["refund:A17"], ["refund:A18"])
    (step,) = r.alignment
    assert step.op == "substitution" and step.tool_match and not step.arguments_match
    assert r.metrics["tool_accuracy"] == 1.0 and r.metrics["argument_accuracy"] == 0.0
    assert r.metrics["missing_steps"] == 1 and r.metrics["path_score"] == 75.0


def test_wrong_refund_is_an_unexpected_write_when_kinds_are_declared() -> None:
    config = ScoringConfig(tool_kinds={"refund": "write"})
    r = one(["refund:A17"], ["refund:A18"], config)
    assert sorted(d.kind for d in r.defects) == ["missing_step", "unexpected_write"]
    assert r.metrics["path_score"] == 50.0


def test_extra_write_costs_more_than_extra_read() -> None:
    config = ScoringConfig(tool_kinds={"cancel": "write", "lookup": "read"})
    read = one(["lookup:1"], ["lookup:1", "lookup:2"], config)
    write = one(["lookup:1"], ["lookup:1", "cancel:1"], config)
    assert read.metrics["path_score"] == 100.0
    assert write.metrics["path_score"] == 75.0
    assert [d.kind for d in write.defects] == ["unexpected_write"]


def test_case_tool_kinds_override_config() -> None:
    config = ScoringConfig(tool_kinds={"cancel": "write"})
    r = one(["lookup:1"], ["lookup:1", "cancel:1"], config, tool_kinds={"cancel": "read"})
    assert r.metrics["path_score"] == 100.0


def test_retry_after_error_is_not_wasted() -> None:
    steps = [{"tool": "lookup", "arguments": ["1"], "error": "timeout"}, "lookup:1"]
    r = one(["lookup:1"], steps)
    assert r.metrics["redundant_steps"] == 0 and r.metrics["recovery_rate"] == 1.0
    assert r.metrics["path_score"] == 100.0


def test_recovery_rate_counts_retry_fallback_and_stop() -> None:
    config = ScoringConfig(fallbacks={"search": ("search_v2",)})
    steps = [
        {"tool": "search", "arguments": ["q"], "error": "500"},  # fallback follows
        "search_v2:q",
        {"tool": "book", "arguments": ["x"], "error": "denied"},  # ploughs on: not recovered
        "pay:x",
        {"tool": "notify", "arguments": ["x"], "error": "down"},  # last step: clean stop
    ]
    r = one(["search_v2:q", "book:x", "pay:x", "notify:x"], steps, config)
    assert r.metrics["recovery_rate"] == pytest.approx(2 / 3)
    assert [d.agent_step for d in r.defects if d.kind == "unrecovered_error"] == [2]


def test_recovery_rate_undefined_without_errors() -> None:
    assert one(["a"], ["a"]).metrics["recovery_rate"] is None


def test_budgets_on_tokens_cost_and_latency() -> None:
    steps = [{"tool": "a", "tokens": 600, "cost": 0.01}, {"tool": "b", "tokens": 500}]
    r = one(
        ["a", "b"],
        steps,
        budget={"tokens": 1000, "cost": 0.5, "latency_ms": 10},
        run_usage={"latency_ms": 11},
    )
    over = next(d for d in r.defects if d.kind == "over_budget")
    assert over.extra["budgets"] == ["tokens", "latency_ms"]
    assert r.metrics["path_score"] == 80.0 and r.usage["tokens"] == 1100.0


def test_config_budget_applies_when_case_has_none() -> None:
    config = ScoringConfig.model_validate({"budget": {"steps": 1}})
    assert one(["a"], ["a", "b"], config).metrics["over_budget"] is True
    assert one(["a"], ["a", "b"], config, budget={"steps": 2}).metrics["over_budget"] is False


def test_forbidden_tools_and_actions() -> None:
    r = one(
        ["lookup:1"],
        ["lookup:1", "delete:1", "refund:B9", "refund:A1"],
        forbidden_tools=["delete"],
        forbidden_actions=["refund:B9"],
    )
    assert r.metrics["forbidden_action_count"] == 2
    assert r.metrics["path_score"] == 0.0  # 100 per forbidden action, floored at 0
    assert [d.agent_step for d in r.defects if d.kind == "forbidden_action"] == [1, 2]


def test_forbidden_action_without_arguments_forbids_every_call() -> None:
    r = one([], ["refund:A1"], forbidden_actions=[{"tool": "refund"}])
    assert r.metrics["forbidden_action_count"] == 1


def test_required_tool_coverage_and_penalty_not_double_counted() -> None:
    # 'refund' is in the reference (missing already counts) but 'notify' is not.
    r = one(["lookup:1", "refund:1"], ["lookup:1"], required_tools=["refund", "notify", "lookup"])
    assert r.metrics["required_tool_coverage"] == pytest.approx(1 / 3)
    kinds = sorted(d.kind for d in r.defects)
    assert kinds == ["missing_required_tool", "missing_step"]
    assert r.metrics["path_score"] == 50.0
    assert one(["a"], ["a"]).metrics["required_tool_coverage"] is None


def test_goal_success_from_answer_normalised() -> None:
    assert (
        one(["a"], ["a"], gold_answer="Paris", run_answer="  paris ").metrics["goal_success"]
        is True
    )
    assert (
        one(["a"], ["a"], gold_answer=["42", "forty-two"], run_answer="42.0").metrics[
            "goal_success"
        ]
        is True
    )
    assert (
        one(["a"], ["a"], gold_answer="Paris", run_answer="Lyon").metrics["goal_success"] is False
    )
    assert one(["a"], ["a"], gold_answer="Paris").metrics["goal_success"] is False
    assert one(["a"], ["a"]).metrics["goal_success"] is None  # nothing says: undefined
    # the harness's own verdict wins
    assert (
        one(["a"], ["a"], gold_answer="x", run_answer="y", run_success=True).metrics["goal_success"]
        is True
    )


def test_composite_weights_are_normalised() -> None:
    config = ScoringConfig(
        weights=Weights(
            tool_accuracy=3, argument_accuracy=0, step_order_accuracy=0, path_efficiency=1
        )
    )
    m = one(["a", "b"], ["a", "b", "c"], config).metrics
    assert m["composite"] == pytest.approx((3 * (2 / 3) + 1 * (2 / 3)) / 4)


def test_custom_penalties() -> None:
    config = ScoringConfig(penalties=Penalties(missing_step=40, out_of_order=0))
    assert one(["a", "b", "c"], ["a", "c"], config).metrics["path_score"] == 60.0


def test_order_none_ignores_order() -> None:
    r = one(["a:1", "b:1", "c:1"], ["c:1", "a:1", "b:1"], order="none")
    assert r.metrics["path_score"] == 100.0 and r.metrics["out_of_order"] is False
    assert r.metrics["step_order_accuracy"] == 1.0 and r.metrics["argument_accuracy"] == 1.0


def test_order_none_with_a_wrong_step() -> None:
    r = one(["a:1", "b:1"], ["x:1", "a:1"], order="none")
    assert r.metrics["tool_accuracy"] == 0.5 and r.metrics["step_order_accuracy"] == 0.5
    assert r.metrics["missing_steps"] == 1


PARTIAL = [
    {"id": "l", "tool": "logs"},
    {"id": "m", "tool": "metrics"},
    {"id": "r", "tool": "report", "after": ["l", "m"]},
]


def test_partial_order_scores_order_only_where_it_matters() -> None:
    free = one(PARTIAL, ["metrics", "logs", "report"], order="partial")
    assert free.metrics["path_score"] == 100.0 and free.metrics["step_order_accuracy"] == 1.0
    broken = one(PARTIAL, ["logs", "report", "metrics"], order="partial")
    assert broken.metrics["out_of_order"] is True and broken.metrics["path_score"] == 85.0
    (defect,) = broken.defects
    assert defect.kind == "out_of_order" and defect.agent_step == 1
    assert broken.metrics["step_order_accuracy"] == pytest.approx(1 - 2 / 3)


def test_premature_write_is_the_extra_and_out_of_order_when_redone_later() -> None:
    # The report written before the metrics were fetched is the extra write, and writing it
    # before its turn is an order defect even though a later report put things right.
    config = ScoringConfig(tool_kinds={"report": "write"})
    r = one(PARTIAL, ["logs", "report", "metrics", "report"], config, order="partial")
    assert r.metrics["out_of_order"] is True and r.metrics["path_score"] == 60.0
    assert [(d.kind, d.agent_step) for d in r.defects] == [
        ("unexpected_write", 1),
        ("out_of_order", 1),
    ]
    in_turn = one(PARTIAL, ["logs", "metrics", "report", "report"], config, order="partial")
    assert in_turn.metrics["out_of_order"] is False and in_turn.metrics["path_score"] == 75.0


def test_out_of_order_does_not_fire_when_only_trailing_steps_are_missing() -> None:
    r = one(["a", "b", "c"], ["a", "b"])
    assert r.metrics["out_of_order"] is False and r.metrics["path_score"] == 75.0


def test_best_reference_ties_break_on_composite_then_index() -> None:
    # Both references give path_score 75; the second has the higher composite.
    r = one(None, ["a", "b"], references=[["a", "b", "x"], ["a", "b", "c"], ["a", "b", "c"]])
    assert r.reference_index == 0  # all equal: lowest index
    r = one(None, ["a", "b", "c"], references=[["a", "x"], ["a", "b", "c"]])
    assert r.reference_index == 1


def test_case_without_reference_has_undefined_path_metrics() -> None:
    r = one(None, ["a"], gold_answer="x", run_answer="x")
    assert r.reference_index is None and r.metrics["path_score"] is None
    assert r.metrics["goal_success"] is True


@pytest.mark.parametrize(
    ("mode", "reference", "agent", "expected"),
    [
        ("exact", {"n": 1}, {"n": 1.0}, True),
        ("exact", {"n": "1"}, {"n": 1}, False),
        ("exact", {"flag": True}, {"flag": 1}, False),
        ("exact", {"a": 1, "b": [1, {"c": 2}]}, {"b": [1, {"c": 2}], "a": 1}, True),
        ("normalized", {"q": "Ｐａｒｉｓ  Hotels"}, {"q": "paris hotels"}, True),
        ("normalized", {"n": "10.0"}, {"n": 10}, True),
        ("normalized", {"q": "paris"}, {"q": "lyon"}, False),
        ("fuzzy", {"q": "mean temperature of Mars"}, {"q": "temperature of Mars"}, True),
        ("fuzzy", {"q": "weather in Paris"}, {"q": "stock price"}, False),
        ("fuzzy", {"q": "x"}, {"q": "x", "extra": 1}, False),
        ("subset", {"id": "A"}, {"id": "A", "verbose": True}, True),
        ("subset", {"id": "A", "x": 1}, {"id": "A"}, False),
        ("ignore", {"id": "A"}, {"id": "B"}, True),
    ],
)
def test_argument_matching_modes(
    mode: str, reference: dict[str, object], agent: dict[str, object], expected: bool
) -> None:
    config = ScoringConfig(matching=MatchingConfig(mode=mode))
    r = one([{"tool": "t", "arguments": reference}], [{"tool": "t", "arguments": agent}], config)
    assert r.metrics["argument_accuracy"] == (1.0 if expected else 0.0)


def test_per_field_numeric_tolerance_and_ignore() -> None:
    config = ScoringConfig(
        matching=MatchingConfig(
            tools={
                "refund": ToolMatch(
                    fields={
                        "amount": FieldMatch(mode="numeric", abs_tol=0.01),
                        "note": FieldMatch(mode="ignore"),
                    }
                )
            }
        )
    )
    ref = [{"tool": "refund", "arguments": {"id": "A", "amount": 10.0, "note": "x"}}]
    near = [{"tool": "refund", "arguments": {"id": "A", "amount": "10.005"}}]
    far = [{"tool": "refund", "arguments": {"id": "A", "amount": 10.5, "note": "x"}}]
    assert one(ref, near, config).metrics["argument_accuracy"] == 1.0
    assert one(ref, far, config).metrics["argument_accuracy"] == 0.0


def test_plugin_matcher_is_the_semantic_hook() -> None:
    from pathgrade.plugins import register_argument_matcher, unregister_argument_matcher

    register_argument_matcher("same_first_word", lambda r, a: r.split()[0] == a.split()[0])
    try:
        config = ScoringConfig.model_validate(
            {"matching": {"tools": {"s": {"fields": {"q": {"mode": "same_first_word"}}}}}}
        )
        r = one(
            [{"tool": "s", "arguments": {"q": "mars heat"}}],
            [{"tool": "s", "arguments": {"q": "mars temperature"}}],
            config,
        )
        assert r.metrics["argument_accuracy"] == 1.0
    finally:
        unregister_argument_matcher("same_first_word")


def test_unknown_matching_mode_is_a_config_error() -> None:
    from pathgrade.core.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown argument matching mode 'semantik'"):
        one(["a"], ["a"], ScoringConfig(matching=MatchingConfig(mode="semantik")))


def test_fuzzy_pairs_use_an_optimal_not_greedy_matching() -> None:
    # agent q="paris hotel" fuzzy-matches both references; greedy first fit would take
    # reference 0 and leave "paris" (which only matches reference 0 too) unmatched.
    config = ScoringConfig(
        matching=MatchingConfig(mode="fuzzy", fuzzy_scorer="ratio", fuzzy_threshold=60)
    )
    ref = [
        {"tool": "s", "arguments": {"q": "paris hotels"}},
        {"tool": "s", "arguments": {"q": "cheap paris hotel"}},
    ]
    agent = [
        {"tool": "s", "arguments": {"q": "paris hotel"}},
        {"tool": "s", "arguments": {"q": "paris hotel s"}},
    ]
    r = one(ref, agent, config, order="none")
    assert r.metrics["missing_steps"] == 0


def test_nan_never_hides_as_zero_in_summary() -> None:
    from pathgrade import Case, Run, score

    cases = [Case(case_id="a", reference=()), Case(case_id="b")]
    runs = [Run(case_id="a"), Run(case_id="b")]
    summary = score(cases, runs).summary()
    assert summary["path_score"] == 100.0 and summary["undefined"]["path_score"] == 1
    assert math.isnan(score(cases, runs).metrics["path_score"][1])


def test_parallel_calls_of_one_turn_are_unordered() -> None:
    reference = ["lookup:1", "search:2", "refund:1"]
    parallel = [
        {"tool": "search", "arguments": ["2"], "turn": 1},
        {"tool": "lookup", "arguments": ["1"], "turn": 1},
        {"tool": "refund", "arguments": ["1"], "turn": 2},
    ]
    r = one(reference, parallel)
    assert r.metrics["path_score"] == 100.0 and r.metrics["out_of_order"] is False
    assert r.metrics["step_order_accuracy"] == 1.0
    # positions are reported in the recorded order
    assert [(a.op, a.agent_step, a.reference_step) for a in r.alignment] == [
        ("match", 1, 0),
        ("match", 0, 1),
        ("match", 2, 2),
    ]
    sequential = [{k: v for k, v in s.items() if k != "turn"} for s in parallel]
    assert one(reference, sequential).metrics["out_of_order"] is True


def test_a_group_keeps_its_place_in_the_path() -> None:
    # refund (turn 1) before the lookup/search group (turn 2): still out of order.
    steps = [
        {"tool": "refund", "arguments": ["1"], "turn": 1},
        {"tool": "search", "arguments": ["2"], "turn": 2},
        {"tool": "lookup", "arguments": ["1"], "turn": 2},
    ]
    assert one(["lookup:1", "search:2", "refund:1"], steps).metrics["out_of_order"] is True


def test_ignore_mode_repeats_need_the_same_arguments() -> None:
    config = ScoringConfig(matching=MatchingConfig(mode="ignore"))
    different = one(["think:a"], ["think:a", "think:b"], config)
    same = one(["think:a"], ["think:a", "think:a"], config)
    assert different.metrics["redundant_steps"] == 0
    assert same.metrics["redundant_steps"] == 1


def test_a_premature_call_redone_later_is_wasted_and_out_of_order() -> None:
    r = one(["lookup:1", "search:2"], ["search:2", "lookup:1", "search:2"])
    assert r.metrics["out_of_order"] is True and r.metrics["path_score"] == 75.0
    assert [(d.kind, d.agent_step) for d in r.defects] == [
        ("wasted_step", 0),
        ("out_of_order", 0),
    ]
    # A failed premature attempt is a retry when redone (not waste), but still out of order.
    failed_first = [{"tool": "search", "arguments": ["2"], "error": "500"}, "lookup:1", "search:2"]
    assert one(["lookup:1", "search:2"], failed_first).metrics["path_score"] == 85.0
    # A retry in its turn is neither.
    in_turn = ["lookup:1", {"tool": "search", "arguments": ["2"], "error": "500"}, "search:2"]
    assert one(["lookup:1", "search:2"], in_turn).metrics["path_score"] == 100.0


def test_arguments_beyond_json_are_still_told_apart() -> None:
    """An integer past 64 bits cannot be written as JSON by orjson; such calls are keyed by
    a stable text instead, in the same table as the JSON-keyed calls of the batch."""
    big = 2**70
    same = one(
        ["lookup:A17", {"tool": "refund", "arguments": {"n": big}}],
        ["lookup:A17", {"tool": "refund", "arguments": {"n": big}}],
    )
    assert same.metrics["argument_accuracy"] == 1.0
    assert same.metrics["path_score"] == 100.0
    other = one(
        ["lookup:A17", {"tool": "refund", "arguments": {"n": big}}],
        ["lookup:A17", {"tool": "refund", "arguments": {"n": big + 1}}],
    )
    assert other.metrics["argument_accuracy"] == 0.5
    assert other.metrics["tool_accuracy"] == 1.0
    repeated = one(
        [{"tool": "refund", "arguments": {"n": big}}],
        [{"tool": "refund", "arguments": {"n": big}}, {"tool": "refund", "arguments": {"n": big}}],
    )
    assert repeated.metrics["redundant_steps"] == 1.0
