"""OpenInference reader: OTLP/JSON and flat span JSON, golden runs."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, detect, openinference

from .helpers import TRACE_A, TRACE_B, span, traces_line, write_lines

KIND = "openinference.span.kind"


def test_golden_otlp_trace(tmp_path: Path) -> None:
    spans = [
        span(
            TRACE_A,
            1,
            None,
            0,
            900,
            {KIND: "AGENT", "output.value": "Paris", "pathgrade.case_id": "capital"},
            name="agent",
        ),
        # out of order in the file: the retriever (started at 300) comes first
        span(
            TRACE_A,
            4,
            1,
            300,
            400,
            {
                KIND: "RETRIEVER",
                "retrieval.documents.1.document.id": "d2",
                "retrieval.documents.1.document.score": 0.5,
                "retrieval.documents.0.document.id": "d1",
                "retrieval.documents.0.document.score": 0.8,
            },
        ),
        span(
            TRACE_A,
            2,
            1,
            10,
            100,
            {
                KIND: "LLM",
                "llm.token_count.prompt": 30,
                "llm.token_count.completion": 12,
                "llm.cost.total": 0.002,
            },
        ),
        span(
            TRACE_A,
            3,
            1,
            110,
            200,
            {
                KIND: "TOOL",
                "tool.name": "search",
                "tool.id": "call_9",
                "input.value": '{"q": "capital of France"}',
                "input.mime_type": "application/json",
                "output.value": "Paris is...",
            },
        ),
        # text input and a JSON-Schema tool.parameters: arguments are not recorded
        span(
            TRACE_A,
            5,
            1,
            500,
            510,
            {
                KIND: "TOOL",
                "tool.name": "note",
                "input.value": "remember Paris",
                "input.mime_type": "text/plain",
                "tool.parameters": '{"type": "object", "properties": {"text": {}}}',
            },
        ),
        # tool.parameters holding values (not a schema) are the arguments
        span(
            TRACE_A,
            6,
            1,
            520,
            530,
            {
                KIND: "TOOL",
                "tool.name": "save",
                "tool.parameters": '{"key": "capital", "value": "Paris"}',
            },
        ),
        span(TRACE_A, 7, 1, 10, 20, {KIND: "CHAIN"}),
    ]
    path = write_lines(tmp_path / "oi.jsonl", [traces_line(spans)])
    assert detect(path).name == "openinference"
    (run,) = list(openinference.read(path))
    assert run.case_id == "capital" and run.answer == "Paris"
    assert [s.tool for s in run.steps] == ["search", "note", "save"]
    search, note, save = run.steps
    assert search.arguments == {"q": "capital of France"} and search.call_id == "call_9"
    assert search.output == "Paris is..." and search.parent == f"{1:016x}"
    assert note.arguments == {} and note.metadata["arguments_recorded"] is False
    assert save.arguments == {"key": "capital", "value": "Paris"}
    assert run.usage is not None and run.usage.tokens == 42 and run.usage.cost == 0.002
    assert [(d.id, d.score) for d in run.retrieved or ()] == [("d1", 0.8), ("d2", 0.5)]


def test_flat_span_json_with_nested_attributes(tmp_path: Path) -> None:
    lines = [
        {
            "name": "lookup",
            "context": {"trace_id": "0x" + TRACE_B, "span_id": "0x" + "ab" * 8},
            "parent_id": None,
            "start_time": "2024-05-01T10:00:00.500Z",
            "end_time": "2024-05-01T10:00:01Z",
            "status": {"status_code": "ERROR", "description": "not found"},
            "attributes": {
                "openinference": {"span": {"kind": "TOOL"}},
                "tool": {"name": "lookup"},
                "input": {"value": '{"id": 3}', "mime_type": "application/json"},
            },
        },
    ]
    path = write_lines(tmp_path / "flat.jsonl", lines)
    (run,) = list(openinference.read(path))
    (step,) = run.steps
    assert step.tool == "lookup" and step.arguments == {"id": 3} and step.error == "not found"
    assert step.latency_ms == pytest.approx(500.0)


def test_malformed_line_and_skip(tmp_path: Path) -> None:
    good = traces_line([span(TRACE_A, 1, None, 0, 5, {KIND: "TOOL", "tool.name": "t"})])
    path = write_lines(tmp_path / "oi.jsonl", [good, b"{not json"])
    with pytest.raises(InputError) as caught:
        list(openinference.read(path))
    assert caught.value.line == 2
    options = IngestOptions(skip_invalid=True)
    assert len(list(openinference.read(path, options))) == 1 and len(options.skipped) == 1


def test_flat_span_with_bad_id_names_the_line(tmp_path: Path) -> None:
    line = {
        "context": {"trace_id": "xyz", "span_id": "0x" + "ab" * 8},
        "attributes": {KIND: "TOOL"},
    }
    path = tmp_path / "flat.jsonl"
    path.write_bytes(b"\n" + orjson.dumps(line) + b"\n")
    with pytest.raises(InputError, match="trace_id") as caught:
        list(openinference.read(path))
    assert caught.value.line == 2
