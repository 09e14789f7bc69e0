"""One agent's sub-path (``pathgrade.core.agent_scope``): views, references, scores, provenance."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.agent_scope import (
    agent_case,
    agent_run,
    agent_steps,
    agent_summary,
    agent_view,
    agent_warning,
)
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import (
    AGENT_VARIABLE,
    Provenance,
    measurement_differences,
    short_hash,
)
from pathgrade.core.record_provenance import cases_hash, sha256_of, with_agent
from pathgrade.core.types import Case, Run, Step
from pathgrade.evaluate import score
from pathgrade.io.cases import parse_record


def _step(tool: str, agent: str | None, **fields: Any) -> dict[str, Any]:
    return {"tool": tool, "metadata": {} if agent is None else {"agent": agent}, **fields}


#: The issue's example: a planner that delegates retrieval to a researcher.
RUN = Run.model_validate(
    {
        "case_id": "c",
        "steps": [
            _step("plan", "planner"),
            _step("search", "researcher"),
            _step("fetch", "researcher"),
            _step("answer", "planner"),
        ],
        "answer": "42",
        "success": True,
    }
)
CASE = Case.model_validate(
    {
        "case_id": "c",
        "reference": ["plan", "search", "fetch", "answer"],
        "references_by_agent": {"researcher": ["search", "fetch"]},
        "gold_answer": "42",
    }
)


def _metrics(case: Case, run: Run, agent: str | None = None) -> dict[str, float]:
    result = score([case], [run], agent=agent)
    return {name: float(values[0]) for name, values in result.metrics.items()}


def test_the_researchers_sub_path_against_its_own_reference() -> None:
    scoped = _metrics(CASE, RUN, "researcher")
    # [search, fetch] against [search, fetch]: every aligned pair matches, nothing missing.
    assert scoped["tool_accuracy"] == 1.0 and scoped["path_score"] == 100.0
    assert scoped["path_efficiency"] == 1.0 and scoped["missing_steps"] == 0.0
    whole = _metrics(CASE, RUN)  # the whole run against the whole reference: also perfect
    assert whole["path_score"] == 100.0 and whole["goal_success"] == 1.0
    # What the sub-path would get against the whole run's reference (never used by --agent):
    # [search, fetch] vs [plan, search, fetch, answer]: N = 4, 2 pairs match -> 2/4;
    # plan and answer missing (2 * 25) and, in total order, search ran before plan (15):
    # 100 - 50 - 15 = 35.
    against_whole = _metrics(CASE, agent_run(RUN, "researcher"))
    assert against_whole["tool_accuracy"] == 0.5 and against_whole["path_score"] == 35.0


def test_an_agent_without_a_reference_is_scored_with_none() -> None:
    metrics = _metrics(CASE, RUN, "planner")
    for name in ("tool_accuracy", "path_score", "missing_steps", "composite"):
        assert math.isnan(metrics[name]), name  # undefined: null, never the whole run's
    assert metrics["forbidden_action_count"] == 0.0  # needs no reference
    summary = score([CASE], [RUN], agent="planner").summary()["agent"]
    assert summary["cases"] == 1 and summary["cases_without_reference"] == 1
    assert summary["reference_agents"] == ["researcher"]
    assert agent_warning(summary) == (
        "warning: 1 of 1 cases have no reference for agent 'planner' (references_by_agent"
        " names researcher): scored with no reference (trajectory metrics undefined)"
    )
    assert agent_warning(agent_summary([CASE], "researcher")) is None


def test_the_whole_runs_layers_are_off_for_an_agent() -> None:
    scoped = _metrics(CASE, RUN, "researcher")
    # success True and a correct answer: the whole system's, not the researcher's.
    assert math.isnan(scoped["goal_success"])
    assert "exact_match" not in scoped and "exact_match" in _metrics(CASE, RUN)
    view_case, view_run = agent_view(CASE, RUN, "researcher")
    assert view_run.answer is None and view_run.success is None and view_run.usage is None
    assert view_case.gold_answer is None and view_case.reference_paths() == (
        (Step(tool="search"), Step(tool="fetch")),
    )


def _with(model: Any, **fields: Any) -> Any:
    return type(model).model_validate({**model.model_dump(), **fields})


def test_limits_and_prohibitions_apply_to_the_sub_path_requirements_do_not() -> None:
    # A reference may not call a forbidden tool (score refuses it): the researcher's own
    # extra ``delete`` is the forbidden call.
    case = _with(CASE, required_tools=["answer"], forbidden_tools=["delete"])
    deleting = _with(RUN, steps=[*RUN.model_dump()["steps"], _step("delete", "researcher")])
    metrics = _metrics(case, deleting, "researcher")
    assert metrics["forbidden_action_count"] == 1.0  # its own delete is forbidden
    assert math.isnan(metrics["required_tool_coverage"])  # "answer" is the planner's job
    assert _metrics(case, RUN)["required_tool_coverage"] == 1.0
    # The run's usage total (1000 tokens) is the whole run's: with it dropped and no step
    # recording tokens, the sub-path's tokens are unknown (never over budget).
    run = _with(RUN, usage={"tokens": 1000})
    tokens = _with(CASE, budget={"tokens": 100})
    assert _metrics(tokens, run)["over_budget"] == 1.0
    assert _metrics(tokens, run, "researcher")["over_budget"] == 0.0
    # The step budget counts the sub-path's steps: researcher 2 <= 2; 2 > 1 against a
    # researcher reference of one call (a reference over its own budget is refused).
    assert _metrics(_with(CASE, budget={"steps": 2}), RUN, "researcher")["over_budget"] == 0.0
    one = _with(CASE, budget={"steps": 1}, references_by_agent={"researcher": ["search"]})
    assert _metrics(one, RUN, "researcher")["over_budget"] == 1.0
    assert agent_case(tokens, "researcher").budget == tokens.budget


def test_views_leave_their_inputs_alone_and_views_of_views_are_the_same() -> None:
    before_case, before_run = CASE.model_dump(), RUN.model_dump()
    view_case, view_run = agent_view(CASE, RUN, "researcher")
    assert CASE.model_dump() == before_case and RUN.model_dump() == before_run
    assert agent_view(view_case, view_run, "researcher") == (view_case, view_run)


def test_several_reference_paths_for_an_agent_best_one_wins() -> None:
    case = Case.model_validate(
        {"case_id": "c", "references_by_agent": {"researcher": [["lookup"], ["search", "fetch"]]}}
    )
    result = score([case], [RUN], agent="researcher")
    assert result.reference_index.tolist() == [1] and result.metrics["path_score"][0] == 100


def test_agent_references_read_as_a_path_or_a_list_of_paths() -> None:
    case = Case.model_validate(
        {"case_id": "c", "references_by_agent": {"a": ["x", "y"], "b": [["x"], []], "c": []}}
    )
    by_agent = case.references_by_agent or {}
    assert by_agent["a"] == ((Step(tool="x"), Step(tool="y")),)
    assert by_agent["b"] == ((Step(tool="x"),), ())
    assert by_agent["c"] == ((),)  # [] is one empty path: the agent should call nothing
    assert Case.model_validate_json(case.model_dump_json()) == case
    assert case.reference_paths() == ()  # whole-run scoring does not read it


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        ({"r": ["x", ["y"]]}, "references_by_agent.r", "mixes steps and paths"),
        ({"r": [{"tool": "x", "after": ["z"]}]}, "references_by_agent.r[0][0].after", "'z'"),
        ({"r": [["x"], [{"tool": "x", "id": "i"}, {"tool": "y", "id": "i"}]]}, None, "'i'"),
        ({"r": [{"tol": "x"}]}, "references_by_agent.r[0][0].tool", "required"),
        ({"r": 3}, "references_by_agent.r", "tuple"),
    ],
)
def test_bad_agent_references_are_one_line_errors(
    value: object, field: str | None, words: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_record({"case_id": "c", "references_by_agent": value}, Case, file="f", line=3)
    error = caught.value
    assert error.line == 3 and words in error.message
    assert error.field == (field or "references_by_agent.r[1][1].id")


def test_provenance_records_the_agent_in_the_variables_and_the_config_hash() -> None:
    base = Provenance(2, config="sha256:aaaa", cases="sha256:bbbb", variables={"seed": "1"})
    scoped = with_agent(base, "researcher")
    assert scoped.variables == {"seed": "1", AGENT_VARIABLE: "researcher"}
    assert scoped.config == short_hash(sha256_of("sha256:aaaa\nagent=researcher"))
    assert scoped.cases == base.cases and base.variables == {"seed": "1"}
    # measured differently: compare refuses unless --allow-config-change
    [phrase] = measurement_differences(base, scoped)
    assert phrase.startswith("scoring config hash: sha256:aaaa vs sha256:")
    assert phrase.endswith(" (agent: whole run vs researcher)")
    assert measurement_differences(scoped, with_agent(base, "researcher")) == []
    other = measurement_differences(scoped, with_agent(base, "planner"))
    assert other[0].endswith("(agent: researcher vs planner)")
    with pytest.raises(InputError, match="recorded by --agent"):
        with_agent(scoped, "planner")


def test_the_api_records_the_agent_scope_in_every_record() -> None:
    record = score([CASE], [RUN], agent="researcher").provenance
    assert record is not None
    common = score([CASE], [RUN]).provenance
    assert common is not None
    assert record(0) == with_agent(common(0), "researcher")
    assert record(0).cases == short_hash(cases_hash([CASE]))  # the cases as given


def test_cases_without_agent_references_keep_their_hash() -> None:
    plain = Case(case_id="a", reference=["x:1"])
    body = plain.model_dump_json(exclude={"references_by_agent"}) + "\n"
    assert cases_hash([plain]) == sha256_of(body)
    with_refs = plain.model_copy(update={"references_by_agent": {"r": ((Step(tool="x"),),)}})
    assert cases_hash([with_refs]) == sha256_of(with_refs.model_dump_json() + "\n")
    assert cases_hash([with_refs]) != cases_hash([plain])


AGENTS = st.one_of(st.none(), st.sampled_from(["planner", "researcher", "critic"]), st.just(7))


@st.composite
def runs(draw: st.DrawFn) -> Run:
    steps = [
        Step(tool=draw(st.sampled_from("abc")), metadata={} if a is None else {"agent": a})
        for a in draw(st.lists(AGENTS, max_size=12))
    ]
    return Run(case_id="c", steps=tuple(steps))


@settings(max_examples=200, deadline=None)
@given(runs(), st.sampled_from(["planner", "researcher", "critic", "nobody"]))
def test_a_sub_path_keeps_order_and_only_its_agents_steps(run: Run, agent: str) -> None:
    sub = agent_run(run, agent).steps
    positions = [i for i, s in enumerate(run.steps) if s.metadata.get("agent") == agent]
    assert list(sub) == [run.steps[i] for i in positions]  # in order, nothing else
    assert all(step.metadata["agent"] == agent for step in sub)
    assert agent_steps(sub, agent) == sub


@settings(max_examples=200, deadline=None)
@given(runs())
def test_the_sub_paths_of_all_agents_partition_the_steps_with_an_agent(run: Run) -> None:
    names = {s.metadata["agent"] for s in run.steps if isinstance(s.metadata.get("agent"), str)}
    ids = [id(step) for name in sorted(names) for step in agent_steps(run.steps, name)]
    with_agent_ids = [id(s) for s in run.steps if isinstance(s.metadata.get("agent"), str)]
    assert sorted(ids) == sorted(with_agent_ids) and len(set(ids)) == len(ids)
