"""The batch computation of the reference-free counts (pathgrade.metrics.system.health_batch,
what ``pathgrade.score`` emits) equals the plain definition (pathgrade.metrics.system.health)
run by run: with and without references, pooled step objects, retrieval steps, float and
reordered arguments, and a ``normalized`` matcher (whose identity is not JSON equality)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, Step, score
from pathgrade.metrics.system.health import HEALTH_METRICS, health_findings, health_metrics

_ARGUMENTS = st.sampled_from(
    [{}, {"id": 1}, {"id": 1.0}, {"id": 2}, {"id": "1"}, {"id": "A"}, {"id": "a "},
     {"id": 1, "q": "x"}, {"q": "x", "id": 1}, {"id": True}, {"id": 1.5}]
)  # fmt: skip


@st.composite
def _step(draw: st.DrawFn) -> dict[str, Any]:
    step: dict[str, Any] = {
        "tool": draw(st.sampled_from(["a", "b", "c", "search"])),
        "arguments": draw(_ARGUMENTS),
        "error": draw(st.sampled_from([None, None, None, "", "timeout"])),
    }
    if draw(st.booleans()):
        step["turn"] = draw(st.integers(0, 2))
    if step["tool"] == "search" and draw(st.booleans()):
        step["metadata"] = {"retrieval": True}
        step["output"] = draw(st.sampled_from([None, [], "", {}, ["d1"], "text"]))
    return step


@st.composite
def _scoring(draw: st.DrawFn) -> tuple[list[Case], list[Run], ScoringConfig]:
    cases = [Case(case_id="free"), Case(case_id="ref", reference=("a", "b:2"))]
    pool = [Step.model_validate(draw(_step())) for _ in range(draw(st.integers(1, 8)))]
    runs = []
    for _ in range(draw(st.integers(1, 8))):
        # shared step objects, as a step pool loads them, and fresh ones
        steps = draw(st.lists(st.one_of(st.sampled_from(pool), _step()), max_size=12))
        runs.append(Run(case_id=draw(st.sampled_from(["free", "ref"])), steps=tuple(steps)))
    matching: dict[str, Any] = draw(
        st.sampled_from([{}, {"tools": {"a": {"mode": "normalized"}}}, {"mode": "normalized"}])
    )
    return cases, runs, ScoringConfig.model_validate({"matching": matching})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_scoring())
def test_batch_equals_definition(scoring: tuple[list[Case], list[Run], ScoringConfig]) -> None:
    cases, runs, config = scoring
    result = score(cases, runs, config)
    assert result.findings is not None
    for r, run in enumerate(runs):
        want = health_metrics(run.steps)
        got = {name: float(result.metrics[name][r]) for name in HEALTH_METRICS}
        assert got == want, (r, run.model_dump(exclude_defaults=True))
        assert result.findings(r) == health_findings(run.steps)


def test_batch_equals_definition_on_long_looping_runs() -> None:
    # many runs, long cycles and repeats: the loop scan's prefilter must miss nothing
    calls = ["a:1", "b", "a:1", "b", "c", "a:1", "b", "c", "a:1", "b", "c", "c", "c", "d"]
    runs = [Run(case_id="free", steps=tuple(calls[i:] + calls[:i])) for i in range(len(calls))]
    result = score([Case(case_id="free")], runs)
    for r, run in enumerate(runs):
        for name in HEALTH_METRICS:
            assert result.metrics[name][r] == health_metrics(run.steps)[name], (r, name)
