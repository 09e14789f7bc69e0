"""The batch computation of the reference-free counts (pathgrade.metrics.system.health_batch,
what ``pathgrade.score`` emits) equals the plain definition (pathgrade.metrics.system.health)
run by run: with and without references, pooled step objects, retrieval steps, float and
reordered arguments, and a ``normalized`` matcher (whose identity is not JSON equality)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, Step, score
from pathgrade.metrics.system.health import HEALTH_METRICS, health_findings, health_metrics
from pathgrade.metrics.system.health_batch import _runs_repeating_a_pair

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


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=30
    )
)
def test_one_key_sort_finds_the_runs_the_lexsort_finds(pairs: list[tuple[int, int, int]]) -> None:
    runs, left, right = (np.array(column, dtype=np.int64) for column in zip(*pairs, strict=True))
    fast = _runs_repeating_a_pair(runs, left, right, n_runs=4)
    slow = _runs_repeating_a_pair(runs, left, right, n_runs=1 << 62)  # too wide: the lexsort
    want = sorted({r for r, a, b in pairs if pairs.count((r, a, b)) > 1})
    assert fast.tolist() == slow.tolist() == want
