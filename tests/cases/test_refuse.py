"""``score`` refuses an impossible reference (issue 23, item 2): in memory, through the API's
files path and through the partitioned engines, with file, line and field named."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.api.scoring import located, score_files, score_records
from pathgrade.cases.refuse import ImpossibleReferenceError, impossible, refuse_impossible
from pathgrade.core.errors import InputError
from pathgrade.core.types import Budget, Step


def _case(case_id: str, **fields: object) -> Case:
    return Case.model_validate({"case_id": case_id, **fields})


FORBIDDEN = {"reference": ["lookup", "refund", "wipe"], "forbidden_tools": ["wipe"]}


def test_score_refuses_a_reference_that_calls_a_forbidden_tool() -> None:
    case = _case("c", **FORBIDDEN)
    with pytest.raises(ImpossibleReferenceError) as caught:
        score([case], [Run(case_id="c", steps=())])
    error = caught.value
    assert isinstance(error, InputError)
    assert (error.field, error.case_id, error.file, error.line) == (
        "reference[2].tool",
        "c",
        None,
        None,
    )
    assert str(error) == (
        "field 'reference[2].tool': case 'c': refusing to score against an impossible"
        " reference: the reference calls 'wipe', which forbidden_tools lists [forbidden]"
    )


def test_the_first_error_is_named_and_the_others_counted() -> None:
    # Case "c": 3 calls over budget.steps 2 (1 error) and a forbidden step (1 error); case
    # "d": a forbidden action. First in case order, then lint order: the forbidden step of
    # "c" (per path: schema, forbidden, order, repeats, alternatives, budget); 2 others.
    c = _case("c", budget={"steps": 2}, **FORBIDDEN)
    d = _case("d", reference=["refund:1"], forbidden_actions=["refund:1"])
    with pytest.raises(ImpossibleReferenceError) as caught:
        score([c, d], [Run(case_id="d", steps=()), Run(case_id="c", steps=())])
    assert caught.value.first.code == "forbidden"
    assert caught.value.others == 2
    assert "(and 2 other error(s): pathgrade cases lint lists them)" in str(caught.value)


def test_the_config_budget_applies_to_cases_without_one() -> None:
    # 3 required calls; the config's budget.steps 2 is exceeded by the reference itself,
    # an optional third step is only a warning (fewest calls 2 <= 2).
    strict = _case("c", reference=["a", "b", "c"])
    loose = _case("d", reference=["a", "b", {"tool": "c", "optional": True}])
    config = ScoringConfig(budget=Budget(steps=2))
    with pytest.raises(ImpossibleReferenceError, match=r"at least 3 calls; budget\.steps is 2"):
        score([strict], [Run(case_id="c", steps=())], config)
    (result,) = list(score([loose], [Run(case_id="d", steps=())], config))
    assert result.case_id == "d"


def test_only_cases_that_runs_are_scored_against_are_checked() -> None:
    bad, good = _case("bad", **FORBIDDEN), _case("good", reference=["a"])
    result = score([bad, good], [Run(case_id="good", steps=())])
    assert len(result) == 1
    assert impossible([good]) == []


def test_warnings_do_not_refuse() -> None:
    # A duplicate reference and an unused required tool are warnings only.
    case = _case("c", references=[["a"], ["a"]], required_tools=["z"])
    assert impossible([case]) == []
    refuse_impossible([case])  # returns


def test_a_tool_schema_violation_is_refused_with_tools() -> None:
    from pathgrade.metrics.tool.schemas import ToolSet, ToolSpec

    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    tools = ToolSet({"refund": ToolSpec("refund", schema)})
    case = _case("c", reference=[{"tool": "refund", "arguments": {"id": "x"}}])
    run = Run(case_id="c", steps=())
    assert len(score([case], [run])) == 1  # without tools, nothing to check it against
    with pytest.raises(ImpossibleReferenceError) as caught:
        score([case], [run], tools=tools)
    assert caught.value.field == "reference[0].arguments.id"


def test_the_error_survives_pickling_and_is_located_once() -> None:
    error = ImpossibleReferenceError(impossible([_case("c", **FORBIDDEN)])[0], 1)
    again = pickle.loads(pickle.dumps(error))
    assert (str(again), again.case_id, again.others) == (str(error), "c", 1)
    at = error.located("cases.jsonl", 7)
    assert str(at).startswith("cases.jsonl:7: field 'reference[2].tool': case 'c': ")
    assert at.located("other.jsonl", 1) is at


def test_located_never_puts_a_refused_case_in_the_runs_file() -> None:
    error = ImpossibleReferenceError(impossible([_case("c", **FORBIDDEN)])[0], 0)
    assert located(error, "runs.jsonl", [1]) is error
    placed = located(error, "runs.jsonl", [1], ("cases.jsonl", {"c": 3}))
    assert (placed.file, placed.line) == ("cases.jsonl", 3)


def _files(tmp_path: Path) -> tuple[Path, Path]:
    cases = tmp_path / "cases.jsonl"
    records = [{"case_id": "ok", "reference": ["a"]}, {"case_id": "c", **FORBIDDEN}]
    cases.write_text("".join(json.dumps(r) + "\n" for r in records))
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        json.dumps({"case_id": "ok", "steps": ["a"]})
        + "\n"
        + json.dumps({"case_id": "c", "steps": []})
        + "\n"
    )
    return cases, runs


def test_score_records_names_the_cases_file_and_line(tmp_path: Path) -> None:
    cases, runs = _files(tmp_path)
    with pytest.raises(InputError) as caught:
        score_records(cases, runs)
    assert (caught.value.file, caught.value.line) == (str(cases), 2)
    assert caught.value.field == "reference[2].tool"


@pytest.mark.parametrize("workers", [1, 2])
def test_partitioned_scoring_names_the_cases_file_and_line(tmp_path: Path, workers: int) -> None:
    cases, runs = _files(tmp_path)
    with pytest.raises(InputError) as caught:
        score_files(cases, runs, workers=workers, partition_size=1)
    assert (caught.value.file, caught.value.line, caught.value.field) == (
        str(cases),
        2,
        "reference[2].tool",
    )
    assert "refusing to score against an impossible reference" in caught.value.message


@pytest.mark.parametrize("extra", [[], ["--partition-size", "1"]])
def test_the_score_command_names_the_cases_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    from pathgrade.cli.main import main

    cases, runs = _files(tmp_path)
    assert main(["score", str(cases), str(runs), "--json", *extra]) == 2
    captured = capsys.readouterr()
    if extra:  # partitions are checked as they are scored: an earlier one's records are out,
        with pytest.raises(json.JSONDecodeError):  # but the document is never completed
            json.loads(captured.out)
    else:  # in memory every case is checked before anything is written
        assert captured.out == ""
    (line,) = captured.err.strip().splitlines()  # one line, no traceback
    assert line.startswith(f"pathgrade: error: {cases}:2: field 'reference[2].tool': case 'c':")
    assert "refusing to score against an impossible reference" in line


def test_an_undefined_tool_refuses_only_under_strict_tools() -> None:
    from pathgrade.metrics.tool.schemas import ToolSet, ToolSpec

    tools = ToolSet.of([ToolSpec("refund")])  # lookup is not defined
    case = _case("c", reference=["lookup", "refund"])
    run = Run(case_id="c", steps=[{"tool": "lookup"}, {"tool": "refund"}])
    # not strict: an agent's call of lookup is counted (unknown_tool_calls), not refused
    (result,) = score([case], [run], tools=tools)
    assert result.metrics["path_score"] == 100.0
    assert [f.code for f in impossible([case], tools, strict=False)] == []
    # strict: the same call would be an error, so the reference is impossible
    with pytest.raises(ImpossibleReferenceError) as caught:
        score([case], [run], tools=tools, strict_tools=True)
    assert caught.value.first.code == "unknown_tool"
    assert caught.value.field == "reference[0].tool"


_TOOLS = ("a", "b", "c")
_step = st.builds(  # plain steps; a grammar step is added in _cases
    lambda tool, arg, tokens: Step.model_validate(
        {
            "tool": tool,
            "arguments": {} if arg is None else {"x": arg},
            **({"tokens": tokens} if tokens is not None else {}),
        }
    ),
    st.sampled_from(_TOOLS),
    st.one_of(st.none(), st.integers(0, 2), st.text(max_size=2)),
    st.one_of(st.none(), st.floats(0, 10)),
)


@st.composite
def _cases(draw: st.DrawFn) -> Case:
    paths = draw(st.lists(st.lists(_step, max_size=5), min_size=1, max_size=3))
    fields: dict[str, object] = {"case_id": "c", "references": paths}
    if draw(st.booleans()):
        fields["forbidden_tools"] = draw(st.lists(st.sampled_from(_TOOLS), max_size=2))
    if draw(st.booleans()):
        fields["forbidden_actions"] = [{"tool": draw(st.sampled_from(_TOOLS)), "arguments": {}}]
    if draw(st.booleans()):
        fields["budget"] = {
            "steps": draw(st.one_of(st.none(), st.integers(0, 6))),
            "tokens": draw(st.one_of(st.none(), st.floats(0, 20))),
        }
    if draw(st.booleans()):  # a grammar step or an order field: never cleared without lint
        fields["references"] = [
            [*paths[0], {"tool": "a", "optional": True}],
            *paths[1:],
        ]
    return Case.model_validate(fields)


@settings(max_examples=300, deadline=None)
@given(_cases(), st.one_of(st.none(), st.builds(Budget, steps=st.integers(0, 6))), st.booleans())
def test_what_the_fast_filter_clears_the_lint_never_refuses(
    case: Case, budget: Budget | None, with_tools: bool
) -> None:
    from pathgrade.cases.refuse import clear, reference_shapes
    from pathgrade.metrics.tool.schemas import ToolSet, ToolSpec

    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    tools = ToolSet.of([ToolSpec("a", schema), ToolSpec("b")]) if with_tools else None
    for strict in (False, True):
        invalid = reference_shapes([case], tools, strict).flagged
        linted = [f for f in _lint_errors(case, tools, budget) if strict or f != "unknown_tool"]
        if clear(case, budget, invalid):
            assert linted == []
        # and the filter changes nothing: impossible() is the lint's errors
        assert [f.code for f in impossible([case], tools, budget=budget, strict=strict)] == linted


def _lint_errors(case: Case, tools: object, budget: Budget | None) -> list[str]:
    from pathgrade.cases.lint import lint_case

    return [
        code
        for code, level, _, _ in lint_case(
            case,
            tools,
            budget=budget,
            across=False,
            agents=False,  # type: ignore[arg-type]
        )
        if level == "error"
    ]


def test_the_fast_filter_clears_plain_cases_and_lints_the_others() -> None:
    from pathgrade.cases.refuse import clear

    plain = _case("p", reference=["a", "b"], references=[["b"]])
    assert clear(plain, None)
    assert clear(plain, Budget(steps=2)) and not clear(plain, Budget(steps=1))
    assert not clear(plain, Budget(tokens=5))  # left to the lint
    assert not clear(_case("f", reference=["a"], forbidden_tools=["a"]), None)
    assert clear(_case("g", reference=["a"], forbidden_tools=["z"]), None)
    assert not clear(_case("h", reference=["a"], forbidden_actions=["z"]), None)
    grammar = _case("o", reference=[{"tool": "a", "optional": True}])
    assert not clear(grammar, None)
