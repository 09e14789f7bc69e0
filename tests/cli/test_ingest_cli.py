"""``pathgrade ingest``: formats, auto-detection, options, one-line errors, --skip-invalid."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pathgrade.cli.main import main
from pathgrade.io.cases import load_runs


def _otlp_line(trace: str, tool: str, attrs: dict[str, object] | None = None) -> bytes:
    span = {
        "traceId": trace,
        "spanId": "00000000000000a1",
        "name": f"execute_tool {tool}",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000500000000",
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in (attrs or {}).items()],
    }
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


A = "5b8efff798038103d269b633813fc60c"
B = "0af7651916cd43dd8448eb211c80319c"


def test_ingest_auto_writes_loadable_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    traces = tmp_path / "traces.jsonl"
    traces.write_bytes(_otlp_line(A, "search", {"pathgrade.case_id": "c1"}) + b"\n")
    messages = tmp_path / "chat.jsonl"
    messages.write_bytes(
        orjson.dumps(
            {
                "case_id": "c2",
                "messages": [
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "1",
                                "type": "function",
                                "function": {"name": "f", "arguments": '{"x": 1}'},
                            }
                        ],
                    }
                ],
            }
        )
        + b"\n"
    )
    out = tmp_path / "runs.jsonl"
    assert main(["ingest", str(traces), str(messages), "-o", str(out)]) == 0
    loaded = load_runs(out)
    assert [(r.case_id, r.steps[0].tool) for r in loaded.items] == [("c1", "search"), ("c2", "f")]
    assert "2 run(s) written" in capsys.readouterr().err


def test_case_map_and_attribute_options(tmp_path: Path) -> None:
    traces = tmp_path / "t.jsonl"
    traces.write_bytes(
        _otlp_line(A, "s", {"task": "from-attr"}) + b"\n" + _otlp_line(B, "s") + b"\n"
    )
    mapping = tmp_path / "map.json"
    mapping.write_bytes(orjson.dumps({B: "from-map"}))
    out = tmp_path / "runs.jsonl"
    argv = [
        "ingest",
        "--from",
        "otel_genai",
        str(traces),
        "-o",
        str(out),
        "--case-id-attribute",
        "task",
        "--case-map",
        str(mapping),
    ]
    assert main(argv) == 0
    assert [r.case_id for r in load_runs(out).items] == ["from-attr", "from-map"]


def test_bad_line_is_one_line_exit_2_and_skip_invalid_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    traces = tmp_path / "t.jsonl"
    traces.write_bytes(_otlp_line(A, "a") + b"\n{broken\n" + _otlp_line(B, "b") + b"\n")
    out = tmp_path / "runs.jsonl"
    assert main(["ingest", "--from", "otel-genai", str(traces), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"pathgrade: error: {traces}:2: malformed JSON") and "\n" not in err
    assert not out.exists()
    assert (
        main(["ingest", "--from", "otel-genai", str(traces), "-o", str(out), "--skip-invalid"]) == 0
    )
    assert [r.steps[0].tool for r in load_runs(out).items] == ["a", "b"]
    err = capsys.readouterr().err
    assert f"skipped: {traces}:2" in err and "1 skipped" in err


def test_unknown_format_and_undetectable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"hello": 1}\n')
    assert main(["ingest", "--from", "nope", str(path)]) == 2
    assert "unknown trace format 'nope'" in capsys.readouterr().err
    assert main(["ingest", str(path)]) == 2
    assert "cannot tell the trace format" in capsys.readouterr().err
