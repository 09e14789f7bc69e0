"""The results reader: every record validated against the schema, each bad record refused
on one line naming the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.results import iter_results, read_results, validate_record

GOOD = {"case_id": "c", "metrics": {"path_score": 100.0, "goal_success": True, "n": 2}}


def _file(tmp_path: Path, *records: object, raw: bytes = b"") -> Path:
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records) + raw)
    return path


def test_a_record_without_the_optional_fields_reads_as_version_1(tmp_path: Path) -> None:
    path = _file(tmp_path, GOOD, GOOD | {"schema_version": 1, "extra": {"kept": True}})
    records = read_results(path)
    assert records == [GOOD, GOOD | {"schema_version": 1, "extra": {"kept": True}}]


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        ({"metrics": {}}, "case_id", "missing required field"),
        ({"case_id": "c"}, "metrics", "missing required field"),
        (GOOD | {"metrics": []}, "metrics", "expected object, got array"),
        (GOOD | {"metrics": {"x": "high"}}, "metrics", "got str"),
        (GOOD | {"trial": "1"}, "trial", "expected int, got str"),
        (GOOD | {"run_id": 7}, "run_id", "got int"),
        (GOOD | {"defects": [{"kind": 1, "penalty": 1, "detail": ""}]}, "defects[0].kind", "str"),
        (GOOD | {"defects": [{"kind": "x", "detail": ""}]}, "penalty", "missing required field"),
        (GOOD | {"alignment": [{"op": "swap"}]}, "alignment[0].op", "invalid enum value"),
        (GOOD | {"usage": {"steps": 1.5}}, "usage.steps", "expected int"),
        (GOOD | {"schema_version": 0}, "schema_version", "invalid schema_version 0"),
        (GOOD | {"schema_version": "1"}, "schema_version", "invalid schema_version '1'"),
        (GOOD | {"schema_version": True}, "schema_version", "invalid schema_version True"),
        (GOOD | {"schema_version": 3}, "schema_version", "unsupported schema_version 3"),
    ],
)
def test_a_bad_record_names_file_line_and_field(
    tmp_path: Path, record: dict[str, object], field: str, message: str
) -> None:
    path = _file(tmp_path, GOOD, record)
    with pytest.raises(InputError) as caught:
        read_results(path)
    error = caught.value
    assert (error.file, error.line, error.field) == (str(path), 2, field)
    assert message in error.message
    assert "\n" not in str(error) and str(error).startswith(f"{path}:2: field '{field}': ")


def test_not_records(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r":1: expected a JSON object"):
        read_results(_file(tmp_path, [GOOD]))
    with pytest.raises(InputError, match=r":2: malformed JSON"):
        read_results(_file(tmp_path, GOOD, raw=b"{nope\n"))
    with pytest.raises(InputError, match="results file is empty"):
        read_results(_file(tmp_path, raw=b"\n\n"))
    with pytest.raises(InputError, match="cannot read results file"):
        read_results(tmp_path / "missing.jsonl")


def test_records_are_read_one_at_a_time(tmp_path: Path) -> None:
    # The records before a bad one are yielded before its error.
    records = iter_results(_file(tmp_path, GOOD, GOOD | {"trial": None}))
    assert next(records) == GOOD
    with pytest.raises(InputError, match="trial"):
        next(records)


def test_validate_record_returns_the_record_itself() -> None:
    record = dict(GOOD)
    assert validate_record(record, file="f", line=1) is record


def test_results_lines_are_bounded_split_on_newline_only_and_bom_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A results file is read like every JSON input: a BOM is skipped, a U+2028 inside a
    string stays in its record, and a line over the limit is a one-line error at its line."""
    from pathgrade.io.jsonl import MAX_LINE_BYTES_ENV

    good = tmp_path / "results.jsonl"
    golden = Path(__file__).resolve().parents[2] / "golden" / "results"
    line = sorted(golden.glob("*.jsonl"))[-1].read_bytes().split(b"\n")[0]
    record = orjson.loads(line)
    record["case_id"] = "a\u2028b"
    good.write_bytes(b"\xef\xbb\xbf" + orjson.dumps(record) + b"\n")
    assert [r["case_id"] for r in iter_results(good)] == ["a\u2028b"]
    monkeypatch.setenv(MAX_LINE_BYTES_ENV, "100")
    long = tmp_path / "long.jsonl"
    long.write_bytes(b"\n" + orjson.dumps(record) + b"\n")
    with pytest.raises(InputError, match="longer than 100 bytes") as info:
        list(iter_results(long))
    assert info.value.line == 2
