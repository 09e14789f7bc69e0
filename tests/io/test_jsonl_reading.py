"""Every JSON input is read the same way (pathgrade.io.jsonl): lines split on \\n only, one
parser and one set of limits for JSONL and JSON arrays, bounded line length, a depth limit
named by field; the in-memory loader, the partition reader and the case index agree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.case_index import index_cases
from pathgrade.io.cases import load_cases, load_runs, parse_record
from pathgrade.io.jsonl import DEFAULT_MAX_LINE_BYTES, MAX_DEPTH, iter_records, line_limit
from pathgrade.io.partitions import plan_partitions, read_partition
from pathgrade.io.splits import read_case_objects

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases.jsonl"
RUNS = ROOT / "examples" / "runs.jsonl"

#: Characters ``str.splitlines`` breaks on that are legal raw inside a JSON string, and that
#: ``json.dumps(ensure_ascii=False)`` writes raw.
SEPARATORS = ["\u2028", "\u2029", "\u0085"]
#: The control characters it also breaks on: JSON must escape them, so a line holding one
#: raw is one invalid record (not two lines).
CONTROLS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]


def _partitioned(path: Path, size: int = 3) -> list[tuple[int, Any]]:
    return [item for part in plan_partitions(path, size) for item in read_partition(part)]


def _nested(depth: int) -> Any:
    """``depth`` levels of objects and arrays: {"k": [{"k": [... 0]}]}."""
    value: Any = 0
    for level in range(depth):
        value = {"k": value} if (depth - level) % 2 else [value]
    return value


@pytest.mark.parametrize("separator", SEPARATORS)
def test_line_separators_inside_strings_stay_in_their_record(
    tmp_path: Path, separator: str
) -> None:
    """A raw U+2028 (etc.) inside a string is not a line break: 4 records on 4 lines, the
    same in memory and in partitions, and nothing is skipped under skip_invalid."""
    path = tmp_path / "runs.jsonl"
    records = [
        {"case_id": "c", "run_id": f"r{i}", "answer": f"x{separator}y", "steps": ["a:b"]}
        for i in range(4)
    ]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    assert separator in text and len(text.splitlines()) == 8  # what broke the old loader
    path.write_text(text, encoding="utf-8")
    loaded = load_runs(path, skip_invalid=True)
    assert loaded.skipped == [] and loaded.lines == [1, 2, 3, 4]
    assert [r.answer for r in loaded.items] == [f"x{separator}y"] * 4
    assert [(line, v) for line, v in _partitioned(path)] == list(
        zip([1, 2, 3, 4], records, strict=True)
    )


@pytest.mark.parametrize("control", CONTROLS)
def test_a_raw_control_character_is_one_bad_line_and_later_lines_keep_their_numbers(
    tmp_path: Path, control: str
) -> None:
    """Line 2 holds a raw \\x1c (etc.) in a string: one error for line 2, and the records
    after it keep their lines (3, 4), in memory and in partitions."""
    path = tmp_path / "runs.jsonl"
    lines = [f'{{"case_id": "c", "run_id": "r{i}"}}' for i in range(4)]
    lines[1] = '{"case_id": "c", "answer": "x' + control + 'y"}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = load_runs(path, skip_invalid=True)
    assert loaded.lines == [1, 3, 4] and [e.line for e in loaded.skipped] == [2]
    assert "malformed JSON: unexpected control character" in str(loaded.skipped[0])
    decoded = _partitioned(path)
    assert [line for line, _ in decoded] == [1, 2, 3, 4]
    assert isinstance(decoded[1][1], InputError) and str(decoded[1][1]) == str(loaded.skipped[0])


def test_line_separators_give_the_same_runs_in_memory_and_with_two_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example runs, each answer and metadata holding every separator: the in-memory
    engine and ``--workers 2`` score the same 8 runs (before, the in-memory loader saw more
    lines than there were records and rejected them)."""
    runs = tmp_path / "runs.jsonl"
    rows = [json.loads(line) for line in RUNS.read_text().splitlines() if line.strip()]
    for row in rows:
        row["answer"] = "".join(SEPARATORS) + str(row.get("answer", ""))
        row["metadata"] = {"note": "a" + "\u2028".join(SEPARATORS)}
    runs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    base = ["score", str(CASES), str(runs), "--json"]
    assert main(base) == 0
    in_memory = json.loads(capsys.readouterr().out)
    assert main([*base, "--workers", "2"]) == 0
    two_workers = json.loads(capsys.readouterr().out)
    assert len(in_memory["results"]) == len(two_workers["results"]) == len(rows) == 8
    assert in_memory["results"] == two_workers["results"]


def test_crlf_lines_and_a_byte_order_mark_read_alike_everywhere(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"case_id": "a"}\r\n\r\n{"case_id": "b"}\r\n')
    assert [(c.case_id, line) for c, line in zip(*_items(path), strict=True)] == [
        ("a", 1),
        ("b", 3),
    ]
    assert [(line, v["case_id"]) for line, v in _partitioned(path, 1)] == [(1, "a"), (3, "b")]
    index = index_cases(path)
    assert set(index.cases(["a", "b"])) == {"a", "b"}
    assert index.lines is not None and index.lines.tolist() == [1, 3]


def _items(path: Path) -> tuple[list[Any], list[int]]:
    loaded = load_cases(path)
    return loaded.items, loaded.lines


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("[" * 10_000 + "]" * 10_000, "nested"),  # stdlib json: RecursionError
        ("1" + "0" * 4_400, "malformed JSON"),  # stdlib json: int digits limit (ValueError)
        ("NaN", "malformed JSON"),  # stdlib json: accepted, became null
        ("-Infinity", "malformed JSON"),
        ("1e400", "malformed JSON"),  # beyond the float range
    ],
)
def test_json_array_and_jsonl_refuse_the_same_values(
    tmp_path: Path, body: str, fragment: str
) -> None:
    """The value as a field of the second record, in an array and in JSONL: the same one-line
    error on line 2 for both forms (the array's records are decoded as JSONL lines are)."""
    record = '{"case_id": "b", "metadata": {"x": ' + body + "}}"
    array = tmp_path / "cases.json"
    array.write_text('[{"case_id": "a"},\n' + record + "\n]\n")
    jsonl = tmp_path / "cases.jsonl"
    jsonl.write_text('{"case_id": "a"}\n' + record + "\n")
    for path in (array, jsonl):
        with pytest.raises(InputError) as info:
            load_cases(path)
        assert info.value.line == 2 and fragment in info.value.message, path
        assert "\n" not in str(info.value) and str(info.value).startswith(f"{path}:2:")


def test_json_array_nested_beyond_the_parsers_gives_its_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text(
        '[\n{"case_id": "a"},\n\n{"case_id": "b", "x": ' + "[" * 5000 + "]" * 5000 + "}]"
    )
    with pytest.raises(InputError, match="nested deeper than 128") as info:
        load_cases(path)
    assert info.value.line == 4


def test_json_array_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text('[\n  {"case_id": "a"},\n  {"case_id": "b"}\n  {"case_id": "c"}\n]\n')
    with pytest.raises(InputError, match="malformed JSON: expected ',' or ']'") as info:
        load_cases(path)
    assert info.value.line == 4
    path.write_text('[\n  {"case_id": "a"},\n')
    with pytest.raises(InputError, match="unterminated JSON array"):
        load_cases(path)


def test_json_array_records_keep_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_bytes(
        b'\xef\xbb\xbf\n  [ {"case_id": "a",\n "query": "q\\n"},\n\n {"case_id": "b"}, '
        b'{"case_id": "a2"}]  \n'
    )
    items, lines = _items(path)
    assert [c.case_id for c in items] == ["a", "b", "a2"] and lines == [2, 5, 5]


def test_a_line_longer_than_the_limit_is_an_error_naming_it(tmp_path: Path) -> None:
    """Limit 100 bytes: a 100-byte line is read, a 101-byte one is an error naming line 2,
    in memory, when planning partitions and when indexing cases."""
    ok = '{"case_id": "a", "query": "' + "x" * (100 - 29) + '"}'
    too_long = '{"case_id": "b", "query": "' + "x" * (101 - 29) + '"}'
    assert (len(ok), len(too_long)) == (100, 101)
    path = tmp_path / "cases.jsonl"
    path.write_text(ok + "\r\n" + too_long + "\n")  # ok's \r counts: 101 bytes
    with pytest.raises(InputError, match="line longer than 100 bytes") as info:
        load_cases(path, max_line_bytes=100)
    assert info.value.line == 1
    path.write_text(ok + "\n" + too_long + "\n")
    for read in (
        lambda: load_cases(path, max_line_bytes=100),
        lambda: plan_partitions(path, 10, max_line_bytes=100),
        lambda: index_cases(path, max_line_bytes=100),
    ):
        with pytest.raises(InputError, match="line longer than 100 bytes") as info:
            read()
        assert info.value.line == 2 and info.value.file == str(path)
    assert len(load_cases(path, max_line_bytes=101).items) == 2


def test_a_file_without_newlines_fails_at_the_limit_in_bounded_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """/dev/zero has no newline and no end: an error after reading 1 MiB of it (the limit
    set through the environment), from every reader."""
    monkeypatch.setenv("PATHGRADE_MAX_LINE_BYTES", str(1 << 20))
    assert line_limit() == 1 << 20
    for read in (
        lambda: list(iter_records("/dev/zero")),
        lambda: load_runs("/dev/zero", skip_invalid=True),
        lambda: plan_partitions("/dev/zero", 100),
        lambda: index_cases("/dev/zero"),
    ):
        with pytest.raises(InputError, match="line longer than 1,048,576 bytes") as info:
            read()
        assert info.value.line == 1


def test_the_line_limit_setting_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PATHGRADE_MAX_LINE_BYTES", raising=False)
    assert line_limit() == DEFAULT_MAX_LINE_BYTES == 64 << 20
    monkeypatch.setenv("PATHGRADE_MAX_LINE_BYTES", "lots")
    with pytest.raises(InputError, match=r"PATHGRADE_MAX_LINE_BYTES.*positive number"):
        line_limit()
    with pytest.raises(InputError, match="positive number"):
        line_limit(0)


def test_nesting_beyond_the_limit_is_refused_at_load_naming_the_field(tmp_path: Path) -> None:
    """Free-form values nest at most 128 levels: arguments 128 deep are read, 129 deep are
    refused naming the field, in memory and in partitions alike (orjson writes at most 254
    levels: before, such a run was scored and then could not be saved or reported)."""
    path = tmp_path / "runs.jsonl"
    fits = {"case_id": "c", "steps": [{"tool": "t", "arguments": _nested(MAX_DEPTH)}]}
    deep = {"case_id": "c", "steps": ["a", {"tool": "t", "arguments": _nested(MAX_DEPTH + 1)}]}
    path.write_text(json.dumps(fits) + "\n" + json.dumps(deep) + "\n")
    loaded = load_runs(path, skip_invalid=True)
    assert loaded.lines == [1] and len(loaded.skipped) == 1
    (error,) = loaded.skipped
    assert error.line == 2 and error.field == "steps[1].arguments"
    assert error.message == "nested deeper than 128 levels of lists and objects"
    ((line, value),) = [(n, v) for n, v in _partitioned(path) if n == 2]
    with pytest.raises(InputError) as info:
        parse_record(value, Run, file=str(path), line=line)
    assert str(info.value) == str(error)


@pytest.mark.parametrize(
    "fields",
    [
        {"metadata": {"m": _nested(MAX_DEPTH)}},
        {"expected_state": {"s": _nested(MAX_DEPTH)}},
        {"reference": [{"tool": "t", "output": _nested(MAX_DEPTH + 1)}]},
        {"references": [[{"tool": "t", "metadata": {"k": _nested(MAX_DEPTH)}}]]},
    ],
)
def test_every_free_form_field_of_a_case_is_bounded(tmp_path: Path, fields: dict[str, Any]) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"case_id": "a"}) + "\n" + json.dumps({"case_id": "b", **fields}))
    with pytest.raises(InputError, match="nested deeper than 128") as info:
        load_cases(path)
    assert info.value.line == 2 and (info.value.field or "").split("[")[0].split(".")[0] in fields
    index = index_cases(path)  # the index reads heads; the worker's validation refuses it
    with pytest.raises(InputError, match="nested deeper than 128") as info:
        index.cases(["b"])
    assert info.value.line == 2


def test_a_json_document_without_a_model_is_bounded_as_a_whole(tmp_path: Path) -> None:
    """A split's cases are written back as JSON: the whole record is held to 128 levels."""
    path = tmp_path / "cases.jsonl"
    path.write_text(
        json.dumps({"case_id": "a", "x": _nested(MAX_DEPTH - 1)})
        + "\n"
        + json.dumps({"case_id": "b", "x": _nested(MAX_DEPTH)})
    )
    with pytest.raises(InputError, match="nested deeper than 128") as info:
        read_case_objects(path)
    assert info.value.line == 2 and info.value.field == "x.k[0].k[0].k..."


def test_a_directory_and_a_missing_file_are_one_line_errors(tmp_path: Path) -> None:
    for path in (tmp_path, tmp_path / "nope.jsonl"):
        for read in (lambda p=path: load_cases(p), lambda p=path: plan_partitions(p, 10)):
            with pytest.raises(InputError, match="cannot read file"):
                read()


def test_partitions_refuse_a_json_array_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text('  [{"case_id": "a"}]')
    with pytest.raises(InputError, match="a JSON array cannot be read in partitions"):
        plan_partitions(path, 10)
    assert len(load_runs(path).items) == 1  # in memory it is read


def test_judge_files_are_read_as_every_json_input(tmp_path: Path) -> None:
    """Chunks and recordings (pathgrade.io.records) under the same rules: a U+2028 inside a
    text stays in its record, a 5,000-digit number and 2,000 levels are one-line errors."""
    from pathgrade.judge.cache import Recording
    from pathgrade.judge.files import load_chunks

    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text('{"id": "a", "text": "x\u2028y"}\n', encoding="utf-8")
    assert load_chunks(chunks).text("a") == "x\u2028y"
    for body in ("1" + "0" * 5000, "[" * 2000 + "]" * 2000):
        recording = tmp_path / "recording.json"
        recording.write_text('[{"key": "k", "verdict": {"x": ' + body + "}}]")
        with pytest.raises(InputError):
            Recording.load(recording)
