"""``pathgrade ingest`` on bad input: one line on stderr, exit 2; --skip-invalid counts lines."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pathgrade.cli.main import main
from pathgrade.io.cases import load_runs
from pathgrade.io.ingest import FORMATS

A = "5b8efff798038103d269b633813fc60c"


def _otlp(scope_spans: object) -> bytes:
    return orjson.dumps({"resourceSpans": [{"scopeSpans": scope_spans}]})


def _tool_span(trace: str) -> dict[str, object]:
    return {
        "traceId": trace,
        "spanId": "00000000000000a1",
        "name": "execute_tool search",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000500000000",
    }


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


@pytest.mark.parametrize("fmt", ["auto", *FORMATS])
def test_missing_file_directory_and_symlink_loop_exit_2(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "dir").mkdir()
    cases = {
        "missing.jsonl": "No such file or directory",
        "dir": "Is a directory",
        "a": "Too many levels of symbolic links",
    }
    for name, reason in cases.items():
        path = tmp_path / name
        assert main(["ingest", "--from", fmt, str(path), "-o", str(tmp_path / "o.jsonl")]) == 2
        assert _one_error_line(capsys) == f"pathgrade: error: {path}: cannot read file: {reason}"
    assert not (tmp_path / "o.jsonl").exists()


def test_scope_spans_of_the_wrong_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "trace.json"
    good = _otlp([{"spans": [_tool_span(A)]}])
    path.write_bytes(_otlp(5) + b"\n" + good + b"\n")
    out = tmp_path / "runs.jsonl"
    assert main(["ingest", "--from", "otel-genai", str(path), "-o", str(out)]) == 2
    assert _one_error_line(capsys) == (
        f"pathgrade: error: {path}:1: field 'resourceSpans[0].scopeSpans':"
        " expected a list, got a number"
    )
    assert not out.exists()
    assert main(["ingest", str(path), "-o", str(out), "--skip-invalid"]) == 0
    assert [r.steps[0].tool for r in load_runs(out).items] == ["search"]
    err = capsys.readouterr().err
    assert f"skipped: {path}:1: field 'resourceSpans[0].scopeSpans'" in err
    assert "1 run(s) written, 1 skipped (bad lines)" in err


def test_langchain_data_null_also_with_skip_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "lc.jsonl"
    path.write_bytes(orjson.dumps([{"type": "ai", "data": None}]) + b"\n")
    assert main(["ingest", "--from", "langchain", str(path)]) == 2
    assert _one_error_line(capsys) == (
        f"pathgrade: error: {path}:1: field '[0].data': expected an object, got null"
    )
    assert main(["ingest", "--from", "langchain", str(path), "--skip-invalid"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"pathgrade: skipped: {path}:1: field '[0].data': expected an object, got null",
        "pathgrade: 0 run(s) written, 1 skipped (bad lines)",
    ]


def test_skip_invalid_counts_each_bad_line_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok = {"case_id": "c", "messages": [{"role": "assistant", "content": "fine"}]}
    path = tmp_path / "m.jsonl"
    # line 1: three bad conversations; line 2: malformed JSON; line 3: good
    path.write_bytes(b"[1, 2, 3]\n{oops\n" + orjson.dumps(ok) + b"\n")
    out = tmp_path / "runs.jsonl"
    argv = ["ingest", "--from", "openai-messages", str(path), "-o", str(out), "--skip-invalid"]
    assert main(argv) == 0
    lines = capsys.readouterr().err.splitlines()
    assert [x.split(": ")[2] for x in lines[:2]] == [f"{path}:1", f"{path}:2"]
    assert lines[2:] == [
        "pathgrade: 1 run(s) written, 2 skipped (bad lines; 2 more error(s) on those lines)"
    ]
    assert len(load_runs(out).items) == 1


def test_out_into_a_missing_directory_or_onto_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_otlp([{"spans": [_tool_span(A)]}]) + b"\n")
    missing = tmp_path / "missing" / "runs.jsonl"
    for out, named in ((missing, str(missing.parent)), (tmp_path, str(tmp_path))):
        assert main(["ingest", str(path), "-o", str(out)]) == 2
        line = _one_error_line(capsys)
        assert line.startswith("pathgrade: error: ") and named in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]
