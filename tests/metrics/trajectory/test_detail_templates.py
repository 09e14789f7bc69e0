"""Every defect detail pathgrade writes is a template of ``messages.py`` formatted with the
run's own steps: the defect objects and the records written from the columns alike, on
random runs with every kind of defect."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, Step, score
from pathgrade.core.types import format_step
from pathgrade.io.results import records_jsonl
from pathgrade.metrics.trajectory import messages
from pathgrade.metrics.trajectory.runlevel import budget_violations

from .trajectory_strategies import possible

TEXT = st.sampled_from(["A", "b", 'q"uote', "{brace}", "é"])
TOOLS = ["lookup", "refund", "search", "delete", "notify"]
step_st = st.builds(
    lambda tool, arg, failed: Step(
        tool=tool, arguments={"id": arg}, error="boom" if failed else None
    ),
    st.sampled_from(TOOLS),
    TEXT,
    st.integers(0, 5).map(lambda n: n == 0),
)
path_st = st.lists(step_st, max_size=7)


def _allowed(defect: dict[str, Any], run: Run, case: Case, reference: list[Step]) -> set[str]:
    """The details the templates allow for ``defect`` of ``run`` (scored against
    ``reference``)."""
    steps, kind = run.steps, defect["kind"]
    agent = format_step(steps[defect["agent_step"]]) if "agent_step" in defect else None
    ref_texts = [format_step(s) for s in reference]
    if kind == "missing_step":
        return {messages.MISSING_STEP.format(reference=ref_texts[defect["reference_step"]])}
    if kind == "wasted_step":
        return {
            messages.WASTED_REPEAT.format(agent=agent),
            messages.WASTED_EARLY.format(agent=agent),
        }
    if kind == "unexpected_write":
        return {messages.UNEXPECTED_WRITE.format(agent=agent)}
    if kind == "out_of_order":
        if agent is None:
            return {messages.ORDER_UNSPECIFIED}
        allowed = {messages.ORDER_PREMATURE.format(agent=agent)}
        for template in (messages.ORDER_NEVER_RAN, messages.ORDER_RAN_LATER):
            allowed |= {template.format(agent=agent, reference=r) for r in ref_texts}
        return allowed
    if kind == "forbidden_action":
        step = steps[defect["agent_step"]]
        actions = {messages.FORBIDDEN_ACTION.format(action=a) for a in case.forbidden_actions}
        return actions | {messages.FORBIDDEN_TOOL.format(tool=step.tool)}
    if kind == "unrecovered_error":
        j = defect["agent_step"]
        failed, after = format_step(steps[j]), format_step(steps[j + 1])
        return {messages.UNRECOVERED_ERROR.format(failed=failed, after=after)}
    if kind == "missing_required_tool":
        return {messages.MISSING_REQUIRED_TOOL.format(tool=t) for t in case.required_tools}
    if kind == "over_budget":
        return {messages.over_budget(budget_violations(run, case.budget))}
    raise AssertionError(f"a defect kind without a template: {kind}")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(path_st, path_st, st.integers(0, 5)), min_size=1, max_size=6),
    st.sampled_from(["total", "none", "partial"]),
)
def test_every_detail_is_its_template_formatted(
    items: list[tuple[list[Step], list[Step], int]], order: str
) -> None:
    cases, runs = [], []
    for k, (reference, agent, variant) in enumerate(items):
        if order == "partial":  # each step after the one before it, by id
            reference = [
                s.model_copy(update={"id": f"s{i}", "after": (f"s{i - 1}",) if i else ()})
                for i, s in enumerate(reference)
            ]
        cases.append(
            Case(
                case_id=f"c{k}",
                reference=tuple(reference),
                order=order,  # type: ignore[arg-type]
                required_tools=("notify", "lookup") if variant in (1, 3) else (),
                forbidden_tools=("delete",) if variant in (2, 3) else (),
                forbidden_actions=(Step(tool="refund", arguments={"id": "A"}),)
                if variant == 2
                else (),
                budget={"steps": 2} if variant == 4 else None,
                tool_kinds={"refund": "write"},
            )
        )
        runs.append(Run(case_id=f"c{k}", steps=tuple(agent)))
    cases = [possible(case) for case in cases]  # a reference score refuses is no test data
    result = score(cases, runs, ScoringConfig())
    written = [orjson.loads(line) for line in records_jsonl(result, runs).splitlines()]
    for index, (run, case) in enumerate(zip(runs, cases, strict=True)):
        reference = list(case.reference or ())
        from_objects = [d.to_dict() for d in result[index].defects]
        assert written[index]["defects"] == from_objects
        for defect in from_objects:
            assert defect["detail"] in _allowed(defect, run, case, reference), defect


def test_a_run_with_one_defect_of_each_template() -> None:
    # Reference a, b, c (total order); the run makes b, a, a, w, then x fails and y follows.
    case = Case(
        case_id="c",
        reference=("a", "b", "c"),
        required_tools=("notify",),
        forbidden_tools=("y",),
        tool_kinds={"w": "write"},
        budget={"steps": 4},
    )
    run = Run(
        case_id="c",
        steps=("b", "a", "a", "w", Step(tool="x", error="boom"), "y"),
    )
    details = {d.kind: d.detail for d in score([case], [run])[0].defects}
    assert details == {
        "missing_step": messages.MISSING_STEP.format(reference="c"),
        "wasted_step": messages.WASTED_REPEAT.format(agent="a"),
        "unexpected_write": messages.UNEXPECTED_WRITE.format(agent="w"),
        "out_of_order": messages.ORDER_RAN_LATER.format(agent="b", reference="a"),
        "missing_required_tool": messages.MISSING_REQUIRED_TOOL.format(tool="notify"),
        "over_budget": messages.over_budget([("steps", 6.0, 4.0)]),
        "forbidden_action": messages.FORBIDDEN_TOOL.format(tool="y"),
        "unrecovered_error": messages.UNRECOVERED_ERROR.format(failed="x", after="y"),
    }
    assert details["over_budget"] == "steps 6 > budget 4"  # 6 steps, budget 4
