"""The path grammar against its documented instance rule (issue 38): random grammars
(optional, one_of, repeat, unordered, nested up to two levels) and random runs, scored
through the grammar (the engine and the executable definition) and through
:mod:`.grammar_instances`, the instances made explicit and each scored as a plain
reference. Every field must be equal: metrics, defects, alignment, reference and branch.

CI runs 700 examples of 3 cases each (2,100 grammar cases); ``PATHGRADE_GRAMMAR_EXAMPLES``
sets another count for a deeper search (4,000 examples twice found nothing more)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.results import RunResult
from pathgrade.metrics.trajectory.definition import score_runs
from pathgrade.plugins import (
    argument_matchers,
    register_argument_matcher,
    unregister_argument_matcher,
)

from .grammar_instances import score_as_instances
from .grammar_strategies import grammar_scorings
from .helpers import trajectory_part
from .trajectory_strategies import PLUGIN, starts_with


@pytest.fixture(autouse=True, scope="module")
def _plugin() -> Iterator[None]:
    register_argument_matcher(PLUGIN, starts_with)
    yield
    unregister_argument_matcher(PLUGIN)


def _differences(got: RunResult, expected: RunResult) -> str:
    lines = []
    for name in ("reference_index", "reference_branch", "defects", "alignment"):
        if getattr(got, name) != getattr(expected, name):
            lines += [f"{name}:", f"  grammar   {getattr(got, name)}"]
            lines += [f"  instances {getattr(expected, name)}"]
    for name, value in expected.metrics.items():
        if got.metrics[name] != value:
            lines.append(f"{name}: grammar {got.metrics[name]!r}, instances {value!r}")
    return "\n".join(lines)


def assert_grammar_is_its_instances(
    cases: Sequence[Case], runs: Sequence[Run], config: ScoringConfig
) -> None:
    expected = score_as_instances(cases, runs, config)
    engine = [trajectory_part(r) for r in score(cases, runs, config)]
    definition = score_runs(cases, runs, config, argument_matchers())
    by_id = {case.case_id: case for case in cases}
    for r, run in enumerate(runs):
        for name, got in (("engine", engine[r]), ("definition", definition[r])):
            assert got == expected[r], (
                f"{name}, run {r} ({run.case_id}): {run.model_dump(exclude_defaults=True)}\n"
                f"references {by_id[run.case_id].reference_paths()}"
                f"\n{_differences(got, expected[r])}"
            )


@settings(
    max_examples=int(os.environ.get("PATHGRADE_GRAMMAR_EXAMPLES", "700")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(grammar_scorings(min_cases=3))
def test_the_grammar_scores_as_its_explicit_instances(
    scoring: tuple[list[Case], list[Run], ScoringConfig],
) -> None:
    # 700 examples of 3 cases each (2,100 random grammar cases, with their runs).
    assert_grammar_is_its_instances(*scoring)


def _call(tool: str, key: str, value: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": {key: value}}


def _instances_of(reference: list[Any], steps: list[Any]) -> RunResult:
    case = Case.model_validate({"case_id": "c", "reference": reference})
    run = Run.model_validate({"case_id": "c", "steps": steps})
    return score_as_instances([case], [run], ScoringConfig())[0]


def test_the_instances_give_the_first_worked_case() -> None:
    # Issue 38: [~search:x?, ~one_of([search:y{1..3}], [check:A?]), ~lookup:B?, refund:A]
    # against [search:y, search:x, search:y x4, lookup:B, poll:1, refund:A]: the instance of
    # branch 0 is search:x, search:y x3, lookup:B (one block), then refund:A; 100 - 2 x 10.
    loose = {"group": "unordered"}
    y = _call("search", "q", "y")
    reference = [
        {**_call("search", "q", "x"), "optional": True, **loose},
        {"one_of": [[{**y, "repeat": {"min": 1, "max": 3}}], [_call("check", "id", "A")]], **loose},
        {**_call("lookup", "id", "B"), "optional": True, **loose},
        _call("refund", "id", "A"),
    ]
    steps = [y, _call("search", "q", "x"), y, y, y, y, _call("lookup", "id", "B")]
    steps += [_call("poll", "n", 1), _call("refund", "id", "A")]
    result = _instances_of(reference, steps)
    assert result.metrics["path_score"] == 80.0
    assert [(d.kind, d.agent_step) for d in result.defects] == [
        ("wasted_step", 4),
        ("wasted_step", 5),
    ]
    assert result.reference_branch == {
        "one_of": [0],
        "optional": ["[0]", "[2]"],
        "repeat": {"[1].one_of[0][0]": 3},
    }


def test_the_instances_give_the_documented_examples() -> None:
    # docs/trajectory.md: [a, one_of([b, c], [d]), e] vs [a, b, e] is the plain [a, b, c, e]:
    # 100 - 25 (missing c) - 15 (out of order) = 60; poll{1..3} made four times: 90.
    choice = ["a", {"one_of": [["b", "c"], ["d"]]}, "e"]
    assert _instances_of(choice, ["a", "b", "e"]).metrics["path_score"] == 60.0
    assert _instances_of(choice, ["a", "d", "e"]).reference_branch == {
        "one_of": [1],
        "optional": [],
        "repeat": {},
    }
    poll = [{"tool": "poll", "repeat": {"min": 1, "max": 3}}]
    assert _instances_of(poll, ["poll"] * 4).metrics["path_score"] == 90.0
