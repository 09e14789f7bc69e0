"""The executable definition on hand-computed examples, each with its arithmetic; every
example also holds for the batched engine (``pathgrade.score``). And the property that
``path_score`` is 100 minus the penalties of the defects listed, for any penalty table."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.config import Penalties
from pathgrade.core.results import RunResult
from pathgrade.metrics.trajectory.definition import score_run, score_runs
from pathgrade.metrics.trajectory.definition.order import (
    greedy_placement,
    partial_placement,
    search_placement,
)
from pathgrade.plugins import (
    argument_matchers,
    register_argument_matcher,
    unregister_argument_matcher,
)

from .helpers import trajectory_part
from .trajectory_strategies import PLUGIN, scorings, starts_with


def _both(case: Case, run: Run, config: ScoringConfig | None = None) -> RunResult:
    """The definition's result, after checking that the engine gives the same."""
    expected = score_run(case, run, config)
    got = score([case], [run], config)[0]
    assert trajectory_part(got) == expected
    return expected


def one(
    reference: list[Any] | None,
    steps: list[Any],
    config: ScoringConfig | None = None,
    **case_fields: Any,
) -> RunResult:
    case = Case.model_validate({"case_id": "c", "reference": reference, **case_fields})
    return _both(case, Run.model_validate({"case_id": "c", "steps": steps}), config)


def _details(result: RunResult) -> list[tuple[str, float, str]]:
    return [(d.kind, d.penalty, d.detail) for d in result.defects]


# The lesson: reference lookup_order, refund, send_message (A17); budget 4 steps; penalties
# 25 a missing step, 10 a wasted call, 20 over budget, 15 out of order.
LESSON = ["lookup_order:A17", "refund:A17", "send_message:A17"]


def test_lesson_run_a_follows_the_reference() -> None:
    # No defect: 100.
    result = one(LESSON, LESSON, budget={"steps": 4})
    assert result.metrics["path_score"] == 100.0 and result.defects == ()


def test_lesson_run_b_repeats_a_call_and_is_over_budget() -> None:
    steps = [LESSON[0], LESSON[0], "search_help:refund", LESSON[1], LESSON[2]]
    result = one(LESSON, steps, budget={"steps": 4})
    # The second lookup repeats the first (10); 5 steps > 4 (20); search_help is a plain
    # extra step (no penalty): 100 - 10 - 20 = 70.
    assert _details(result) == [
        ("wasted_step", 10.0, "lookup_order:A17 repeats an earlier call"),
        ("over_budget", 20.0, "steps 5 > budget 4"),
    ]
    assert result.defects[1].extra == {"budgets": ["steps"]}
    assert result.metrics["path_score"] == 70.0
    # path_efficiency = 3 / 5; the alignment pairs 3 of N = 5: tool_accuracy = 3 / 5.
    assert result.metrics["path_efficiency"] == 3 / 5
    assert result.metrics["tool_accuracy"] == 3 / 5


def test_lesson_run_c_refunds_before_the_lookup() -> None:
    result = one(LESSON, [LESSON[1], LESSON[0], LESSON[2]], budget={"steps": 4})
    # refund (reference step 1) ran before lookup_order (step 0), which it depends on:
    # 100 - 15 = 85.
    assert _details(result) == [
        ("out_of_order", 15.0, "refund:A17 ran before lookup_order:A17, which it depends on")
    ]
    assert (result.defects[0].agent_step, result.defects[0].reference_step) == (0, 1)
    assert result.metrics["path_score"] == 85.0


def test_lesson_run_d_misses_the_refund() -> None:
    result = one(LESSON, [LESSON[0], LESSON[2]], budget={"steps": 4})
    # refund never happened (25), and send_message ran although refund, which it depends
    # on, never did (15): 100 - 25 - 15 = 60.
    assert _details(result) == [
        ("missing_step", 25.0, "reference step refund:A17 never happened"),
        (
            "out_of_order",
            15.0,
            "send_message:A17 ran but refund:A17, which it depends on, never did",
        ),
    ]
    assert result.metrics["path_score"] == 60.0


def test_issue_wasted_example() -> None:
    steps = ["search:x", "refund:A", "lookup:A", "lookup:B", "lookup:A", "lookup:A"]
    result = one(["search:x"], steps)
    # lookup:A three times, none matched: the first repeats nothing (a plain extra), the
    # other two repeat it (agent steps 4 and 5): 100 - 2 * 10 = 80.
    assert [(d.agent_step, d.detail) for d in result.defects] == [
        (4, "lookup:A repeats an earlier call"),
        (5, "lookup:A repeats an earlier call"),
    ]
    m = result.metrics
    assert (m["path_score"], m["redundant_steps"], m["missing_steps"]) == (80.0, 2, 0)
    # N = 6; the alignment is 1 match and 5 insertions: accuracies 1/6, distance 5 ->
    # step_order_accuracy 1 - 5/6; path_efficiency 1/6; precision 1/6, recall 1/1,
    # f1 = 2 * 1 / (1 + 6) = 2/7.
    assert m["tool_accuracy"] == m["argument_accuracy"] == m["path_efficiency"] == 1 / 6
    assert m["step_order_accuracy"] == 1 - 5 / 6
    assert (m["tool_precision"], m["tool_recall"], m["tool_f1"]) == (1 / 6, 1.0, 2 / 7)


def test_premature_copy_redone_in_turn_is_wasted_and_out_of_order() -> None:
    result = one(["lookup:1", "search:2"], ["search:2", "lookup:1", "search:2"])
    # The total-order embedding pairs steps 1 and 2, so the first search is the extra one:
    # a premature copy of the matched later search (10), made before lookup ran (15):
    # 100 - 10 - 15 = 75.
    assert _details(result) == [
        ("wasted_step", 10.0, "search:2 is repeated later, where the reference counts it"),
        ("out_of_order", 15.0, "search:2 ran before its turn and was made again later"),
    ]
    assert result.metrics["path_score"] == 75.0


def test_a_failed_premature_copy_is_a_retry_but_still_out_of_order() -> None:
    failed = {"tool": "search", "arguments": ["2"], "error": "500"}
    result = one(["lookup:1", "search:2"], [failed, "lookup:1", "search:2"])
    # Not wasted (it failed), still premature: 100 - 15 = 85. The failure was followed by
    # lookup (neither a retry nor a fallback): an unrecovered error, free by default.
    assert [d.kind for d in result.defects] == ["out_of_order", "unrecovered_error"]
    assert result.metrics["path_score"] == 85.0 and result.metrics["recovery_rate"] == 0.0


PARTIAL = [
    {"tool": "lookup", "id": "l"},
    {"tool": "search", "id": "s"},
    {"tool": "refund", "after": ["l", "s"]},
]


def test_partial_order_scores_order_only_where_it_matters() -> None:
    # search before lookup is fine: refund comes after both. The alignment is against the
    # closest linear extension [search, lookup, refund]: three matches, distance 0.
    result = one(PARTIAL, ["search", "lookup", "refund"], order="partial")
    assert result.metrics["path_score"] == 100.0 and result.metrics["step_order_accuracy"] == 1.0
    assert [(a.op, a.agent_step, a.reference_step) for a in result.alignment] == [
        ("match", 0, 1),
        ("match", 1, 0),
        ("match", 2, 2),
    ]


def test_partial_order_broken() -> None:
    result = one(PARTIAL, ["refund", "lookup", "search"], order="partial")
    # refund ran before lookup, which it depends on: 100 - 15 = 85. No extension puts
    # refund first, so the alignment against [lookup, search, refund] is an insertion, two
    # matches and a deletion: distance 2, step_order_accuracy = 1 - 2/3.
    assert _details(result) == [
        ("out_of_order", 15.0, "refund ran before lookup, which it depends on")
    ]
    assert result.metrics["path_score"] == 85.0
    assert result.metrics["step_order_accuracy"] == 1 - 2 / 3


def test_parallel_turn_is_unordered() -> None:
    steps = [
        {"tool": "search", "arguments": ["2"], "turn": 1},
        {"tool": "lookup", "arguments": ["1"], "turn": 1},
        {"tool": "refund", "arguments": ["1"], "turn": 2},
    ]
    result = one(["lookup:1", "search:2", "refund:1"], steps)
    # search and lookup were issued together: neither came first, so nothing is out of
    # order (100), and the alignment pairs them in the reference's order, at their recorded
    # positions.
    assert result.metrics["path_score"] == 100.0 and result.metrics["step_order_accuracy"] == 1.0
    assert [(a.op, a.agent_step, a.reference_step) for a in result.alignment] == [
        ("match", 1, 0),
        ("match", 0, 1),
        ("match", 2, 2),
    ]
    # Made one after the other, search first is out of order: 100 - 15 = 85.
    sequential = [{k: v for k, v in s.items() if k != "turn"} for s in steps]
    assert one(["lookup:1", "search:2", "refund:1"], sequential).metrics["path_score"] == 85.0


def test_parallel_turn_follows_a_partial_order() -> None:
    # b depends on a although it comes first in the reference; a and b issued together are
    # in order (as a then b is), never worse than either sequence.
    reference = [{"tool": "b", "id": "b", "after": ["a"]}, {"tool": "a", "id": "a"}]
    together = [{"tool": "a", "turn": 1}, {"tool": "b", "turn": 1}]
    assert one(reference, together, order="partial").metrics["path_score"] == 100.0


def test_several_references_best_path_score_wins() -> None:
    case = Case.model_validate(
        {"case_id": "c", "reference": ["a", "b", "c"], "references": [["b", "a"]]}
    )
    result = _both(case, Run.model_validate({"case_id": "c", "steps": ["b", "a"]}))
    # Against 0: c missing (25), and out of order (15): 60; against 1: 100. Index 1 wins.
    assert result.reference_index == 1 and result.metrics["path_score"] == 100.0


def test_several_references_tie_broken_by_composite_then_index() -> None:
    case = Case.model_validate(
        {"case_id": "c", "reference": ["a", "x"], "references": [["a", "b", "c"], ["a", "b", "c"]]}
    )
    result = _both(case, Run.model_validate({"case_id": "c", "steps": ["a", "b"]}))
    # Against 0: x missing (25): 75; the alignment is a match and a substitution of
    # different tools (N = 2): accuracies 1/2, step_order_accuracy 1 - 1/2, efficiency 1:
    # composite 0.3 * 0.5 + 0.3 * 0.5 + 0.2 * 0.5 + 0.2 * 1 = 0.6.
    # Against 1 and 2: c missing at the end (25, not out of order): 75; two matches and a
    # deletion (N = 3): accuracies 2/3, step_order_accuracy 1 - 1/3, efficiency 1:
    # composite 0.8 * 2/3 + 0.2 = 0.7333. 1 and 2 tie; the lower index wins.
    assert result.reference_index == 1 and result.metrics["path_score"] == 75.0
    assert result.metrics["composite"] == pytest.approx(0.8 * 2 / 3 + 0.2)


def test_writes_forbidden_actions_required_tools_and_budgets() -> None:
    case = Case.model_validate(
        {
            "case_id": "c",
            "reference": ["lookup:1", "refund:1"],
            "tool_kinds": {"refund": "write", "delete": "write"},
            "forbidden_tools": ["delete"],
            "forbidden_actions": ["refund:2"],
            "required_tools": ["notify", "refund"],
            "budget": {"tokens": 5},
        }
    )
    steps = [
        {"tool": "lookup", "arguments": ["1"], "tokens": 4},
        {"tool": "refund", "arguments": ["2"], "tokens": 3},
        "refund:1",
    ]
    result = _both(case, Run.model_validate({"case_id": "c", "steps": steps}))
    # refund:2 is an extra write (25) and a forbidden action (100); notify was required
    # and never called (25; refund was called); tokens 4 + 3 = 7 > 5 (20):
    # 100 - 25 - 25 - 20 - 100 < 0, floored at 0.
    assert _details(result) == [
        ("unexpected_write", 25.0, "refund:2 is a write no reference step asked for"),
        ("missing_required_tool", 25.0, "required tool 'notify' was never called"),
        ("over_budget", 20.0, "tokens 7 > budget 5"),
        ("forbidden_action", 100.0, "matches forbidden action refund:2"),
    ]
    assert result.metrics["path_score"] == 0.0
    assert result.metrics["required_tool_coverage"] == 1 / 2
    assert result.metrics["forbidden_action_count"] == 1


def test_recovery_rate_counts_retries_fallbacks_and_stops() -> None:
    config = ScoringConfig(fallbacks={"search": ("lookup",)})
    steps = [
        {"tool": "lookup", "error": "x"},  # retried: recovered
        "lookup",
        {"tool": "search", "error": "x"},  # fallback: recovered
        "lookup",
        {"tool": "refund", "error": "x"},  # followed by send: not recovered
        "send",
        {"tool": "send", "error": "x"},  # last step, a clean stop: recovered
    ]
    result = one(["lookup"], steps, config)
    # 3 of 4 failed steps recovered.
    assert result.metrics["recovery_rate"] == 3 / 4
    assert [d.detail for d in result.defects if d.kind == "unrecovered_error"] == [
        "refund failed and the agent went on with send (no retry, fallback or stop)"
    ]


def test_empty_paths() -> None:
    both = one([], [])
    assert both.metrics["path_score"] == 100.0 and both.metrics["tool_precision"] == 1.0
    agent_only = one([], ["a"])
    # N = 1, nothing aligned: accuracies 0; efficiency 0 (only the reference is empty);
    # recall undefined (no reference step).
    assert (
        agent_only.metrics["tool_accuracy"] == 0.0 and agent_only.metrics["path_efficiency"] == 0.0
    )
    assert agent_only.metrics["tool_recall"] is None
    no_reference = _both(Case(case_id="c"), Run(case_id="c"))
    assert no_reference.reference_index is None and no_reference.metrics["path_score"] is None


def test_a_call_is_shown_as_its_first_occurrence() -> None:
    case = Case.model_validate({"case_id": "c", "reference": []})
    runs = [
        Run.model_validate(
            {"case_id": "c", "steps": [{"tool": "t", "arguments": {"a": 1, "b": 2}}]}
        ),
        Run.model_validate(
            {"case_id": "c", "steps": [{"tool": "t", "arguments": {"b": 2, "a": 1}}]}
        ),
    ]
    together = score_runs([case], runs)
    assert [r.alignment[0].agent for r in together] == ["t(a=1, b=2)", "t(a=1, b=2)"]
    assert score_run(case, runs[1]).alignment[0].agent == "t(b=2, a=1)"


def test_an_unrecovered_error_shows_its_calls_as_their_first_occurrence() -> None:
    # Run 2 fails the call run 1 failed (keys written in another order) and goes on with
    # another tool: its unrecovered_error shows both calls as run 1 wrote them, as every
    # other defect would; scored alone, as run 2 wrote them. Engine and definition alike.
    case = Case.model_validate({"case_id": "c", "reference": []})
    failed = [{"a": 1, "b": 2}, {"b": 2, "a": 1}]
    runs = [
        Run.model_validate(
            {
                "case_id": "c",
                "steps": [
                    {"tool": "t", "arguments": arguments, "error": "x"},
                    {"tool": "u", "arguments": {"k": [1, 2], "j": 0}},
                ],
            }
        )
        for arguments in failed
    ]
    detail = "{} failed and the agent went on with {} (no retry, fallback or stop)"
    first = detail.format("t(a=1, b=2)", "u(k=[1, 2], j=0)")
    for results in (score_runs([case], runs), list(score([case], runs))):
        details = [[d.detail for d in r.defects if d.kind == "unrecovered_error"] for r in results]
        assert details == [[first], [first]]
    alone = score_run(case, runs[1]).defects
    assert [d.detail for d in alone] == [detail.format("t(b=2, a=1)", "u(k=[1, 2], j=0)")]


def test_partial_order_placement_finds_an_order_that_exists() -> None:
    # X (id a), X (id b), Y after b. The agent did X, Y, X: the first X can be b and the
    # second a, so nothing ran before a step it depends on. The greedy placement gives the
    # first X to a (taken first) and finds no X before Y for b; the two reference X steps
    # compete for both agent X steps, so the exact search decides: a=2, b=0, Y=1 (after b).
    reference = [
        {"tool": "x", "id": "a"},
        {"tool": "x", "id": "b"},
        {"tool": "y", "after": ["b"]},
    ]
    table = [[True, False, True], [True, False, True], [False, True, False]]
    depends = [[], [], [1]]
    assert greedy_placement(table, depends, [0, 1, 2], 3) == (False, [0, 2, -1])
    assert partial_placement(table, depends, [0, 1, 2], 3) == (True, [2, 0, 1])
    result = one(reference, ["x", "y", "x"], order="partial")
    assert result.metrics["out_of_order"] is False
    assert result.metrics["path_score"] == 100.0 and result.defects == ()


def _many_x(n: int) -> tuple[list[Any], list[Any]]:
    """Reference: n X steps (ids x0..), Y after the last. Run: X, Y, then n - 1 more X."""
    reference: list[Any] = [{"tool": "x", "id": f"x{k}"} for k in range(n)]
    reference.append({"tool": "y", "after": [f"x{n - 1}"]})
    return reference, ["x", "y"] + ["x"] * (n - 1)


def test_exact_partial_order_search_within_its_bound() -> None:
    # Only the first agent X can come before Y, so it must be the last reference X. The
    # search decides the X steps in order x0, x1, ...: with x0 on the first agent X every
    # assignment of the others fails at Y; with 5 X steps that is about 4! = 24 paths,
    # well within 10,000 nodes, and the search finds x4 = agent step 0: in order, 100.
    reference, steps = _many_x(5)
    result = one(reference, steps, order="partial")
    assert result.metrics["out_of_order"] is False and result.metrics["path_score"] == 100.0


def test_exact_partial_order_search_gives_up_past_its_bound() -> None:
    # With 9 X steps the failing subtree of x0 on agent step 0 alone holds 8! = 40,320
    # assignments of the other X steps: past 10,000 nodes the search gives up, and the
    # answer is the greedy placement's: out of order (100 - 15 = 85), in engine and
    # definition alike (the documented bound).
    reference, steps = _many_x(9)
    result = one(reference, steps, order="partial")
    assert result.metrics["out_of_order"] is True and result.metrics["path_score"] == 85.0
    n_ref, n_agent = len(reference), len(steps)
    table = [[reference[i]["tool"] == steps[j] for j in range(n_agent)] for i in range(n_ref)]
    depends = [[] for _ in range(9)] + [[8]]
    extension = list(range(n_ref))
    assert search_placement(table, depends, extension, n_ref) is None
    found = search_placement(table, depends, extension, n_ref, limit=10**6)
    assert found is not None and found[8] == 0 and found[9] == 1


@pytest.fixture(scope="module")
def _plugin() -> Any:
    register_argument_matcher(PLUGIN, starts_with)
    yield
    unregister_argument_matcher(PLUGIN)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(scorings())
def test_path_score_is_100_minus_the_penalties_listed(
    _plugin: Any, scoring: tuple[list[Case], list[Run], ScoringConfig]
) -> None:
    # Random penalty tables (integers and halves, exact in binary); engine and definition.
    cases, runs, config = scoring
    penalties: Penalties = config.penalties
    engine = list(score(cases, runs, config))
    for result in [*engine, *score_runs(cases, runs, config, argument_matchers())]:
        for defect in result.defects:
            assert defect.penalty == penalties.of(defect.kind)
        if result.reference_index is None:
            assert result.metrics["path_score"] is None
        else:
            expected = max(0.0, 100.0 - sum(d.penalty for d in result.defects))
            assert result.metrics["path_score"] == expected
