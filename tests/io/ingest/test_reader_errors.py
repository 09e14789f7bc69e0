"""Readers never crash: wrong JSON types, unreadable files, deep values, skip counting."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from pathgrade.core.errors import InputError
from pathgrade.io import ingest as ingest_module
from pathgrade.io.ingest import (
    FORMATS,
    Format,
    IngestOptions,
    ingest,
    langchain,
    openai_messages,
    openinference,
    otel_genai,
    write_runs,
)
from pathgrade.io.ingest._common import (
    MAX_NESTING,
    At,
    arr,
    bounded,
    kind,
    nesting,
    obj,
    read_text,
    text,
)

from .helpers import TRACE_A, TRACE_B, span, traces_line, write_lines

TOOL = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"}


def test_accessors_name_the_field_and_the_types() -> None:
    at = At("trace.json", 1).key("resourceSpans").item(0).key("scopeSpans")
    assert at.path == "resourceSpans[0].scopeSpans"
    with pytest.raises(InputError) as caught:
        arr(5, at)
    assert str(caught.value) == (
        "trace.json:1: field 'resourceSpans[0].scopeSpans': expected a list, got a number"
    )
    assert arr(None, at) == [] and obj(None, at) == {} and text(None, at) is None
    with pytest.raises(InputError, match="expected an object, got null"):
        obj(None, at, optional=False)
    with pytest.raises(InputError, match="expected a string, got a boolean"):
        text(True, at)
    assert [kind(v) for v in (None, True, 1.5, "s", [], {})] == [
        "null",
        "a boolean",
        "a number",
        "a string",
        "a list",
        "an object",
    ]


def test_nesting_and_its_bound() -> None:
    # 0 for a scalar; [] is 1; {"a": [[1]]} is 3 (object, list, list).
    assert nesting(7) == 0 and nesting([]) == 1 and nesting({"a": [[1]]}) == 3
    at = At("f", 2, "arguments")
    ok: object = 1
    for _ in range(MAX_NESTING):
        ok = [ok]
    assert bounded(ok, at) is ok  # exactly MAX_NESTING levels: kept
    with pytest.raises(InputError) as caught:
        bounded([ok], at)  # one more level
    assert caught.value.field == "arguments" and caught.value.line == 2


@pytest.mark.parametrize(
    ("patch", "field", "message"),
    [
        ({"resource": 5}, "resourceSpans[0].resource", "expected an object, got a number"),
        ({"resource": "x"}, "resourceSpans[0].resource", "expected an object, got a string"),
        ({"scopeSpans": 5}, "resourceSpans[0].scopeSpans", "expected a list, got a number"),
        ({"scopeSpans": {"a": 1}}, "resourceSpans[0].scopeSpans", "expected a list, got an object"),
        ({"scopeSpans": [7]}, "resourceSpans[0].scopeSpans[0]", "expected an object, got a number"),
        (
            {"resource": {"attributes": True}},
            "resourceSpans[0].resource.attributes",
            "expected a list, got a boolean",
        ),
    ],
)
def test_otlp_containers_of_the_wrong_type(
    tmp_path: Path, patch: dict[str, object], field: str, message: str
) -> None:
    doc = orjson.loads(traces_line([span(TRACE_A, 1, None, 0, 5, TOOL)]))
    doc["resourceSpans"][0].update(patch)
    good = traces_line([span(TRACE_B, 1, None, 0, 5, TOOL)])
    path = write_lines(tmp_path / "trace.json", [doc, good])
    for reader in (otel_genai, openinference):
        with pytest.raises(InputError) as caught:
            list(reader.read(path))
        assert str(caught.value) == f"{path}:1: field '{field}': {message}"
        options = IngestOptions(skip_invalid=True)
        assert [r.run_id for r in reader.read(path, options)] == [TRACE_B]
        assert [(e.line, e.field) for e in options.skipped] == [(1, field)]


def test_langchain_data_null(tmp_path: Path) -> None:
    good = {"messages": [{"type": "ai", "data": {"content": "ok"}}]}
    bad = {"messages": [{"type": "human", "data": {"content": "hi"}}, {"type": "ai", "data": None}]}
    path = write_lines(tmp_path / "lc.jsonl", [bad, good, [{"type": "ai", "data": 3}]])
    with pytest.raises(InputError) as caught:
        list(langchain.read(path))
    assert str(caught.value) == f"{path}:1: field 'messages[1].data': expected an object, got null"
    options = IngestOptions(skip_invalid=True)
    assert [r.answer for r in langchain.read(path, options)] == ["ok"]
    assert [(e.line, e.field) for e in options.skipped] == [
        (1, "messages[1].data"),
        (3, "[0].data"),
    ]


def test_langsmith_wrong_types_name_the_child(tmp_path: Path) -> None:
    tree = {"id": "r", "run_type": "chain", "child_runs": [{"id": "c", "run_type": "tool"}, 5]}
    path = write_lines(
        tmp_path / "ls.jsonl", [tree, {"id": "r2", "run_type": "chain", "extra": []}]
    )
    options = IngestOptions(skip_invalid=True)
    assert list(langchain.read(path, options)) == []
    assert [(e.line, e.field) for e in options.skipped] == [(1, "child_runs[1]"), (2, "extra")]


def unreadable(tmp_path: Path) -> dict[str, Path]:
    """A missing file, a directory and a symlink loop, with the error each one gives."""
    loop = tmp_path / "loop"
    loop.mkdir(exist_ok=True)
    if not (loop / "a").is_symlink():
        (loop / "a").symlink_to(loop / "b")
        (loop / "b").symlink_to(loop / "a")
    return {
        "No such file or directory": tmp_path / "missing.jsonl",
        "Is a directory": loop,
        "Too many levels of symbolic links": loop / "a",
    }


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_missing_file_directory_and_symlink_loop(tmp_path: Path, name: str) -> None:
    for reason, path in unreadable(tmp_path).items():
        with pytest.raises(InputError) as caught:
            list(FORMATS[name].read(path, None))
        assert str(caught.value) == f"{path}: cannot read file: {reason}"


def test_skip_invalid_counts_each_bad_line_once(tmp_path: Path) -> None:
    ok = {"messages": [{"role": "assistant", "content": "fine"}]}
    # Line 1 holds three bad conversations; line 3 one.
    path = write_lines(tmp_path / "m.jsonl", [[1, 2, 3], ok, [4]])
    options = IngestOptions(skip_invalid=True)
    assert [r.answer for r in openai_messages.read(path, options)] == ["fine"]
    assert [e.line for e in options.skipped] == [1, 3] and options.repeats == 2


def test_a_trace_error_and_a_span_error_on_one_line_count_once(tmp_path: Path) -> None:
    flat = [
        {"context": {"trace_id": "0x" + TRACE_A, "span_id": "0x" + "01" * 8}, "attributes": 5},
        {
            "context": {"trace_id": "0x" + TRACE_A, "span_id": "0x" + "02" * 8},
            "attributes": {"openinference.span.kind": "TOOL"},  # a tool without a name
        },
    ]
    path = write_lines(tmp_path / "flat.jsonl", [flat])
    options = IngestOptions(skip_invalid=True)
    assert list(openinference.read(path, options)) == []
    assert len(options.skipped) == 1 and options.repeats == 1
    assert options.skipped[0].field == "[0].attributes"


def test_bad_numbers_in_spans(tmp_path: Path) -> None:
    superscript = span(TRACE_A, 1, None, 0, 5, TOOL)
    superscript["startTimeUnixNano"] = "²"  # str.isdigit() is true, int() fails
    huge = span(TRACE_B, 1, None, 0, 5, {**TOOL, "pathgrade.trial": "9" * 30})
    path = write_lines(tmp_path / "t.jsonl", [traces_line([superscript]), traces_line([huge])])
    options = IngestOptions(skip_invalid=True)
    assert list(otel_genai.read(path, options)) == []
    assert [(e.line, e.field) for e in options.skipped] == [
        (1, "startTimeUnixNano"),
        (2, "pathgrade.trial"),
    ]
    trial = span(TRACE_A, 1, None, 0, 5, {**TOOL, "pathgrade.trial": "²"})
    path = write_lines(tmp_path / "u.jsonl", [traces_line([trial])])
    assert [r.trial for r in otel_genai.read(path)] == [0]  # not a trial number: default


def test_deep_arguments_are_an_error_not_a_crash_when_written(tmp_path: Path) -> None:
    deep = "[" * 300 + "]" * 300  # orjson reads 1,024 levels but writes only 254
    attrs = {**TOOL, "gen_ai.tool.call.arguments": deep}
    path = write_lines(tmp_path / "t.jsonl", [traces_line([span(TRACE_A, 1, None, 0, 5, attrs)])])
    with pytest.raises(InputError, match=f"nested deeper than {MAX_NESTING}") as caught:
        list(otel_genai.read(path))
    assert caught.value.field == f"span {1:016x}.arguments"
    message = {
        "messages": [
            {
                "role": "assistant",
                "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": deep}}],
            }
        ]
    }
    path = write_lines(tmp_path / "m.jsonl", [message])
    with pytest.raises(InputError) as caught:
        list(openai_messages.read(path))
    assert caught.value.field == "messages[0].tool_calls[0].function.arguments"


def test_line_separators_inside_strings_and_a_bom(tmp_path: Path) -> None:
    text_ = "a\u2028b\u2029c\x85d\x1ce\x0cf"  # str.splitlines() breaks at each of these
    lines = [
        {"messages": [{"role": "assistant", "content": text_}]},
        {"messages": [{"role": "assistant", "content": "second"}]},
    ]
    raw = b"".join(orjson.dumps(x) + b"\r\n" for x in lines)
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + raw)
    runs = list(openai_messages.read(path))
    assert [(r.answer, r.run_id) for r in runs] == [(text_, "m.jsonl:1"), ("second", "m.jsonl:2")]


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "\xff"}\n')
    with pytest.raises(InputError) as caught:
        read_text(path)
    assert caught.value.line == 2 and "not UTF-8" in str(caught.value)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_device_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATHGRADE_MAX_LINE_BYTES", "4096")
    with pytest.raises(InputError, match="limited to 4,096 bytes"):
        read_text("/dev/zero")


def test_the_dispatcher_turns_a_reader_bug_into_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: str | Path, options: IngestOptions | None) -> Iterator[object]:
        assert options is not None
        options.line = 3
        yield from ()
        raise KeyError("resource")

    fake = Format("broken", "a reader with a bug", lambda head: True, broken)
    monkeypatch.setattr(ingest_module, "resolve", lambda name: fake)
    path = tmp_path / "x.jsonl"
    path.write_text("{}\n")
    with pytest.raises(InputError) as caught:
        list(ingest([path], "broken"))
    assert str(caught.value) == (
        f"{path}:3: the broken reader failed on this input (KeyError): please report it"
    )


def test_write_runs_into_a_missing_directory_or_onto_one(tmp_path: Path) -> None:
    for target in (tmp_path / "no" / "runs.jsonl", tmp_path):
        with pytest.raises(InputError, match="cannot write runs") as caught:
            write_runs(iter(()), target)
        assert caught.value.file == str(target)
    assert sorted(os.listdir(tmp_path)) == []  # no temporary file left behind


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("2024-01-01T00:00:00.013875Z", 1_704_067_200_013_875_000),  # a float gave ...944
        ("2024-01-01T00:00:00.123456789+00:00", 1_704_067_200_123_456_789),  # ns kept
        ("2024-01-01T01:00:00+01:00", 1_704_067_200_000_000_000),
        ("2024-01-01T00:00:00", 1_704_067_200_000_000_000),  # no offset: UTC
        ("1970-01-01T00:00:00Z", 0),
    ],
)
def test_iso_times_are_read_exactly_to_the_nanosecond(text: str, nanoseconds: int) -> None:
    from pathgrade.io.ingest._common import At
    from pathgrade.io.ingest.spans import time_ns

    assert time_ns(text, At("f", 1, "start_time")) == nanoseconds


@pytest.mark.parametrize("text", ["yesterday", "2024-13-01T00:00:00Z", "1969-12-31T23:59:59Z"])
def test_a_bad_or_negative_iso_time_is_a_one_line_error(text: str) -> None:
    from pathgrade.io.ingest._common import At
    from pathgrade.io.ingest.spans import time_ns

    with pytest.raises(InputError, match="is not an ISO-8601 time") as caught:
        time_ns(text, At("f", 1, "start_time"))
    assert caught.value.field == "start_time"
