"""Spans no convention maps are counted and reported in one line, never dropped in silence;
``ingest --explain`` prints each span of one trace and what it became."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from pathgrade.api.ingesting import ingest
from pathgrade.cli.ingest_explain import explain_text, unmapped_line
from pathgrade.cli.main import main
from pathgrade.io.ingest._common import SpanFate

PRODUCERS = Path(__file__).resolve().parents[2] / "golden" / "ingest" / "producers"
TRACE = "5eed0000000000000000000000000001"


def _span(span_id: str, name: str, parent: str | None, attrs: dict[str, str]) -> dict[str, object]:
    span: dict[str, object] = {
        "traceId": TRACE,
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": str(int(span_id, 16)),
        "endTimeUnixNano": str(int(span_id, 16) + 1),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
    }
    if parent:
        span["parentSpanId"] = parent
    return span


def _unknown_producer(tmp_path: Path) -> Path:
    """A GenAI trace with two spans of an instrumentation pathgrade has no table for."""
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"}
    queue = {"messaging.system": "x"}
    tool = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.arguments": '{"id": 1}',
    }
    root = "0000000000000001"
    spans = [
        _span(root, "invoke_agent helper", None, agent),
        _span("0000000000000002", "queue.publish", root, queue),
        _span("0000000000000003", "execute_tool lookup", root, tool),
        _span("0000000000000004", "queue.publish", root, queue),
    ]
    path = tmp_path / "trace.jsonl"
    record = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "acme"}, "spans": spans}]}]}
    path.write_text(json.dumps(record) + "\n")
    return path


def test_unmapped_spans_are_counted_by_name(tmp_path: Path) -> None:
    runs = ingest([_unknown_producer(tmp_path)], explain=True)
    (run,) = list(runs)
    assert [(s.tool, s.arguments) for s in run.steps] == [("lookup", {"id": 1})]
    assert runs.options.unmapped == Counter({"queue.publish": 2})
    fates = {f.span_id[-1]: f.what for f in runs.options.explain or []}
    assert fates == {
        "1": "agent helper",
        "2": "not mapped",
        "3": "step 1 lookup",
        "4": "not mapped",
    }


def test_the_note_is_one_line_with_the_most_frequent_names() -> None:
    names = Counter({f"span {i}": i for i in range(1, 8)})
    line = unmapped_line(names)
    assert "\n" not in line
    assert line.startswith("28 span(s) followed no convention")
    assert "span 7 x7, span 6 x6, span 5 x5, span 4 x4, span 3 x3, 2 more name(s)" in line


def test_uuids_in_span_names_are_counted_as_one_name() -> None:
    runs = ingest([PRODUCERS / "autogen_otel.jsonl"])
    list(runs)
    assert runs.options.unmapped["autogen ack"] >= 1
    assert not any("3a7641d8" in name for name in runs.options.unmapped)
    assert any("<id>" in name for name in runs.options.unmapped)


def test_explain_indents_by_parent_and_escapes_trace_text() -> None:
    fates = [
        SpanFate("t", "a", None, "root\x1b[31m", "agent root"),
        SpanFate("t", "b", "a", "child", "step 1 lookup"),
        SpanFate("u", "c", None, "other", "structure"),
    ]
    text = explain_text(fates, None)
    assert text.splitlines()[0] == "trace t: 2 span(s)"
    assert "root\\x1b[31m" in text and "\x1b" not in text
    assert text.splitlines()[2].startswith("    child")
    assert "other" not in text
    assert "no trace 'v'" in explain_text(fates, "v")


def test_cli_prints_the_note_and_the_explanation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _unknown_producer(tmp_path)
    out = tmp_path / "runs.jsonl"
    assert main(["ingest", str(path), "-o", str(out), "--explain"]) == 0
    err = capsys.readouterr().err
    assert "2 span(s) followed no convention pathgrade maps" in err
    assert "queue.publish x2" in err
    assert f"trace {TRACE}: 4 span(s)" in err
    assert "execute_tool lookup" in err and "step 1 lookup" in err
