"""Loading cases and runs: JSONL and JSON arrays, and one-line errors naming file/line/field."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.config import load_config


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_and_shorthand(tmp_path: Path) -> None:
    path = write(tmp_path, "c.jsonl", '{"case_id": "a", "reference": ["refund:A17", "noop"]}\n\n')
    (case,) = load_cases(path).items
    assert case.reference is not None
    assert case.reference[0].tool == "refund" and case.reference[0].arguments == ["A17"]
    assert case.reference[1].arguments == {}


def test_json_array_reports_the_line_of_the_bad_record(tmp_path: Path) -> None:
    text = '[\n  {"case_id": "a"},\n  {"case_id": "b",\n   "order": "sideways"}\n]\n'
    with pytest.raises(InputError) as info:
        load_cases(write(tmp_path, "c.json", text))
    assert info.value.line == 3 and info.value.field == "order"
    assert str(info.value).startswith(f"{tmp_path / 'c.json'}:3: field 'order': ")


@pytest.mark.parametrize(
    ("text", "line", "field", "fragment"),
    [
        ('{"case_id": "a"}\n{"case_id": "b", \n', 2, None, "malformed JSON"),
        ('{"case_id": "a"}\n{"query": "q"}\n', 2, "case_id", "Field required"),
        ('{"case_id": "a", "reference": [{"tool": 3}]}\n', 1, "reference[0].tool", "string"),
        ('{"case_id": "a", "refrence": []}\n', 1, "refrence", "unknown field"),
        ('{"case_id": "a"}\n{"case_id": "a"}\n', 2, "case_id", "duplicate case_id 'a'"),
        ('["not an object"]', 1, None, "expected a JSON object"),
        ('{"case_id": "a", "budget": {"steps": -1}}\n', 1, "budget.steps", "greater"),
        (
            '{"case_id": "a", "reference": [{"tool": "x", "id": "s"}, {"tool": "y", "id": "s"}]}',
            1,
            "reference[1].id",
            "duplicate step id 's' in reference path 0",
        ),
        (
            '{"case_id": "a", "reference": ["x"], "references": [[{"tool": "y", "after": ["s"]}]]}',
            1,
            "references[0][0].after",
            "step 'y' is 'after' unknown id 's' (no step of reference path 1",
        ),
    ],
)
def test_bad_cases_give_one_line_errors(
    tmp_path: Path, text: str, line: int, field: str | None, fragment: str
) -> None:
    with pytest.raises(InputError) as info:
        load_cases(write(tmp_path, "cases.jsonl", text))
    error = info.value
    assert error.line == line and error.field == field
    assert fragment in str(error) and "\n" not in str(error)
    assert str(error).startswith(str(tmp_path / "cases.jsonl"))


def test_empty_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file is empty"):
        load_cases(write(tmp_path, "c.jsonl", "  \n"))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read file"):
        load_cases(tmp_path / "nope.jsonl")


def test_run_for_unknown_case(tmp_path: Path) -> None:
    runs = write(tmp_path, "r.jsonl", '{"case_id": "a"}\n{"case_id": "zz"}\n')
    with pytest.raises(InputError) as info:
        load_runs(runs, {"a": object()})
    assert info.value.line == 2 and info.value.field == "case_id"


def test_skip_invalid_keeps_the_valid_records(tmp_path: Path) -> None:
    text = '{"case_id": "a"}\n{"case_id": \n{"case_id": "b", "trial": "x"}\n{"case_id": "c"}\n'
    loaded = load_runs(write(tmp_path, "r.jsonl", text), skip_invalid=True)
    assert [r.case_id for r in loaded.items] == ["a", "c"] and loaded.lines == [1, 4]
    assert [e.line for e in loaded.skipped] == [2, 3]


def test_config_errors_name_file_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, "pathgrade.toml", "[penalties]\nmising = 3\n")
    with pytest.raises(InputError) as info:
        load_config(path)
    assert info.value.field == "penalties.mising" and "unknown key" in str(info.value)
    bad = write(tmp_path, "bad.toml", "[penalties\n")
    with pytest.raises(InputError, match="malformed TOML"):
        load_config(bad)


def test_config_discovery(tmp_path: Path) -> None:
    assert load_config(cwd=tmp_path).penalties.missing_step == 25
    write(tmp_path, "pyproject.toml", "[tool.pathgrade.penalties]\nmissing_step = 30\n")
    assert load_config(cwd=tmp_path).penalties.missing_step == 30
    write(tmp_path, "pathgrade.toml", "[penalties]\nmissing_step = 40\n")
    assert load_config(cwd=tmp_path).penalties.missing_step == 40


def test_loaded_tool_names_and_case_ids_are_shared_strings(tmp_path: Path) -> None:
    """Each record is decoded separately, yet equal tool names and case ids come out as one
    string object (interned when validated): the scorer's look-ups rely on it for speed."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"case_id": "c1", "reference": [{"tool": "lookup_order"}]}\n')
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        '{"case_id": "c1", "steps": [{"tool": "lookup_order"}, "lookup_order:A17"]}\n'
        '{"case_id": "c1", "steps": [{"tool": "lookup_order", "arguments": {"id": 1}}]}\n'
    )
    (case,) = load_cases(cases).items
    first, second = load_runs(runs).items
    tools = [case.reference[0].tool] if case.reference else []
    tools += [s.tool for s in first.steps + second.steps]
    assert tools == ["lookup_order"] * 4
    assert all(t is tools[0] for t in tools)
    assert first.case_id is second.case_id is case.case_id


def test_retrieved_bare_ids_stay_strings_and_scored_items_are_objects(tmp_path: Path) -> None:
    text = '{"case_id": "a", "retrieved": ["d1", {"id": "d2", "score": 0.5}, {"id": "d3"}]}\n'
    (run,) = load_runs(write(tmp_path, "runs.jsonl", text)).items
    assert run.retrieved is not None
    bare, scored, unscored = run.retrieved
    assert type(bare) is str and bare == "d1"
    assert not isinstance(scored, str) and (scored.id, scored.score) == ("d2", 0.5)
    assert not isinstance(unscored, str) and (unscored.id, unscored.score) == ("d3", None)


@pytest.mark.parametrize(
    ("retrieved", "field", "fragment"),
    [
        ('[""]', "retrieved[0]", "at least 1 character"),
        ('["d1", 5]', "retrieved[1]", "valid dictionary or instance of RetrievedItem"),
        ('[{"id": ""}]', "retrieved[0].id", "at least 1 character"),
        ('[{"id": "d", "score": "high"}]', "retrieved[0].score", "valid number"),
        ('"d1"', "retrieved", "valid tuple"),
    ],
)
def test_bad_retrieved_items_name_the_item(
    tmp_path: Path, retrieved: str, field: str, fragment: str
) -> None:
    path = write(tmp_path, "runs.jsonl", f'{{"case_id": "a", "retrieved": {retrieved}}}\n')
    with pytest.raises(InputError) as info:
        load_runs(path)
    assert info.value.field == field and fragment in str(info.value)


def test_penalty_keys_are_the_defect_kinds(tmp_path: Path) -> None:
    path = write(tmp_path, "pathgrade.toml", "[penalties]\nwasted = 3\n")
    with pytest.raises(InputError) as info:
        load_config(path)
    message = str(info.value)
    assert info.value.field == "penalties.wasted"
    for kind in ("missing_step", "wasted_step", "out_of_order", "unrecovered_error"):
        assert kind in message
    good = write(tmp_path, "good.toml", "[penalties]\nwasted_step = 3\nmissing_step = 7\n")
    penalties = load_config(good).penalties
    assert (penalties.of("wasted_step"), penalties.of("missing_step")) == (3, 7)
