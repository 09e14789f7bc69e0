"""Properties every trajectory score must have, on random paths (hypothesis)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, Step, score
from pathgrade.core.config import MatchingConfig
from pathgrade.metrics.trajectory.outputs import TRAJECTORY_METRICS

TOOLS = ["lookup", "refund", "search", "notify"]
steps_st = st.builds(
    lambda tool, arg, failed: Step(
        tool=tool, arguments={"id": arg}, error="boom" if failed else None
    ),
    st.sampled_from(TOOLS),
    st.sampled_from(["A", "B", "c"]),
    st.integers(0, 9).map(lambda n: n == 0),  # one step in ten fails
)
path_st = st.lists(steps_st, max_size=7)
modes = st.sampled_from(["exact", "normalized", "fuzzy", "subset", "ignore"])
orders = st.sampled_from(["total", "none"])
RATES = [name for name, kind in TRAJECTORY_METRICS.items() if kind == "rate"]
FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _score(
    reference: list[Step],
    agent: list[Step],
    order: str = "total",
    mode: str = "exact",
    kinds: dict[str, str] | None = None,
) -> dict[str, object]:
    case = Case(case_id="c", reference=tuple(reference), order=order)  # type: ignore[arg-type]
    config = ScoringConfig(matching=MatchingConfig(mode=mode), tool_kinds=kinds or {})
    return dict(score([case], [Run(case_id="c", steps=tuple(agent))], config)[0].metrics)


@FAST
@given(path_st, path_st, orders, modes)
def test_all_rates_in_unit_interval_and_score_in_range(
    reference: list[Step], agent: list[Step], order: str, mode: str
) -> None:
    metrics = _score(reference, agent, order, mode)
    for name in RATES:
        value = metrics[name]
        assert value is None or 0.0 <= value <= 1.0, (name, value)
    assert 0.0 <= metrics["path_score"] <= 100.0  # type: ignore[operator]


@FAST
@given(path_st, orders, modes)
def test_identical_paths_score_perfectly(path: list[Step], order: str, mode: str) -> None:
    metrics = _score(path, path, order, mode)
    assert metrics["path_score"] == 100.0
    for name in (
        "tool_accuracy",
        "argument_accuracy",
        "step_order_accuracy",
        "path_efficiency",
        "composite",
    ):
        assert metrics[name] == 1.0
    assert metrics["missing_steps"] == 0 and metrics["out_of_order"] is False


@FAST
@given(path_st, path_st.filter(bool), st.data(), orders)
def test_appending_a_repeated_step_never_raises_the_path_score(
    reference: list[Step], agent: list[Step], data: st.DataObject, order: str
) -> None:
    """A repeated step: a call the agent already made successfully, at least as often as the
    reference needs it (a second call the reference asks for is a needed step, and a call
    after a failed one is a retry)."""
    repeated = data.draw(st.sampled_from(agent))

    def same(step: Step) -> bool:
        return step.tool == repeated.tool and step.arguments == repeated.arguments

    assume(sum(map(same, agent)) >= sum(map(same, reference)))
    assume(any(same(s) and not s.error for s in agent))
    kinds = {"refund": "write"}
    before = _score(reference, agent, order, kinds=kinds)["path_score"]
    after = _score(reference, [*agent, repeated], order, kinds=kinds)["path_score"]
    assert after <= before  # type: ignore[operator]


@FAST
@given(path_st, path_st, st.randoms(use_true_random=False), modes)
def test_permuting_an_unordered_reference_changes_nothing(
    reference: list[Step], agent: list[Step], rng: object, mode: str
) -> None:
    shuffled = list(reference)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    first = _score(reference, agent, "none", mode)
    second = _score(shuffled, agent, "none", mode)
    for name, value in first.items():
        other = second[name]
        if isinstance(value, float) and isinstance(other, float):
            assert math.isclose(value, other), name
        else:
            assert value == other, name


@FAST
@given(path_st, path_st, orders)
def test_permuting_the_agent_changes_nothing_when_order_is_none(
    reference: list[Step], agent: list[Step], order: str
) -> None:
    first = _score(reference, agent, "none")
    second = _score(reference, list(reversed(agent)), "none")
    for name in ("tool_accuracy", "argument_accuracy", "missing_steps", "tool_f1"):
        assert first[name] == second[name]


@settings(max_examples=40, deadline=None)
def _defined(metrics: Mapping[str, object]) -> dict[str, object]:
    return {name: value for name, value in metrics.items() if value is not None}


@given(st.lists(st.tuples(path_st, path_st, orders), min_size=1, max_size=12), modes)
def test_scores_do_not_depend_on_what_else_is_in_the_batch(
    pairs: list[tuple[list[Step], list[Step], str]], mode: str
) -> None:
    cases = [
        Case(case_id=str(i), reference=tuple(r), order=o)  # type: ignore[arg-type]
        for i, (r, _, o) in enumerate(pairs)
    ]
    runs = [Run(case_id=str(i), steps=tuple(a)) for i, (_, a, _) in enumerate(pairs)]
    config = ScoringConfig(matching=MatchingConfig(mode=mode))
    together = score(cases, runs, config)
    for i in range(len(pairs)):
        alone = score([cases[i]], [runs[i]], config)[0]
        # A layer's column exists when some run of the batch has it, so a metric may be
        # present and undefined (None) in the batch and absent alone: both say "undefined".
        assert _defined(together[i].metrics) == _defined(alone.metrics)
        assert together[i].alignment == alone.alignment
        assert together[i].defects == alone.defects


@FAST
@given(path_st, path_st)
def test_alignment_accounts_for_every_step_once(reference: list[Step], agent: list[Step]) -> None:
    case = Case(case_id="c", reference=tuple(reference))
    result = score([case], [Run(case_id="c", steps=tuple(agent))])[0]
    agent_steps = [a.agent_step for a in result.alignment if a.agent_step is not None]
    ref_steps = [a.reference_step for a in result.alignment if a.reference_step is not None]
    assert agent_steps == list(range(len(agent)))
    assert ref_steps == list(range(len(reference)))
    edits = sum(
        a.op != "match" and not (a.op == "substitution" and a.tool_match) for a in result.alignment
    )
    longest = max(len(reference), len(agent))
    expected = 1.0 - edits / longest if longest else 1.0
    assert math.isclose(result.metrics["step_order_accuracy"], expected)  # type: ignore[arg-type]
