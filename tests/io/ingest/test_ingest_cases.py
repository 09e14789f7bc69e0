"""Cases from traces (``ingest_cases``, ``Format.read_cases``) and the atomic JSONL writers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import orjson
import pytest

import pathgrade.io.ingest as ingest_module
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Step
from pathgrade.io.cases import load_cases
from pathgrade.io.ingest import FORMATS, ingest_cases, write_cases, write_runs
from pathgrade.io.ingest.writing import write_lines

from .helpers import write_lines as write_trace_lines
from .test_tau_bench_reader import PUBLISHED, SHARED, record


def test_the_tau_bench_formats_carry_gold() -> None:
    assert FORMATS["tau-bench"].read_cases is not None
    assert FORMATS["tau-bench-results"].read_cases is not None
    assert FORMATS["openai-messages"].read_cases is None


def test_cases_of_every_file_with_gold(tmp_path: Path) -> None:
    # The compact copy (50 tasks) and the published subset (3 of those tasks) agree on the
    # 3 shared cases: 50 cases in all, in file order; a file without gold adds none.
    messages = Path(__file__).resolve().parents[2] / "golden" / "ingest" / "openai_messages.jsonl"
    cases = ingest_cases([SHARED, PUBLISHED, messages])
    assert len(cases) == 50 and cases[0].case_id == "tau_bench/airline/test/0"
    assert ingest_cases([messages]) == []


def test_a_case_that_differs_between_files_is_an_error(tmp_path: Path) -> None:
    one = write_trace_lines(tmp_path / "a.jsonl", [record()])
    other = write_trace_lines(tmp_path / "b.jsonl", [record(gold_outputs=["43"])])
    assert len(ingest_cases([one, one])) == 1
    with pytest.raises(InputError) as caught:
        ingest_cases([one, other])
    assert caught.value.file == str(other) and str(one) in caught.value.message


def test_a_reader_bug_in_read_cases_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_trace_lines(tmp_path / "a.jsonl", [record()])

    def broken(path: object, options: object) -> list[Case]:
        raise KeyError("x")

    formats = dict(FORMATS, **{"tau-bench": replace(FORMATS["tau-bench"], read_cases=broken)})
    monkeypatch.setattr(ingest_module, "FORMATS", formats)
    with pytest.raises(InputError, match="the tau-bench reader failed on this input"):
        ingest_cases([path])


def test_written_cases_load_back(tmp_path: Path) -> None:
    cases = ingest_cases([SHARED])
    out = tmp_path / "cases.jsonl"
    assert write_cases(cases, out) == 50
    assert load_cases(out).items == cases


def test_writers_leave_no_partial_file(tmp_path: Path) -> None:
    out = tmp_path / "cases.jsonl"
    out.write_bytes(b"old\n")

    def failing() -> object:
        yield Case(case_id="a", reference=(Step(tool="t"),))
        raise InputError("bad trace", file="t.jsonl", line=3)

    with pytest.raises(InputError, match="bad trace"):
        write_cases(failing(), out)  # type: ignore[arg-type]
    assert out.read_bytes() == b"old\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "cases.jsonl"
    ]
    with pytest.raises(InputError, match="cannot write runs: it is a directory"):
        write_runs([], tmp_path)
    with pytest.raises(InputError, match="cannot write tools: No such file or directory"):
        write_lines([b"{}"], tmp_path / "missing" / "tools.json", "tools")


def test_write_lines_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert write_lines([orjson.dumps({"a": 1}), b"2"], "-", "runs") == 2
    assert capsys.readouterr().out == '{"a":1}\n2\n'
