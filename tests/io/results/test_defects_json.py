"""The defects text written from the trajectory layer's columns (``ScoreResult.defect_columns``,
``pathgrade.io.results.details.defects_json``) is, byte for byte, what orjson writes for
each run's defect objects, and the columns' kind counts are theirs: on random runs with
every kind of defect and awkward text in their arguments."""

from __future__ import annotations

from collections import Counter

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, Step, score
from pathgrade.core.config import Penalties
from pathgrade.core.results import ScoreResult
from pathgrade.io.results.details import defects_json

TEXT = st.sampled_from(["A", 'q"uote', "back\\slash", "tab\there", "\x00\x1f", "é", "🙂"])
TOOLS = ["lookup", "refund", "search", "delete"]
step_st = st.builds(
    lambda tool, arg, failed: Step(
        tool=tool, arguments={"id": arg}, error="boom" if failed else None
    ),
    st.sampled_from(TOOLS),
    TEXT,
    st.integers(0, 7).map(lambda n: n == 0),
)
path_st = st.lists(step_st, max_size=7)


def _texts(result: ScoreResult) -> tuple[list[bytes], Counter[str]]:
    assert result.defect_columns is not None
    columns = result.defect_columns()
    return defects_json(columns).to_pylist(), columns.counts()


def _check(cases: list[Case], runs: list[Run], config: ScoringConfig | None = None) -> None:
    result = score(cases, runs, config)
    texts, kinds = _texts(result)
    assert len(texts) == len(result)
    expected: Counter[str] = Counter()
    for run in range(len(result)):
        defects = result.details(run)[0]
        expected.update(d.kind for d in defects)
        assert texts[run] == orjson.dumps([d.to_dict() for d in defects])
    assert kinds == expected


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(path_st, path_st, st.integers(0, 5)), min_size=1, max_size=6),
    st.sampled_from(["total", "none", "partial"]),
)
def test_defects_json_equals_the_objects(
    items: list[tuple[list[Step], list[Step], int]], order: str
) -> None:
    cases, runs = [], []
    for k, (reference, agent, variant) in enumerate(items):
        if order == "partial":  # each step after the one before it, by id
            reference = [
                s.model_copy(update={"id": f"s{i}", "after": (f"s{i - 1}",) if i else ()})
                for i, s in enumerate(reference)
            ]
        # A reference that calls a forbidden tool or exceeds its own budget is refused.
        forbid = variant in (2, 3) and all(s.tool != "delete" for s in reference)
        cases.append(
            Case(
                case_id=f"c{k}",
                reference=tuple(reference) if variant != 5 else None,
                order=order,  # type: ignore[arg-type]
                required_tools=("notify", "lookup") if variant in (1, 3) else (),
                forbidden_tools=("delete",) if forbid else (),
                budget={"steps": max(2, len(reference))} if variant == 4 else None,
                tool_kinds={"refund": "write"},
            )
        )
        runs.append(Run(case_id=f"c{k}", steps=tuple(agent)))
    _check(cases, runs)
    _check(cases, runs, ScoringConfig(penalties=Penalties(missing_step=7, wasted_step=0.5)))


def test_one_run_with_every_kind_of_step_defect() -> None:
    case = Case(
        case_id="c",
        reference=("a", "b", "c"),
        required_tools=("notify",),
        tool_kinds={"w": "write"},
    )
    run = Run(case_id="c", steps=("b", "a", "a", "w"))
    result = score([case], [run])
    texts, kinds = _texts(result)
    defects = orjson.loads(texts[0])
    assert [d["kind"] for d in defects] == [
        "missing_step",
        "wasted_step",
        "unexpected_write",
        "out_of_order",
        "missing_required_tool",
    ]
    assert defects[0] == {
        "kind": "missing_step",
        "penalty": 25.0,
        "detail": "reference step c never happened",
        "reference_step": 2,
    }
    assert defects[1]["agent_step"] == 2 and defects[2]["agent_step"] == 3
    assert kinds == Counter(d["kind"] for d in defects)


def test_runs_without_defects_or_a_reference() -> None:
    cases = [Case(case_id="none"), Case(case_id="one", reference=("t",))]
    runs = [Run(case_id="none", steps=("t",)), Run(case_id="one", steps=("t",))]
    result = score(cases, runs)
    assert _texts(result) == ([b"[]", b"[]"], Counter())


def test_each_kind_of_total_order_defect_is_written_as_its_object() -> None:
    cases = [Case(case_id="c", reference=("a", "b", "c"))]
    paths = [("b", "a", "c"), ("b", "c"), ("a", "c", "b", "c"), ("c", "b", "a")]
    result = score(cases, [Run(case_id="c", steps=p) for p in paths])
    texts, _ = _texts(result)
    details = []
    for run, text in enumerate(texts):
        assert text == orjson.dumps([d.to_dict() for d in result.details(run)[0]])
        details += [d["detail"] for d in orjson.loads(text) if d["kind"] == "out_of_order"]
    assert details == [
        "b ran before a, which it depends on",
        "b ran but a, which it depends on, never did",
        "c ran before its turn and was made again later",
        "c ran before a, which it depends on",
    ]
