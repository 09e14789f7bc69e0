"""The path grammar inside one reference (optional, one_of, repeat, unordered groups):
the worked examples of issue 23, hand-computed, in the engine and in the definition."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from pathgrade import Case, Run, score
from pathgrade.core.errors import InputError
from pathgrade.core.results import RunResult
from pathgrade.io.cases import load_runs
from pathgrade.io.results.writer import iter_records_jsonl
from pathgrade.metrics.trajectory import grammar
from pathgrade.metrics.trajectory.definition import score_runs
from pathgrade.store.table import records_table, table_records

from .helpers import trajectory_part

Scorer = Callable[[list[Case], list[Run]], list[RunResult]]


def _engine(cases: list[Case], runs: list[Run]) -> list[RunResult]:
    return [trajectory_part(result) for result in score(cases, runs)]


def _definition(cases: list[Case], runs: list[Run]) -> list[RunResult]:
    return score_runs(cases, runs)


SCORERS = pytest.mark.parametrize("scorer", [_engine, _definition], ids=["engine", "definition"])


def _one(scorer: Scorer, reference: list[Any], steps: list[Any], **fields: Any) -> RunResult:
    case = Case.model_validate({"case_id": "c", "reference": reference, **fields})
    return scorer([case], [Run.model_validate({"case_id": "c", "steps": steps})])[0]


LOOKUP = [{"tool": "lookup", "optional": True}, "refund", "send"]
CHOICE = ["a", {"one_of": [["b", "c"], ["d"]]}, "e"]
POLL = [{"tool": "poll", "repeat": {"min": 1, "max": 3}}]


@SCORERS
def test_an_optional_step_left_out_is_not_missing(scorer: Scorer) -> None:
    # [lookup?, refund, send] vs [refund, send]: the instance is [refund, send]: 100 - 0.
    result = _one(scorer, LOOKUP, ["refund", "send"])
    assert result.metrics["path_score"] == 100.0
    assert result.metrics["missing_steps"] == 0
    assert result.metrics["tool_recall"] == 1.0  # 2 of the instance's 2, not 2 of 3
    assert result.defects == ()
    assert result.reference_branch == {"one_of": [], "optional": [], "repeat": {}}


@SCORERS
def test_an_optional_step_made_once_is_matched(scorer: Scorer) -> None:
    # [lookup?, refund, send] vs [lookup, refund, send]: the instance is all three: 100.
    result = _one(scorer, LOOKUP, ["lookup", "refund", "send"])
    assert result.metrics["path_score"] == 100.0
    assert [a.op for a in result.alignment] == ["match"] * 3
    assert result.reference_branch == {"one_of": [], "optional": ["[0]"], "repeat": {}}


@SCORERS
def test_an_optional_step_made_twice_wastes_the_second(scorer: Scorer) -> None:
    # Two lookups: one counted, the repeat wasted: 100 - 10.
    result = _one(scorer, LOOKUP, ["lookup", "lookup", "refund", "send"])
    assert result.metrics["path_score"] == 90.0
    assert [d.kind for d in result.defects] == ["wasted_step"]


@SCORERS
def test_one_of_takes_the_closest_branch(scorer: Scorer) -> None:
    # [a, one_of([b, c], [d]), e] vs [a, d, e]: branch 1 gives [a, d, e]: 100.
    result = _one(scorer, CHOICE, ["a", "d", "e"])
    assert result.metrics["path_score"] == 100.0
    assert result.reference_branch == {"one_of": [1], "optional": [], "repeat": {}}


@SCORERS
def test_one_of_with_a_partial_branch_is_missing_the_rest(scorer: Scorer) -> None:
    # vs [a, b, e]: branch 0 ([a, b, c, e]) scores 100 - 25 (c missing) - 15 (out of order:
    # the first M = 3 reference steps a, b, c are no subsequence, deviation (a)) = 60;
    # branch 1 ([a, d, e]) 100 - 25 (d missing) - 15 = 60 too, and the composite decides:
    # branch 0: 0.3 * 3/4 + 0.3 * 3/4 + 0.2 * (1 - 1/4) + 0.2 * min(1, 4/3) = 0.8; branch 1:
    # 0.3 * 2/3 + 0.3 * 2/3 + 0.2 * (1 - 1/3) + 0.2 * 1 = 0.733 (b for d, a substitution).
    result = _one(scorer, CHOICE, ["a", "b", "e"])
    assert result.reference_branch == {"one_of": [0], "optional": [], "repeat": {}}
    missing = [d for d in result.defects if d.kind == "missing_step"]
    assert [(d.reference_step, "c" in d.detail) for d in missing] == [(2, True)]
    assert result.metrics["composite"] == pytest.approx(0.8)
    plain = _one(scorer, ["a", "b", "c", "e"], ["a", "b", "e"])
    assert result.metrics == plain.metrics and result.defects == plain.defects
    assert result.metrics["path_score"] == 60.0


@SCORERS
def test_repeat_beyond_max_is_wasted(scorer: Scorer) -> None:
    # poll{1..3} vs four polls: three counted, the fourth wasted: 100 - 10.
    result = _one(scorer, POLL, ["poll"] * 4)
    assert result.metrics["path_score"] == 90.0
    assert result.metrics["redundant_steps"] == 1
    assert [d.kind for d in result.defects] == ["wasted_step"]
    assert result.reference_branch == {"one_of": [], "optional": [], "repeat": {"[0]": 3}}


@SCORERS
def test_repeat_within_bounds_and_below_min(scorer: Scorer) -> None:
    assert _one(scorer, POLL, ["poll"] * 2).metrics["path_score"] == 100.0
    # poll{2..3} vs one poll: the second required copy is missing: 100 - 25.
    two = [{"tool": "poll", "repeat": {"min": 2, "max": 3}}]
    assert _one(scorer, two, ["poll"]).metrics["path_score"] == 75.0


@SCORERS
def test_an_unordered_group_accepts_any_order_among_it(scorer: Scorer) -> None:
    reference = [
        {"tool": "a", "group": "unordered"},
        {"tool": "b", "group": "unordered"},
        "c",
    ]
    assert _one(scorer, reference, ["b", "a", "c"]).metrics["path_score"] == 100.0
    # c before the group: out of order, 100 - 15.
    late = _one(scorer, reference, ["c", "b", "a"])
    assert late.metrics["out_of_order"] == 1
    assert late.metrics["path_score"] == 85.0


@SCORERS
def test_an_optional_step_left_out_keeps_the_partial_order_through_it(scorer: Scorer) -> None:
    reference = [
        {"tool": "s0", "id": "s0"},
        {"tool": "s1", "id": "s1", "after": ["s0"], "optional": True},
        {"tool": "s2", "id": "s2", "after": ["s1"]},
    ]
    assert _one(scorer, reference, ["s0", "s2"], order="partial").metrics["path_score"] == 100.0
    # s2 is after s0 through the left-out s1: s2 first is out of order, 100 - 15.
    early = _one(scorer, reference, ["s2", "s0"], order="partial")
    assert early.metrics["path_score"] == 85.0


@SCORERS
def test_twenty_optional_steps(scorer: Scorer) -> None:
    reference = [{"tool": f"t{k}", "optional": True} for k in range(20)] + ["done"]
    result = _one(scorer, reference, ["t3", "t7", "t15", "done"])
    assert result.metrics["path_score"] == 100.0
    assert result.reference_branch is not None
    assert result.reference_branch["optional"] == ["[3]", "[7]", "[15]"]


@SCORERS
def test_the_reference_index_is_the_written_reference(scorer: Scorer) -> None:
    case = Case.model_validate({"case_id": "c", "references": [["x"], CHOICE]})
    result = scorer([case], [Run.model_validate({"case_id": "c", "steps": ["a", "d", "e"]})])[0]
    assert result.reference_index == 1
    assert result.reference_branch == {"one_of": [1], "optional": [], "repeat": {}}


def test_alternatives_are_numbered_in_branch_order() -> None:
    path = Case.model_validate(
        {"case_id": "c", "reference": ["a", {"one_of": [["b"], ["c"]]}, {"one_of": [["d"], []]}]}
    ).reference_paths()[0]
    got = [(alt.branch, [i.step.tool for i in alt.items]) for alt in grammar.alternatives(path)]
    assert got == [
        ((0, 0), ["a", "b", "d"]),
        ((0, 1), ["a", "b"]),
        ((1, 0), ["a", "c", "d"]),
        ((1, 1), ["a", "c"]),
    ]


def test_too_many_alternatives_is_an_error() -> None:
    choice = {"one_of": [["a"], ["b"]]}
    path = Case.model_validate({"case_id": "c", "reference": [choice] * 7}).reference_paths()[0]
    with pytest.raises(ValueError, match="more than 64 alternatives"):
        grammar.alternatives(path)


def test_a_run_step_with_a_grammar_field_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="'optional' is for reference steps"):
        Run.model_validate({"case_id": "c", "steps": ["a", {"tool": "b", "optional": True}]})
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"case_id": "c", "steps": [{"tool": "p", "repeat": {"max": 2}}]}\n')
    with pytest.raises(InputError, match="repeat") as caught:
        load_runs(runs)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("step", "field"),
    [
        ({"one_of": []}, "one_of"),
        ({"one_of": [["a"]], "optional": True}, "optional"),
        ({"tool": "p", "repeat": {"min": 3, "max": 2}}, "max"),
        ({"tool": "p", "repeat": {"max": 2}, "optional": True}, "optional"),
        ({"one_of": [[{"tool": "a", "id": "x"}]]}, "id"),
    ],
)
def test_grammar_fields_are_checked(step: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        Case.model_validate({"case_id": "c", "reference": [step]})


def test_the_record_says_the_branch() -> None:
    cases = [
        Case.model_validate({"case_id": "c", "reference": CHOICE}),
        Case.model_validate({"case_id": "p", "reference": ["a"]}),
    ]
    runs = [
        Run.model_validate({"case_id": "c", "steps": ["a", "d", "e"]}),
        Run.model_validate({"case_id": "p", "steps": ["a"]}),
    ]
    result = score(cases, runs)
    lines = b"".join(iter_records_jsonl(result)).splitlines()
    records = [orjson.loads(line) for line in lines]
    assert records[0]["reference_branch"] == {"one_of": [1], "optional": [], "repeat": {}}
    assert "reference_branch" not in records[1]
    assert records == [orjson.loads(orjson.dumps(r.to_dict())) for r in result]


def test_the_documented_toml_shape_is_the_json_one() -> None:
    json_case = Case.model_validate_json(
        '{"case_id": "refund-1", "reference": ['
        '{"tool": "lookup_order", "arguments": ["A17"], "optional": true},'
        '{"one_of": [["refund:A17", "send_message:A17"], ["escalate:A17"]]},'
        '{"tool": "poll_status", "repeat": {"min": 1, "max": 3}},'
        '{"tool": "notify", "group": "unordered"}, {"tool": "log", "group": "unordered"}]}'
    )
    toml_case = Case.model_validate(
        tomllib.loads(
            'case_id = "refund-1"\n'
            "reference = [\n"
            '  { tool = "lookup_order", arguments = ["A17"], optional = true },\n'
            '  { one_of = [["refund:A17", "send_message:A17"], ["escalate:A17"]] },\n'
            '  { tool = "poll_status", repeat = { min = 1, max = 3 } },\n'
            '  { tool = "notify", group = "unordered" }, { tool = "log", group = "unordered" },\n'
            "]\n"
        )
    )
    assert toml_case == json_case
    run = Run.model_validate(
        {"case_id": "refund-1", "steps": ["escalate:A17", "poll_status", "log", "notify"]}
    )
    result = score([json_case], [run])[0]
    # lookup left out, branch 1, one poll, the unordered pair in either order: 100.
    assert result.metrics["path_score"] == 100.0
    assert result.reference_branch == {"one_of": [1], "optional": [], "repeat": {"[2]": 1}}


def test_the_store_keeps_the_branch() -> None:
    cases = [Case.model_validate({"case_id": "c", "reference": CHOICE})]
    runs = [
        Run.model_validate({"case_id": "c", "steps": ["a", "d", "e"]}),
        Run.model_validate({"case_id": "c", "steps": ["a", "b", "c", "e"]}),
    ]
    written = b"".join(iter_records_jsonl(score(cases, runs)))
    records = [orjson.loads(line) for line in written.splitlines()]
    kinds = {name: "score" for name in records[0]["metrics"]}
    back, _ = table_records(records_table("r", records, kinds), kinds)
    assert [r["reference_branch"]["one_of"] for r in back] == [[1], [0]]


@SCORERS
def test_an_unordered_one_of_lends_its_group_to_its_branch(scorer: Scorer) -> None:
    # Issue 38's first case: [~search:x?, ~one_of([search:y{1..3}], [check:A?]), ~lookup:B?,
    # refund:A] vs [search:y, search:x, search:y x4, lookup:B, poll:1, refund:A]. The group has
    # no order, so search:y before search:x is in order; three search:y are the repeat's, the
    # other two repeat an earlier call: 100 - 2 x 10 (wasted at agent steps 4 and 5).
    reference = [
        {"tool": "search", "arguments": {"q": "x"}, "optional": True, "group": "unordered"},
        {
            "one_of": [
                [{"tool": "search", "arguments": {"q": "y"}, "repeat": {"min": 1, "max": 3}}],
                [{"tool": "check", "arguments": {"id": "A"}, "optional": True}],
            ],
            "group": "unordered",
        },
        {"tool": "lookup", "arguments": {"id": "B"}, "optional": True, "group": "unordered"},
        {"tool": "refund", "arguments": {"id": "A"}},
    ]
    y = {"tool": "search", "arguments": {"q": "y"}}
    steps = [y, {"tool": "search", "arguments": {"q": "x"}}, y, y, y, y]
    steps += [{"tool": "lookup", "arguments": {"id": "B"}}, {"tool": "poll", "arguments": {"n": 1}}]
    steps += [{"tool": "refund", "arguments": {"id": "A"}}]
    result = _one(scorer, reference, steps)
    assert result.metrics["path_score"] == 80.0
    assert [(d.kind, d.agent_step) for d in result.defects] == [
        ("wasted_step", 4),
        ("wasted_step", 5),
    ]


@SCORERS
def test_an_unordered_empty_branch_orders_the_alignment_as_documented(scorer: Scorer) -> None:
    # Issue 38's second case: [~refund:A?, ~search:x, ~poll:1, refund:A?, ~one_of([],
    # [search:y]), ~lookup:A] vs [send:A, send:A, refund:A, refund:A, search:x, poll:1, poll:1,
    # refund:A, search:y]. The score was right (30); search:y now stands in the unordered run,
    # so the linear extension puts it last and, walking back, the deletion of lookup:A comes
    # before the match at agent step 8 (it came after).
    def call(tool: str, key: str, value: Any) -> dict[str, Any]:
        return {"tool": tool, "arguments": {key: value}}

    def loose(step: dict[str, Any]) -> dict[str, Any]:
        return {**step, "group": "unordered"}

    reference = [
        loose({**call("refund", "id", "A"), "optional": True}),
        loose(call("search", "q", "x")),
        loose(call("poll", "n", 1)),
        {**call("refund", "id", "A"), "optional": True},
        loose({"one_of": [[], [call("search", "q", "y")]]}),
        loose(call("lookup", "id", "A")),
    ]
    steps = [call("send", "id", "A")] * 2 + [call("refund", "id", "A")] * 2
    steps += [call("search", "q", "x"), call("poll", "n", 1), call("poll", "n", 1)]
    steps += [call("refund", "id", "A"), call("search", "q", "y")]
    result = _one(scorer, reference, steps)
    assert result.metrics["path_score"] == 30.0
    assert [(a.op, a.reference_step, a.agent_step) for a in result.alignment][-2:] == [
        ("deletion", 5, None),
        ("match", 4, 8),
    ]
